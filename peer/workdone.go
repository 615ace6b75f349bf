package peer

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// ErrNoWorkDone is BeginWorkDone's error when the call did not come over a
// Conn whose Protocol lets a server create progress (Protocol.WorkDoneCreate).
var ErrNoWorkDone = errors.New("jsonrpc: the connection's protocol has no server-initiated progress")

// A WorkDone is progress that the server begins itself, as LSP's
// server-initiated work-done progress: a token the client created on the
// server's request, on which the server reports the begin, reports and the
// end of some work, and which the client may cancel.
type WorkDone struct {
	p      *Progress
	ctx    context.Context
	cancel context.CancelFunc
}

// BeginWorkDone asks the client of the call of ctx for a progress token
// (Protocol.WorkDoneCreate, LSP's "window/workDoneProgress/create"),
// waiting for its answer, and reports the beginning of the work on it:
// {"kind": "begin", "title": title, "cancellable": cancellable}. The
// method must be registered jsonrpc.Blocking, since it waits for its
// peer. The WorkDone's Context ends with ctx, with End, and when the
// client cancels the work (Protocol.WorkDoneCancel) if cancellable.
func BeginWorkDone(ctx context.Context, title string, cancellable bool) (*WorkDone, error) {
	c := FromContext(ctx)
	if c == nil || c.proto.WorkDoneCreate == "" || c.proto.ProgressMethod == "" {
		return nil, ErrNoWorkDone
	}
	token := json.RawMessage(strconv.AppendQuote(nil, "w"+strconv.FormatUint(c.nextID.Add(1), 10)))
	if err := c.Call(ctx, c.proto.WorkDoneCreate, map[string]json.RawMessage{c.proto.ProgressToken: token}, nil); err != nil {
		return nil, err
	}
	w := &WorkDone{p: &Progress{c: c, token: token}}
	w.ctx, w.cancel = context.WithCancel(ctx)
	if cancellable {
		c.mu.Lock()
		if c.workDone == nil {
			c.workDone = map[string]context.CancelFunc{}
		}
		c.workDone[string(token)] = w.cancel
		c.mu.Unlock()
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
func (w *WorkDone) Token() json.RawMessage { return w.p.token }

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
	c := w.p.c
	c.mu.Lock()
	delete(c.workDone, string(w.p.token))
	c.mu.Unlock()
	w.cancel()
}

// cancelWorkDone handles the client's cancel of a WorkDone's token.
func (c *Conn) cancelWorkDone(params []byte) {
	tok := wire.Member(params, c.proto.ProgressToken)
	if tok == nil {
		return
	}
	c.mu.Lock()
	cancel := c.workDone[idKey(tok)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
