// Package progress reports the progress of calls to their callers, and
// sends the items of sequence results as partial results, under the
// protocols that have them: LSP's "$/progress" (which StreamJsonRpc's
// IProgress<T> speaks too) and MCP's "notifications/progress".
//
// A protocol's profile puts its Rules among its preempters
// (peer.Protocol.Preempt), as lsp.Protocol and mcp.Protocol do. A method
// then reports progress to its caller with Of (or To, for a token passed
// as a param of its own):
//
//	srv.MustRegister("index", func(ctx context.Context, dir string) (int, error) {
//		p := progress.Of(ctx) // nil when the caller asked for none
//		for i, f := range files {
//			p.Report(ctx, mcp.Progress{Progress: float64(i), Total: float64(len(files))})
//			...
//		}
//	}, jsonrpc.Blocking())
//
// and a caller asks for progress with Watch, which gives the token to send.
package progress

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// Rules name a protocol's progress notification and where a call carries
// the token on which its caller asks for progress. They are the
// Preempter that hands a progress notification for a token of the Conn's
// own (Watch) to its watcher, as soon as it is read; one for another
// token goes to the Server like any notification.
type Rules struct {
	// Method is the progress notification, such as "$/progress".
	Method string
	// Token is the member of its params that holds the token the caller
	// sent with its call, such as "token".
	Token string
	// Value is the member of its params that holds the value reported,
	// such as "value"; "" means the members of the value are the params'
	// own, beside the token (MCP's progress, total and message).
	Value string
	// TokenPath is where a call's params carry the progress token: the
	// member names from the params object down, such as ["workDoneToken"]
	// or ["_meta", "progressToken"].
	TokenPath []string
	// PartialResultPath is where a call's params carry the token on which
	// the caller asks for the items of a sequence result as partial
	// results (LSP's ["partialResultToken"]): each batch of items is sent
	// as a progress notification whose value is the batch's array, and
	// the answer is then an empty array (see package
	// protocol/enumerator). nil: no partial results.
	PartialResultPath []string
}

// Preempt hands a progress notification for a token of c's own (Watch)
// to its watcher.
func (r *Rules) Preempt(c *peer.Conn, m *peer.Message) bool {
	if !m.Notification() || !m.Is(r.Method) {
		return false
	}
	token := wire.Member(m.Params(), r.Token)
	if token == nil {
		return false
	}
	w := watchersOf(c)
	w.mu.Lock()
	f := w.by[tokenKey(token)]
	w.mu.Unlock()
	if f == nil {
		return false
	}
	f(append(json.RawMessage(nil), m.Params()...))
	return true
}

// rulesOf returns the progress Rules of c's Protocol, or nil.
func rulesOf(c *peer.Conn) *Rules {
	if c == nil {
		return nil
	}
	for _, p := range c.Protocol().Preempt {
		if r, ok := p.(*Rules); ok {
			return r
		}
	}
	return nil
}

// watchers are the progress callbacks of a Conn's calls (Watch), by
// token.
type watchers struct {
	mu   sync.Mutex
	by   map[string]func(json.RawMessage)
	next uint64
}

type watchersKey struct{}

func watchersOf(c *peer.Conn) *watchers {
	return c.Local(watchersKey{}, func() any { return &watchers{by: map[string]func(json.RawMessage){}} }).(*watchers)
}

// tokenKey is the key of a token: as sent, but a string with escapes in
// its shortest form, so that "p\u0031" is the token "p1".
func tokenKey(token []byte) string {
	if len(token) > 0 && token[0] == '"' && bytes.IndexByte(token, '\\') >= 0 {
		if s, ok := wire.Unquote(token, false); ok {
			return string(wire.AppendQuote(nil, s))
		}
	}
	return string(token)
}

// Watch registers f for the progress the peer of c reports with a new
// token, and returns the token, to be sent with a call where the Protocol's
// Rules say (TokenPath: LSP's "workDoneToken", MCP's
// "_meta.progressToken"), and the function that ends the registration, to
// be called once the call has returned. f gets the params of each progress
// notification with that token as sent; it runs on the goroutine that
// reads the connection, so it must not block, and it may not call the peer
// and wait. It returns a nil token, and a stop that does nothing, when
// c's Protocol has no progress Rules.
func Watch(c *peer.Conn, f func(params json.RawMessage)) (token json.RawMessage, stop func()) {
	if rulesOf(c) == nil {
		return nil, func() {}
	}
	w := watchersOf(c)
	w.mu.Lock()
	w.next++
	token = json.RawMessage(strconv.AppendQuote(nil, "p"+strconv.FormatUint(w.next, 10)))
	key := string(token)
	w.by[key] = f
	w.mu.Unlock()
	return token, func() {
		w.mu.Lock()
		delete(w.by, key)
		w.mu.Unlock()
	}
}

// A Reporter reports the progress of a call to its caller: see Of. A nil
// *Reporter reports nothing.
type Reporter struct {
	c     *peer.Conn
	rules *Rules
	token json.RawMessage
}

// MaxToken is the longest progress token, as sent, that a call may carry:
// every report echoes the token, so a longer one would let a caller turn
// a small request into much output. LSP and MCP tokens are short strings
// or numbers.
const MaxToken = 256

