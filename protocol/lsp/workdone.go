package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// The methods of LSP's server-initiated work-done progress.
const (
	// WorkDoneCreate is the request by which a server asks its client
	// for a progress token of its own.
	WorkDoneCreate = "window/workDoneProgress/create"
	// WorkDoneCancel is the notification by which the client cancels the
	// work reported on such a token.
	WorkDoneCancel = "window/workDoneProgress/cancel"
)

// ErrNoWorkDone is BeginWorkDone's error when the call did not come over
// a connection under LSP's profile (Protocol).
var ErrNoWorkDone = errors.New("jsonrpc: the call did not come over an LSP connection, which alone has server-initiated progress")

// rules is the Preempter of LSP's profile: it handles WorkDoneCancel, for
// the WorkDones of the connection. Its zero value is the profile's.
type rules struct{}

// workDones are the cancellable WorkDones of one connection
// (peer.Conn.Local), by token as sent.
type workDones struct {
	mu     sync.Mutex // protects the fields below
	next   uint64     // the last token made
	cancel map[string]context.CancelFunc
}

type workDonesKey struct{}

func workDonesOf(c *peer.Conn) *workDones {
	return c.Local(workDonesKey{}, func() any { return &workDones{} }).(*workDones)
}

// Preempt handles the client's WorkDoneCancel: the work on its token, if
// it was begun cancellable on this connection, sees its Context end.
func (rules) Preempt(c *peer.Conn, m *peer.Message) bool {
	if !m.Notification() || !m.Is(WorkDoneCancel) {
		return false
	}
	tok := wire.Member(m.Params(), "token")
	if tok == nil {
		return true
	}
	w := workDonesOf(c)
	w.mu.Lock()
	cancel := w.cancel[string(canonicalToken(tok))]
	w.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return true
}

// canonicalToken returns a token as the server makes it: a string with
// escapes in its shortest form, so that "w\u0031" is the token "w1".
func canonicalToken(tok []byte) []byte {
	if len(tok) > 0 && tok[0] == '"' {
		if s, ok := wire.Unquote(tok, false); ok {
			return wire.AppendQuote(nil, s)
		}
	}
	return tok
}

// A WorkDone is progress that the server begins itself, as LSP's
// server-initiated work-done progress: a token the client created on the
// server's request, on which the server reports the begin, reports and the
// end of some work, and which the client may cancel.
type WorkDone struct {
	p      *progress.Reporter
	conn   *workDones
	ctx    context.Context
	cancel context.CancelFunc
}

// BeginWorkDone asks the client of the call of ctx for a progress token
// (WorkDoneCreate), waiting for its answer, and reports the beginning of
// the work on it: {"kind": "begin", "title": title, "cancellable":
// cancellable}. The method must be registered jsonrpc.Blocking, since it
// waits for its peer. The WorkDone's Context ends with ctx, with End, and
// when the client cancels the work (WorkDoneCancel) if cancellable. It
// returns ErrNoWorkDone when the call did not come over a connection under
// LSP's profile.
func BeginWorkDone(ctx context.Context, title string, cancellable bool) (*WorkDone, error) {
	c := peer.FromContext(ctx)
	if c == nil {
		return nil, ErrNoWorkDone
	}
	if !slices.ContainsFunc(c.Protocol().Preempt, func(p peer.Preempter) bool { _, ok := p.(rules); return ok }) {
		return nil, ErrNoWorkDone
	}
	ws := workDonesOf(c)
	ws.mu.Lock()
	ws.next++
	token := json.RawMessage(strconv.AppendQuote(nil, "w"+strconv.FormatUint(ws.next, 10)))
	ws.mu.Unlock()
	if err := c.Call(ctx, WorkDoneCreate, map[string]json.RawMessage{"token": token}, nil); err != nil {
		return nil, err
	}
	w := &WorkDone{p: progress.To(ctx, token), conn: ws}
	w.ctx, w.cancel = context.WithCancel(ctx)
	if cancellable {
		ws.mu.Lock()
		if ws.cancel == nil {
			ws.cancel = map[string]context.CancelFunc{}
		}
		ws.cancel[string(token)] = w.cancel
		ws.mu.Unlock()
	}
	if err := w.p.Report(ctx, workDoneBegin{Kind: "begin", Title: title, Cancellable: cancellable}); err != nil {
		w.stop()
		return nil, err
	}
	return w, nil
}

type workDoneBegin struct {
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Cancellable bool   `json:"cancellable,omitempty"`
}

type workDoneReport struct {
	Kind       string `json:"kind"`
	Message    string `json:"message,omitempty"`
	Percentage *int   `json:"percentage,omitempty"`
}

// Context is the work's: it ends when the client cancels it.
func (w *WorkDone) Context() context.Context { return w.ctx }

// Token is the token the client created.
func (w *WorkDone) Token() json.RawMessage { return w.p.Token() }

// Report reports progress: {"kind": "report", "message": message,
// "percentage": percentage}, each left out when empty or negative.
func (w *WorkDone) Report(message string, percentage int) error {
	r := workDoneReport{Kind: "report", Message: message}
	if percentage >= 0 {
		r.Percentage = &percentage
	}
	return w.p.Report(w.ctx, r)
}

// End reports the end of the work ({"kind": "end", "message": message},
// message left out when empty) and ends its Context.
func (w *WorkDone) End(message string) error {
	defer w.stop()
	return w.p.Report(context.WithoutCancel(w.ctx), workDoneReport{Kind: "end", Message: message})
}

// stop forgets the token and ends the Context.
func (w *WorkDone) stop() {
	w.conn.mu.Lock()
	delete(w.conn.cancel, string(w.p.Token()))
	w.conn.mu.Unlock()
	w.cancel()
}
