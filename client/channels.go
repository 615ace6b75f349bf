package client

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// queue holds the messages a channel has received and not yet handed to
// Read.
type queue struct {
	in     chan []byte
	closed chan struct{}
	once   sync.Once
}

func newQueue() queue {
	return queue{in: make(chan []byte, 64), closed: make(chan struct{})}
}

// put queues a copy of msg, unless the channel is closed.
func (q *queue) put(msg []byte) {
	if len(msg) == 0 {
		return
	}
	select {
	case q.in <- bytes.Clone(msg):
	case <-q.closed:
	}
}

// Read returns the next message received.
func (q *queue) Read() ([]byte, error) {
	select {
	case m := <-q.in:
		return m, nil
	case <-q.closed:
		return nil, io.EOF
	}
}

// Flush does nothing: each message is sent at once.
func (q *queue) Flush() error { return nil }

// Exchanges reports that each message is sent in an exchange of its own
// (transport.Conn): concurrent calls are sent at once.
func (q *queue) Exchanges() bool { return true }

func (q *queue) Close() error {
	q.once.Do(func() { close(q.closed) })
	return nil
}

// Local returns a channel to srv in the same process: each message is
// answered by srv.ProcessAsync, with the context of the Write that carried
// it, so a call's context reaches its method.
func Local(srv *jsonrpc.Server) Channel {
	return &local{srv: srv, queue: newQueue()}
}

type local struct {
	srv *jsonrpc.Server
	queue
}

func (l *local) Write(ctx context.Context, msg []byte) error {
	select {
	case <-l.closed:
		return io.ErrClosedPipe
	default:
	}
	l.srv.ProcessAsync(ctx, nil, msg, l.put)
	return nil
}

// HTTP returns a channel that POSTs each message to url with hc (nil means
// http.DefaultClient). Calls run concurrently, each in its own HTTP request;
// the context of a call is the context of its request, and a call whose
// context ends returns the context's error. Close cancels the requests in
// flight, whose calls fail with ErrClosed.
//
// Each request has Content-Type application/json, Accept application/json
// and text/event-stream, the headers of the HTTPHeader options, and those
// of the call's context (WithHTTPHeader). An answer that is an event
// stream, as a Streamable HTTP server (package streamhttp, MCP's
// transport) sends while a method reports progress or notifies before it
// answers, is read as it comes: each event's message reaches the client
// as if it had come on a stream connection (progress to OnProgress,
// notifications and calls to the client's Server), the answer last. A
// call whose context ends closes its stream, which such a server takes as
// cancellation. 202 Accepted and 204 No Content answer messages that have
// no answer.
func HTTP(url string, hc *http.Client, opts ...HTTPOption) Channel {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &httpChannel{url: url, hc: hc, queue: newQueue(), closing: ctx, cancel: cancel}
	for _, o := range opts {
		o(h)
	}
	return h
}

// An HTTPOption configures a channel made by HTTP.
type HTTPOption func(*httpChannel)

// HTTPHeader sends the headers h with every request of the channel, beside
// Content-Type (which they cannot replace). Its values replace those of
// earlier HTTPHeader options for the same keys. h is copied.
func HTTPHeader(h http.Header) HTTPOption {
	h = h.Clone()
	return func(c *httpChannel) {
		if c.header == nil {
			c.header = http.Header{}
		}
		for k, v := range h {
			c.header[http.CanonicalHeaderKey(k)] = v
		}
	}
}

type headerKey struct{}

// WithHTTPHeader returns a copy of ctx whose calls over an HTTP channel send
// the headers h, for example an Authorization of one user: a key of h
// replaces the values the channel (HTTPHeader) or an outer WithHTTPHeader
// gives it; Content-Type is always application/json. For a batch, the
// context of the batch gives the headers. h is copied. Other channels
// ignore it.
func WithHTTPHeader(ctx context.Context, h http.Header) context.Context {
	merged := http.Header{}
	if outer, ok := ctx.Value(headerKey{}).(http.Header); ok {
		for k, v := range outer {
			merged[k] = v
		}
	}
	for k, v := range h.Clone() {
		merged[http.CanonicalHeaderKey(k)] = v
	}
	return context.WithValue(ctx, headerKey{}, merged)
}

type httpChannel struct {
	url    string
	hc     *http.Client
	header http.Header // HTTPHeader; read-only once made
	queue
	closing context.Context // cancelled by Close
	cancel  context.CancelFunc
}

func (h *httpChannel) Close() error {
	h.cancel()
	return h.queue.Close()
}

// maxHTTPResponse bounds the response body the HTTP channel reads, and
// each event of an event stream.
const maxHTTPResponse = 64 << 20

// readEvents reads a text/event-stream and passes the data of each event,
// a JSON-RPC message, to put, as the events arrive, until the stream ends.
// Comments, event names, ids and retry fields are skipped; an event of
// several data lines is their lines joined by newlines, as the format
// says.
func readEvents(r io.Reader, put func([]byte)) error {
	br := bufio.NewReaderSize(r, 4<<10)
	var data []byte
	has := false
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
		if err == io.EOF && len(line) == 0 {
			if has {
				put(data)
			}
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if has {
				put(data)
				data, has = nil, false
			}
		case line[0] == ':':
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			if string(field) == "data" {
				if has {
					data = append(data, '\n')
				}
				if len(data)+len(value) > maxHTTPResponse {
					return fmt.Errorf("jsonrpc: event over %d bytes", maxHTTPResponse)
				}
				data = append(data, value...)
				has = true
			}
		}
		if err == io.EOF {
			if has {
				put(data)
			}
			return nil
		}
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
	for k, v := range h.header {
		req.Header[k] = v
	}
	if hs, ok := ctx.Value(headerKey{}).(http.Header); ok {
		for k, v := range hs {
			req.Header[k] = v
		}
	}
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
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
			if err := readEvents(resp.Body, h.put); err != nil {
				return h.sendError(ctx, err)
			}
			return nil
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
		return nil
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	e := &HTTPStatusError{StatusCode: resp.StatusCode, Status: resp.Status, URL: h.url}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs >= 0 {
		e.RetryAfter = time.Duration(secs) * time.Second
	}
	return e
}

// An HTTPStatusError is the error of a call over HTTP answered with a
// status other than 200 OK (the answer) and 204 No Content (the answer to
// notifications only): the server, or a proxy before it, refused the
// request or failed. Retry retries 502, 503 and 504.
type HTTPStatusError struct {
	StatusCode int    // 503
	Status     string // "503 Service Unavailable"
	URL        string // the channel's
	// RetryAfter is the Retry-After header's delay, when it gave one in
	// seconds.
	RetryAfter time.Duration
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("jsonrpc: HTTP %s from %s", e.Status, e.URL)
}

// sendError returns the error of a request that failed: ctx's error when
// the call's context ended, an error wrapping ErrClosed when the channel was
// closed, and err otherwise.
func (h *httpChannel) sendError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if h.closing.Err() != nil {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}
