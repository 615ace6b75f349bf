package peertest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/enumerator"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// A Range is a range of error codes, Lo to Hi inclusive (Lo <= Hi), that
// a protocol reserves, and why.
type Range struct {
	Lo, Hi jsonrpc.Code
	Why    string
}

// JSONRPCPredefined is the range the JSON-RPC specification reserves for
// its pre-defined errors, less the one it gives implementations (-32099 to
// -32000).
var JSONRPCPredefined = Range{Lo: -32768, Hi: -32100, Why: "JSON-RPC's pre-defined errors"}

// CheckCodes fails t for each code of codes (with their defaults) that
// falls in one of the reserved ranges, unless own gives it that code: the
// protocol's own code of that meaning (LSP's RequestCancelled for
// Cancelled, say).
func CheckCodes(t *testing.T, codes jsonrpc.Codes, reserved []Range, own map[string]jsonrpc.Code) {
	t.Helper()
	v := reflect.ValueOf(codes.WithDefaults())
	for i := range v.NumField() {
		name, code := v.Type().Field(i).Name, jsonrpc.Code(v.Field(i).Int())
		if own[name] == code {
			continue
		}
		for _, r := range reserved {
			if code >= r.Lo && code <= r.Hi {
				t.Errorf("Codes.%s = %d, in %d to %d: %s", name, code, r.Lo, r.Hi, r.Why)
			}
		}
	}
}

// LibraryCodes serves a Conn under proto and makes the library choose each
// of its codes there (jsonrpc.Codes): a method's plain error, its
// deadline, its cancelled context, an answer over the Server's
// MaxResponse, a pull of an unknown sequence token, a call refused at
// shutdown, a call that requires a Principal made by none and one made by
// a Principal without the scope it requires (on a second Conn, whose
// context carries that Principal) and, when the profile answers those, a
// call its peer cancels. It returns the code each answer carried, by the
// field of jsonrpc.Codes.
func LibraryCodes(t *testing.T, proto peer.Protocol) map[string]jsonrpc.Code {
	t.Helper()
	srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: 1024}))
	srv.MustRegister("plain", func() error { return errors.New("disk full") })
	srv.MustRegister("deadline", func() error { return context.DeadlineExceeded })
	srv.MustRegister("cancelled", func() error { return context.Canceled })
	srv.MustRegister("big", func() string { return strings.Repeat("x", 2048) })
	srv.MustRegister("seq", func() iter.Seq[int] {
		return func(yield func(int) bool) {
			for i := 0; i < 10 && yield(i); i++ {
			}
		}
	})
	started := make(chan struct{}, 1)
	srv.MustRegister("wait", func(ctx context.Context) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}, jsonrpc.Blocking())
	srv.MustRegister("scoped", func() int { return 1 }, jsonrpc.RequireScopes("admin"))

	serve := func(ctx context.Context) (*peer.Conn, *chanConn) {
		pipe := &chanConn{in: make(chan []byte, 16), out: make(chan []byte, 16), closed: make(chan struct{})}
		c := peer.New(enumerator.Enable(ctx), transport.Carrier{Conn: pipe}, peer.Options{Server: srv, Protocol: proto, Limits: transport.Limits{MaxSeqItems: 1}})
		done := make(chan struct{})
		go c.Run(func(error) { close(done) })
		t.Cleanup(func() { pipe.Close(); <-done })
		return c, pipe
	}
	c, pipe := serve(context.Background())
	_, userPipe := serve(jsonrpc.WithPrincipal(context.Background(), &jsonrpc.Principal{Subject: "user"}))

	code := func(req string) jsonrpc.Code {
		return codeOver(t, pipe, req)
	}
	got := map[string]jsonrpc.Code{
		"ServerError":     code(`{"jsonrpc":"2.0","method":"plain","id":1}`),
		"Deadline":        code(`{"jsonrpc":"2.0","method":"deadline","id":2}`),
		"Cancelled":       code(`{"jsonrpc":"2.0","method":"cancelled","id":3}`),
		"Limit":           code(`{"jsonrpc":"2.0","method":"big","id":4}`),
		"Unauthenticated": code(`{"jsonrpc":"2.0","method":"scoped","id":9}`),
		"Forbidden":       codeOver(t, userPipe, `{"jsonrpc":"2.0","method":"scoped","id":10}`),
	}
	pipe.in <- []byte(`{"jsonrpc":"2.0","method":"seq","id":5}`)
	<-pipe.out // the first item and a token: the pulls' preempter is on
	got["UnknownToken"] = code(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":99},"id":6}`)
	if proto.AnswerCancelled && proto.CancelMethod != "" {
		pipe.in <- []byte(`{"jsonrpc":"2.0","method":"wait","id":7}`)
		<-started
		params, _ := json.Marshal(map[string]int{proto.CancelID: 7})
		if got["Cancelled"] != code(`{"jsonrpc":"2.0","method":"`+proto.CancelMethod+`","params":`+string(params)+`}`) {
			t.Errorf("a call its peer cancelled is answered with another code than a cancelled context")
		}
	}
	c.Shutdown()
	got["Shutdown"] = code(`{"jsonrpc":"2.0","method":"plain","id":8}`)
	return got
}

// codeOver sends req over pipe and returns the code of the error it is
// answered with.
func codeOver(t *testing.T, pipe *chanConn, req string) jsonrpc.Code {
	t.Helper()
	pipe.in <- []byte(req)
	select {
	case msg := <-pipe.out:
		var resp struct{ Error *jsonrpc.Error }
		if err := json.Unmarshal(msg, &resp); err != nil || resp.Error == nil {
			t.Fatalf("%s answered %s, want an error", req, msg)
		}
		return resp.Error.Code
	case <-time.After(Wait):
		t.Fatalf("%s: no answer", req)
		return 0
	}
}

// CheckLibraryCodes runs LibraryCodes under p and fails t for each code
// that is not the one p's Codes give (with their defaults).
func CheckLibraryCodes(t *testing.T, p peer.Protocol) {
	t.Helper()
	want := reflect.ValueOf(p.Codes.WithDefaults())
	got := LibraryCodes(t, p)
	for i := range want.NumField() {
		name, code := want.Type().Field(i).Name, jsonrpc.Code(want.Field(i).Int())
		if got[name] != code {
			t.Errorf("%s answered %d, want the profile's %d", name, got[name], code)
		}
	}
}

// chanConn is a transport.Conn of whole messages over channels: what is
// sent to in is read, what is written goes to out.
type chanConn struct {
	in, out chan []byte
	closed  chan struct{}
	once    sync.Once
}

func (p *chanConn) Read() ([]byte, error) {
	select {
	case m := <-p.in:
		return m, nil
	case <-p.closed:
		return nil, io.EOF
	}
}

func (p *chanConn) Write(_ context.Context, msg []byte) error {
	select {
	case p.out <- append([]byte(nil), msg...):
		return nil
	case <-p.closed:
		return io.ErrClosedPipe
	}
}

func (p *chanConn) Flush() error { return nil }

func (p *chanConn) Close() error { p.once.Do(func() { close(p.closed) }); return nil }
