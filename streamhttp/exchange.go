package streamhttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/httphost"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/protocol/enumerator"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// An exchange is one POST of a request as the transport of the peer.Conn
// that runs it: Read returns the request, then waits until the answer is
// written; Write sends what the Conn sends, the answer alone as JSON when
// nothing came before it, an event stream otherwise.
type exchange struct {
	status       func(resp []byte) int // the status of a JSON answer; nil: 200
	w            http.ResponseWriter
	req          []byte
	ctx          context.Context // the request's: its end (the client gone) ends Read
	cancel       context.CancelFunc
	events, json bool          // the client takes an event stream, a JSON body
	keepAlive    time.Duration // 0: no comments
	writeTimeout time.Duration // 0: none
	answered     chan struct{} // closed once the answer is written
	base         partialCtx    // ctx, as the base of its Conn's contexts
	sc           wire.Scanned  // req, classified: the Conn takes it (Traits.Classified)

	// rc is the calls' context, in which the server records a call it
	// refuses for who calls; meta, what the challenge of the refusal names.
	rc   *httphost.Request
	meta *transport.ResourceMetadata

	read     bool // Read has returned req; the read loop's only
	returned bool // Run has returned (ended); the read loop's only

	mu       sync.Mutex // guards the writes to w and the fields below
	stream   bool       // the event stream's header is written
	done     bool       // the answer is written
	closed   bool       // ServeHTTP is returning: w is no longer to be used
	lastSent time.Time  // of the stream's last write
	buf      []byte     // an event being written
}

// errDone is the error of a write after the answer, or once the client
// has gone.
var errDone = errors.New("streamhttp: the request's answer is written")

// Read returns the request, then waits until its answer is written (io.EOF)
// or the client is gone, keeping an event stream alive meanwhile.
func (x *exchange) Read() ([]byte, error) {
	if !x.read {
		x.read = true
		return x.req, nil
	}
	select {
	case <-x.answered:
		return nil, io.EOF // answered inline, as most calls are
	default:
	}
	var tick <-chan time.Time
	if x.keepAlive > 0 {
		t := time.NewTicker(x.keepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-x.answered:
			return nil, io.EOF
		case <-x.ctx.Done():
			return nil, x.ctx.Err()
		case <-tick:
			if err := x.keepOpen(); err != nil {
				x.cancel()
				return nil, err
			}
		}
	}
}

// keepOpen writes a comment to the event stream, beginning it, when nothing
// was sent for KeepAlive.
func (x *exchange) keepOpen() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed || x.done {
		return nil
	}
	if x.stream && time.Since(x.lastSent) < x.keepAlive {
		return nil
	}
	if !x.stream {
		x.beginStream()
	}
	x.deadline()
	if _, err := io.WriteString(x.w, ": keep-alive\n\n"); err != nil {
		return err
	}
	x.lastSent = time.Now()
	return http.NewResponseController(x.w).Flush()
}

// Write sends msg: the answer (the one response the Conn writes) as the
// whole body when nothing was sent before it, and otherwise as an event
// of the stream, which it then ends; the method's notifications and calls
// as events, or not at all to a client that takes no event stream.
func (x *exchange) Write(_ context.Context, msg []byte) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed || x.done {
		return errDone
	}
	final := isResponse(msg)
	if !x.stream {
		if final && (x.json || !x.events) {
			x.deadline()
			code := http.StatusOK
			if x.status != nil {
				code = x.status(msg)
			}
			if ref := x.rc.Refused(); ref != nil {
				// The call was refused for who calls: the status and
				// challenge of RFC 6750, the error as the body.
				var challenge string
				code, challenge = httphost.RefusalAnswer(ref, httphost.Metadata(x.meta))
				x.w.Header().Set("WWW-Authenticate", challenge)
			}
			answer(x.w, code, msg)
			x.finish()
			return nil
		}
		if !x.events {
			return nil // a notification the client has no way to take
		}
		x.beginStream()
	}
	x.deadline()
	err := x.event(msg)
	if err == nil && final {
		err = http.NewResponseController(x.w).Flush()
	}
	if final {
		x.finish()
	}
	return err
}

