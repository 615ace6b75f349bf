package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// The HTTP channel speaks Streamable HTTP (MCP's transport, package
// streamhttp) as well as plain JSON over HTTP: an answer may be an event
// stream; a server that answers with an Mcp-Session-Id header has begun
// a session, which the channel keeps (the id on each request after, the
// session's GET stream, the resumption of a broken stream, DELETE on
// Close).

// ErrSessionEnded is wrapped by the error of a call the server answered
// with 404 Not Found to the session id the channel sent: the session has
// ended (the server forgot it, or it was idle too long). The channel
// forgets it too; the next request without an id may begin another (under
// MCP 2025-11-25, an initialize request).
var ErrSessionEnded = errors.New("jsonrpc: the HTTP session has ended")

// HTTPNoGetStream keeps the channel from opening the GET stream of a
// session it begins, on which a Streamable HTTP server sends what its
// methods send outside any call (notifications to every session, calls
// of its own): for a client that needs none of it.
func HTTPNoGetStream() HTTPOption {
	return func(c *httpChannel) { c.noGet = true }
}

// HTTPSessionID returns the session id the HTTP channel ch holds, the
// server's Mcp-Session-Id, or "" when it has none (or ch is not made by
// HTTP).
func HTTPSessionID(ch Channel) string {
	if h, ok := ch.Conn.(*httpChannel); ok {
		return h.sessionID()
	}
	return ""
}

// errStreamEnded is the error of a call whose event stream ended before
// its answer came, with no way to resume it.
var errStreamEnded = errors.New("jsonrpc: the event stream ended before the answer")

// awaitsAnswer reports whether msg, sent, has an answer to wait for: it
// holds a request.
func awaitsAnswer(msg []byte) bool {
	var r wire.Request
	kind, err := (wire.Scanner{}).Classify(msg, &r)
	return err == nil && (kind == wire.MsgRequest || kind == wire.MsgBatch)
}

func (h *httpChannel) sessionID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session
}

// Bounds of the resumption of broken streams.
const (
	// maxResumes is how many times in a row the channel resumes a stream
	// whose connection broke without bringing a new event.
	maxResumes = 5
	// defaultRetry is the wait before a resumption when the server named
	// none in a retry field.
	defaultRetry = time.Second
	// maxRetry bounds the wait before a resumption, whatever the server
	// names, and the backoff of a GET stream that cannot connect.
	maxRetry = 30 * time.Second
)

type httpChannel struct {
	url    string
	hc     *http.Client
	header http.Header // HTTPHeader; read-only once made
	noGet  bool        // HTTPNoGetStream
	queue
	closing context.Context // cancelled by Close
	cancel  context.CancelFunc

	mu      sync.Mutex // protects the fields below
	session string     // the server's Mcp-Session-Id; "" before one
	getDone chan struct{}
}

// Close cancels the requests in flight and the GET stream, and ends the
// session, if the channel holds one, with a DELETE (bounded by 5 s; a
// server that keeps no sessions by request answers 405, which is fine).
func (h *httpChannel) Close() error {
	h.cancel()
	h.mu.Lock()
	id, getDone := h.session, h.getDone
	h.session = ""
	h.mu.Unlock()
	if getDone != nil {
		<-getDone
	}
	if id != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.url, nil); err == nil {
			h.setHeaders(req, nil, id)
			if resp, err := h.hc.Do(req); err == nil {
				io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
				resp.Body.Close()
			}
		}
		cancel()
	}
	return h.queue.Close()
}

// maxHTTPResponse bounds the response body the HTTP channel reads, and
// each event of an event stream.
const maxHTTPResponse = 64 << 20

