package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// OnProgress registers f for the progress the peer reports with a new
// token, and returns the token, to be sent with a call where the Protocol
// says (Protocol.TokenPath: LSP's "workDoneToken", MCP's
// "_meta.progressToken"), and a function that ends the registration, to
// be called once the call has returned. f gets the params of each progress
// notification with that token as sent; it runs on the goroutine that
// reads the connection, so it must not block, and it may not call the peer
// and wait.
func (c *Conn) OnProgress(f func(params json.RawMessage)) (token json.RawMessage, stop func()) {
	id := c.nextID.Add(1)
	token = json.RawMessage(strconv.AppendQuote(nil, "p"+strconv.FormatUint(id, 10)))
	key := string(token)
	c.mu.Lock()
	if c.progress == nil {
		c.progress = map[string]func(json.RawMessage){}
	}
	c.progress[key] = f
	c.mu.Unlock()
	return token, func() {
		c.mu.Lock()
		delete(c.progress, key)
		c.mu.Unlock()
	}
}

// progressed hands a progress notification to the callback of its token,
// and reports whether there was one; one for no token of ours goes to the
// Server like any notification.
func (c *Conn) progressed(params []byte) bool {
	s := wire.Member(params, c.proto.ProgressToken)
	if s == nil {
		return false
	}
	c.mu.Lock()
	f := c.progress[idKey(s)]
	c.mu.Unlock()
	if f == nil {
		return false
	}
	f(append(json.RawMessage(nil), params...))
	return true
}

// A Progress reports the progress of a call to its caller: see
// ProgressOf.
type Progress struct {
	c     *Conn
	token json.RawMessage
}

// MaxProgressToken is the longest progress token, as sent, that a call
// may carry: every report echoes the token, so a longer one would let a
// caller turn a small request into much output. LSP and MCP tokens are
// short strings or numbers.
const MaxProgressToken = 256

// ProgressOf returns the Progress of the call that ctx belongs to: the
// Conn it came over and the progress token its caller sent where the
// Conn's Protocol says (Protocol.TokenPath). It returns nil when there is
// none: the call did not come over a Conn, its Protocol has no progress,
// or the caller asked for none, or sent a token that is not a string or
// a number, or is longer than MaxProgressToken. A nil *Progress reports
// nothing.
func ProgressOf(ctx context.Context) *Progress {
	c := FromContext(ctx)
	call := jsonrpc.CallOf(ctx)
	if c == nil || call == nil || c.proto.ProgressMethod == "" || len(c.proto.TokenPath) == 0 {
		return nil
	}
	v := []byte(call.Params())
	for _, name := range c.proto.TokenPath {
		if v = wire.Member(v, name); v == nil {
			return nil
		}
	}
	return progressTo(c, v)
}

// ProgressTo returns a Progress that reports, on the Conn the call of ctx
// came over, with the given token: for a protocol whose calls carry their
// token in a param of the method's choosing, at any position, as
// StreamJsonRpc (.NET) sends an IProgress<T> argument. The method takes
// the param as a json.RawMessage:
//
//	srv.MustRegister("search", func(ctx context.Context, query string, progress json.RawMessage) ([]string, error) {
//		p := peer.ProgressTo(ctx, progress)
//		p.Report(ctx, map[string]int{"found": 1})
//		...
//	}, jsonrpc.Blocking())
//
// LSP's Protocol names StreamJsonRpc's notifications too ("$/progress"
// with {"token", "value"}, "$/cancelRequest" with {"id"}). It returns nil
// as ProgressOf does: no Conn, no progress in the Protocol, or a token
// that is null, not a string or a number, or longer than MaxProgressToken.
func ProgressTo(ctx context.Context, token json.RawMessage) *Progress {
	c := FromContext(ctx)
	if c == nil || c.proto.ProgressMethod == "" {
		return nil
	}
	return progressTo(c, token)
}

// progressTo returns the Progress of token on c, or nil when the token is
// not one a caller may send.
func progressTo(c *Conn, v []byte) *Progress {
	if len(v) == 0 || len(v) > MaxProgressToken || v[0] != '"' && v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return nil // null, true, an object or an array; or too long
	}
	return &Progress{c: c, token: append(json.RawMessage(nil), v...)}
}

// Token returns the caller's progress token, as sent.
func (p *Progress) Token() json.RawMessage {
	if p == nil {
		return nil
	}
	return p.token
}

// Report sends the caller a progress notification with value: under LSP,
// {"token": token, "value": value}; under MCP, value's own members beside
// "progressToken" (value must then encode as an object, such as
// mcp.Progress). A nil *Progress reports nothing and returns nil.
func (p *Progress) Report(ctx context.Context, value any) error {
	if p == nil {
		return nil
	}
	proto := p.c.proto
	v, err := json.Marshal(value)
	if err != nil {
		return err
	}
	v = wire.UnescapeHTML(v)
	params := make(map[string]json.RawMessage, 4)
	if proto.ProgressValue != "" {
		params[proto.ProgressValue] = v
	} else if err := json.Unmarshal(v, &params); err != nil {
		return err
	}
	params[proto.ProgressToken] = p.token
	return p.c.Notify(context.WithoutCancel(ctx), proto.ProgressMethod, params)
}

// PartialResults prepares a call of a method whose result is a sequence
// to have its items sent as partial results, when the Conn's Protocol has
// them (Protocol.PartialResultPath, as in LSP): it registers f for the
// value of each progress notification on a new token, and returns params
// encoded with the token put at the path, and the function that ends the
// registration, to be called once the call has returned. Each value is
// a batch of items, a JSON array; f runs on the goroutine that reads the
// connection, as OnProgress's does. ok is false, and nothing is
// registered, when the Protocol has no partial results, when params does
// not encode as a JSON object, or when it has the member already.
func (c *Conn) PartialResults(params any, f func(value json.RawMessage)) (withToken json.RawMessage, stop func(), ok bool) {
	path := c.proto.PartialResultPath
	if len(path) != 1 || c.proto.ProgressMethod == "" {
		return nil, nil, false
	}
	p, err := json.Marshal(params)
	if err != nil || wire.KindOf(p) != wire.Object || wire.Member(p, path[0]) != nil {
		return nil, nil, false
	}
	value := c.proto.ProgressValue
	token, stop := c.OnProgress(func(params json.RawMessage) {
		if value != "" {
			params = wire.Member(params, value)
		}
		f(params)
	})
	out := append(make(json.RawMessage, 0, len(p)+len(path[0])+len(token)+4), '{')
	out = wire.AppendQuote(out, path[0])
	out = append(append(out, ':'), token...)
	if rest := p[1:]; len(bytes.TrimSpace(rest)) > 1 { // not }
		out = append(out, ',')
		out = append(out, rest...)
	} else {
		out = append(out, '}')
	}
	return out, stop, true
}