// Flush sends the events written.
func (x *exchange) Flush() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed || !x.stream {
		return nil
	}
	return http.NewResponseController(x.w).Flush()
}

// Close ends the exchange: a Read in progress returns.
func (x *exchange) Close() error {
	x.cancel()
	return nil
}

// Stop lets the request end with its answer (transport.Hosted): it has no other
// message to read, so there is nothing more to do.
func (x *exchange) Stop() {}

// Kill ends the request at once, cancelling its method (transport.Hosted).
func (x *exchange) Kill() { x.cancel() }

// ended is the end of the request's Conn: its answer is written, or the
// client is gone, or the handler stops; nothing may write to w once
// ServeHTTP has returned.
func (x *exchange) ended(error) {
	x.close()
	x.returned = true
}

// close marks w as no longer to be used.
func (x *exchange) close() {
	x.mu.Lock()
	x.closed = true
	x.mu.Unlock()
	x.cancel()
}

// finish records the answer written; x.mu is held.
func (x *exchange) finish() {
	x.done = true
	close(x.answered)
}

// beginStream writes the header of the event stream; x.mu is held.
func (x *exchange) beginStream() {
	hd := x.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	x.w.WriteHeader(http.StatusOK)
	x.stream = true
}

// deadline extends the write deadline for one write; x.mu is held.
func (x *exchange) deadline() {
	if x.writeTimeout > 0 {
		http.NewResponseController(x.w).SetWriteDeadline(time.Now().Add(x.writeTimeout))
	}
}

// event writes msg as one event of the stream; x.mu is held. The event's
// data is the message on one line: a line break can only be white space
// between JSON tokens (a string escapes its own), so each becomes a space.
func (x *exchange) event(msg []byte) error {
	buf := append(x.buf[:0], "event: message\ndata: "...)
	start := len(buf)
	buf = append(buf, msg...)
	for i, c := range buf[start:] {
		if c == '\n' || c == '\r' {
			buf[start+i] = ' '
		}
	}
	buf = append(buf, "\n\n"...)
	if cap(buf) <= 64<<10 {
		x.buf = buf // kept for the next event, unless a large one grew it
	}
	_, err := x.w.Write(buf)
	x.lastSent = time.Now()
	return err
}

// isResponse reports whether msg, a message the Conn writes (valid JSON,
// as the library writes it), is a response: the answer to the request
// (the Conn's own calls and its notifications are requests). The names
// of an object's members are read, decoded, up to the first that tells,
// so that a long result is not scanned: the library writes "jsonrpc"
// first, then "result", "error" or "method".
func isResponse(msg []byte) bool {
	if len(msg) == 0 || msg[0] != '{' {
		var r wire.Request
		kind, err := wire.Scanner{}.Classify(msg, &r)
		return err == nil && (kind == wire.MsgResponse || kind == wire.MsgResponses)
	}
	for pos := 0; ; {
		name, value, ok := wire.NextName(msg, pos)
		switch {
		case !ok:
			return false
		case wire.NameIs(name, "result"), wire.NameIs(name, "error"):
			return true
		case wire.NameIs(name, "method"):
			return false
		}
		pos = wire.SkipValue(msg, value)
	}
}

// partialCtx is an exchange's context as the base of its Conn's: partial
// results on and no pulls (enumerator.PartialOnly, whose caller has no
// way to pull), in the exchange's own allocation.
type partialCtx struct{ context.Context }

func (p *partialCtx) Value(key any) any {
	if _, ok := key.(keys.Sequencer); ok {
		return partialOnly
	}
	return p.Context.Value(key)
}

// partialOnly is enumerator.PartialOnly's sender, taken once.
var partialOnly = enumerator.PartialOnly(context.Background()).Value(keys.Sequencer{})