// setHeaders sets what every request of the channel carries: the
// channel's headers, those of ctx (WithHTTPHeader), and the session id.
func (h *httpChannel) setHeaders(req *http.Request, ctx context.Context, session string) {
	for k, v := range h.header {
		req.Header[k] = v
	}
	if ctx != nil {
		if hs, ok := ctx.Value(headerKey{}).(http.Header); ok {
			for k, v := range hs {
				req.Header[k] = v
			}
		}
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
}

func (h *httpChannel) Write(ctx context.Context, msg []byte) error {
	if h.closing.Err() != nil {
		return ErrClosed
	}
	// The request ends with the call's context or with Close.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(h.closing, cancel)
	defer stop()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, h.url, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	session := h.sessionID()
	h.setHeaders(req, ctx, session)
	req.Header.Set("Content-Type", "application/json")
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return h.sendError(ctx, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		if err := h.adopt(resp, session); err != nil {
			return err
		}
		if isEventStream(resp) {
			ev := events{put: h.put}
			err := ev.read(resp.Body)
			switch {
			case ev.answered:
				return nil
			case rctx.Err() != nil:
				return h.sendError(ctx, rctx.Err())
			case ev.lastID != "" && h.sessionID() != "":
				return h.resume(rctx, &ev)
			case err != nil:
				return h.sendError(ctx, err)
			case !awaitsAnswer(msg):
				return nil
			}
			return errStreamEnded
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPResponse+1))
		if err != nil {
			return h.sendError(ctx, err)
		}
		if len(body) > maxHTTPResponse {
			return fmt.Errorf("jsonrpc: HTTP response over %d bytes", maxHTTPResponse)
		}
		h.put(body)
		return nil
	case http.StatusNoContent, http.StatusAccepted:
		h.adopt(resp, session)
		return nil
	}
	return h.statusError(resp, session)
}

// statusError is the error of a request answered with another status
// than the channel takes, and forgets the session when 404 answers the id
// it sent.
func (h *httpChannel) statusError(resp *http.Response, session string) error {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	e := &HTTPStatusError{StatusCode: resp.StatusCode, Status: resp.Status, URL: h.url}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs >= 0 {
		e.RetryAfter = time.Duration(secs) * time.Second
	}
	if resp.StatusCode == http.StatusNotFound && session != "" {
		h.mu.Lock()
		if h.session == session {
			h.session = ""
		}
		h.mu.Unlock()
		return fmt.Errorf("%w: %w", ErrSessionEnded, e)
	}
	return e
}

// adopt takes the session id of an answer to a request sent without one,
// and opens the session's GET stream.
func (h *httpChannel) adopt(resp *http.Response, sent string) error {
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" || id == sent || sent != "" {
		return nil
	}
	if !visibleASCII(id) {
		return fmt.Errorf("jsonrpc: the server's Mcp-Session-Id %q is not visible ASCII", id)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.session != "" || h.closing.Err() != nil {
		return nil // another request began one first
	}
	h.session = id
	if !h.noGet {
		done := make(chan struct{})
		h.getDone = done
		go func() {
			defer close(done)
			h.getStream(id)
		}()
	}
	return nil
}

func visibleASCII(s string) bool {
	for i := range len(s) {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return len(s) > 0
}

func isEventStream(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream"
}

// resume goes on with a POST's event stream whose connection broke before
// the answer came: a GET that names the last event got (Last-Event-ID),
// after the server's retry delay, until the answer comes, ctx ends, or
// maxResumes resumptions in a row bring nothing new.
func (h *httpChannel) resume(ctx context.Context, ev *events) error {
	session := h.sessionID()
	for fruitless := 0; fruitless < maxResumes; {
		if err := sleep(ctx, ev.wait()); err != nil {
			return err
		}
		before := ev.lastID
		resp, err := h.get(ctx, session, ev.lastID)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fruitless++
			continue
		}
		if resp.StatusCode != http.StatusOK || !isEventStream(resp) {
			defer resp.Body.Close()
			return h.statusError(resp, session)
		}
		ev.read(resp.Body)
		resp.Body.Close()
		if ev.answered {
			return nil
		}
		if ev.lastID == before {
			fruitless++
		} else {
			fruitless = 0
		}
	}
	return fmt.Errorf("jsonrpc: the event stream of the call broke %d times in a row without an event", maxResumes)
}