// Of returns the Reporter of the call that ctx belongs to: on the Conn it
// came over, with the progress token its caller sent where the Conn's
// Rules say (TokenPath). It returns nil when there is none: the call did
// not come over a Conn, its Protocol has no progress Rules, or the caller
// asked for none, or sent a token that is not a string or a number, or
// is longer than MaxToken.
func Of(ctx context.Context) *Reporter {
	return at(ctx, func(r *Rules) []string { return r.TokenPath })
}

// PartialOf returns the Reporter on which the call of ctx asks for the
// items of its sequence result as partial results (Rules.PartialResultPath,
// as in LSP), or nil, as Of does. Each report's value is then a JSON array
// of items.
func PartialOf(ctx context.Context) *Reporter {
	return at(ctx, func(r *Rules) []string { return r.PartialResultPath })
}

func at(ctx context.Context, path func(*Rules) []string) *Reporter {
	c := peer.FromContext(ctx)
	r := rulesOf(c)
	call := jsonrpc.CallOf(ctx)
	if r == nil || call == nil || len(path(r)) == 0 {
		return nil
	}
	v := []byte(call.Params())
	for _, name := range path(r) {
		if v = wire.Member(v, name); v == nil {
			return nil
		}
	}
	return reporter(c, r, v)
}

// To returns a Reporter that reports, on the Conn the call of ctx came
// over, with the given token: for a protocol whose calls carry their
// token in a param of the method's choosing, at any position, as
// StreamJsonRpc (.NET) sends an IProgress<T> argument. The method takes
// the param as a json.RawMessage:
//
//	srv.MustRegister("search", func(ctx context.Context, query string, token json.RawMessage) ([]string, error) {
//		p := progress.To(ctx, token)
//		p.Report(ctx, map[string]int{"found": 1})
//		...
//	}, jsonrpc.Blocking())
//
// LSP's Protocol names StreamJsonRpc's notifications too ("$/progress"
// with {"token", "value"}, "$/cancelRequest" with {"id"}). It returns nil
// as Of does: no Conn, no progress Rules, or a token that is null, not a
// string or a number, or longer than MaxToken.
func To(ctx context.Context, token json.RawMessage) *Reporter {
	c := peer.FromContext(ctx)
	r := rulesOf(c)
	if r == nil {
		return nil
	}
	return reporter(c, r, token)
}

// reporter returns the Reporter of token on c, or nil when the token is
// not one a caller may send.
func reporter(c *peer.Conn, r *Rules, v []byte) *Reporter {
	if len(v) == 0 || len(v) > MaxToken || v[0] != '"' && v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return nil // null, true, an object or an array; or too long
	}
	return &Reporter{c: c, rules: r, token: append(json.RawMessage(nil), v...)}
}

// Token returns the caller's progress token, as sent.
func (p *Reporter) Token() json.RawMessage {
	if p == nil {
		return nil
	}
	return p.token
}

// Report sends the caller a progress notification with value: under LSP,
// {"token": token, "value": value}; under MCP, value's own members beside
// "progressToken" (value must then encode as an object, such as
// mcp.Progress). A nil *Reporter reports nothing and returns nil.
func (p *Reporter) Report(ctx context.Context, value any) error {
	if p == nil {
		return nil
	}
	v, err := json.Marshal(value)
	if err != nil {
		return err
	}
	v = wire.UnescapeHTML(v)
	params := make(map[string]json.RawMessage, 4)
	if p.rules.Value != "" {
		params[p.rules.Value] = v
	} else if err := json.Unmarshal(v, &params); err != nil {
		return err
	}
	params[p.rules.Token] = p.token
	return p.c.Notify(context.WithoutCancel(ctx), p.rules.Method, params)
}

// PartialResults prepares a call on c of a method whose result is a
// sequence to have its items sent as partial results, when c's Protocol
// has them (Rules.PartialResultPath, as in LSP): it registers f for the
// value of each progress notification on a new token (Watch), and returns
// params encoded with the token put at the path, and the function that
// ends the registration, to be called once the call has returned. Each
// value is a batch of items, a JSON array. ok is false, and nothing is
// registered, when the Protocol has no partial results, when params does
// not encode as a JSON object, or when it has the member already.
func PartialResults(c *peer.Conn, params any, f func(value json.RawMessage)) (withToken json.RawMessage, stop func(), ok bool) {
	r := rulesOf(c)
	if r == nil || len(r.PartialResultPath) != 1 {
		return nil, nil, false
	}
	name := r.PartialResultPath[0]
	p, err := json.Marshal(params)
	if err != nil || wire.KindOf(p) != wire.Object || wire.Member(p, name) != nil {
		return nil, nil, false
	}
	value := r.Value
	token, stop := Watch(c, func(params json.RawMessage) {
		if value != "" {
			params = wire.Member(params, value)
		}
		f(params)
	})
	out := append(make(json.RawMessage, 0, len(p)+len(name)+len(token)+4), '{')
	out = wire.AppendQuote(out, name)
	out = append(append(out, ':'), token...)
	if rest := p[1:]; len(bytes.TrimSpace(rest)) > 1 { // not }
		out = append(out, ',')
		out = append(out, rest...)
	} else {
		out = append(out, '}')
	}
	return out, stop, true
}