// get sends a GET of the session's event stream, or of the stream of
// the event last (Last-Event-ID) when it is not "".
func (h *httpChannel) get(ctx context.Context, session, last string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return nil, err
	}
	h.setHeaders(req, nil, session)
	req.Header.Set("Accept", "text/event-stream")
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	return h.hc.Do(req)
}

// getStream reads the session's GET stream until the channel closes or
// the session ends: 405 says the server offers none, 404 that the session
// ended; a stream that ends or breaks is resumed from its last event
// after the server's retry delay, a GET that fails is tried again with a
// backoff up to maxRetry.
func (h *httpChannel) getStream(session string) {
	ctx := h.closing
	ev := events{put: h.put}
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		resp, err := h.get(ctx, session, ev.lastID)
		switch {
		case err != nil:
			backoff = min(max(2*backoff, ev.wait()), maxRetry)
			if sleep(ctx, backoff) != nil {
				return
			}
			continue
		case resp.StatusCode == http.StatusBadRequest && ev.lastID != "":
			// The events after the last one are no longer kept: the
			// stream begins again, what was missed is lost.
			resp.Body.Close()
			ev.lastID = ""
			continue
		case resp.StatusCode != http.StatusOK || !isEventStream(resp):
			h.statusError(resp, session) // 405: none; 404: the session ended
			resp.Body.Close()
			return
		}
		backoff = 0
		ev.read(resp.Body)
		resp.Body.Close()
		if sleep(ctx, ev.wait()) != nil {
			return
		}
	}
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// events reads event streams: it passes the data of each event, a
// JSON-RPC message, to put as it arrives, and keeps what resuming the
// stream needs: the last event id, the retry delay, and whether an answer
// (a response) came.
type events struct {
	put      func([]byte)
	lastID   string
	retry    time.Duration
	answered bool
}

// wait is the delay before the stream is resumed.
func (ev *events) wait() time.Duration {
	if ev.retry > 0 {
		return min(ev.retry, maxRetry)
	}
	return defaultRetry
}

// read reads one event stream until it ends. Comments and event names are
// skipped; an event of several data lines is their lines joined by
// newlines, as the format says; an event with no data (a priming event)
// passes nothing on.
func (ev *events) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 4<<10)
	var data []byte
	has := false
	dispatch := func() {
		if has {
			ev.deliver(data)
		}
		data, has = nil, false
	}
	for {
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			// A long line: the rest of it, within the bound.
			if len(data)+len(line) > maxHTTPResponse {
				return fmt.Errorf("jsonrpc: event over %d bytes", maxHTTPResponse)
			}
			var more []byte
			more, err = br.ReadSlice('\n')
			line = append(append([]byte(nil), line...), more...)
		}
		if err != nil && err != io.EOF {
			return err
		}
		if err == io.EOF && len(line) == 0 {
			dispatch()
			return nil
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			dispatch()
		case line[0] == ':':
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				if has {
					data = append(data, '\n')
				}
				if len(data)+len(value) > maxHTTPResponse {
					return fmt.Errorf("jsonrpc: event over %d bytes", maxHTTPResponse)
				}
				data = append(data, value...)
				has = true
			case "id":
				if bytes.IndexByte(value, 0) < 0 {
					ev.lastID = string(value)
				}
			case "retry":
				if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil {
					ev.retry = time.Duration(ms) * time.Millisecond
				}
			}
		}
		if err == io.EOF {
			dispatch()
			return nil
		}
	}
}

// deliver passes the message of an event on, noting whether it is an
// answer.
func (ev *events) deliver(msg []byte) {
	var r wire.Request
	if kind, err := (wire.Scanner{}).Classify(msg, &r); err == nil && (kind == wire.MsgResponse || kind == wire.MsgResponses) {
		ev.answered = true
	}
	ev.put(msg)
}
