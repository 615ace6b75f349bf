package progress_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

var framings = []struct {
	name string
	f    framing.Framing
}{{"line", framing.Line}, {"header", framing.Header}, {"raw", framing.Raw}}

var dial = peertest.DialPipe

const wait = peertest.Wait

// TestEscapedProgress: a progress notification with an escaped method and
// token reaches the caller's callback.
func TestEscapedProgress(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("work", func(ctx context.Context, _ struct {
		WorkDoneToken json.RawMessage `json:"workDoneToken"`
	}) (int, error) {
		c := peer.FromContext(ctx)
		tok := progress.Of(ctx).Token()
		// The token as an encoder that escapes every letter writes it.
		esc := ""
		for _, r := range string(tok[1 : len(tok)-1]) {
			esc += fmt.Sprintf(`\u%04x`, r)
		}
		return 1, c.Notify(ctx, `$/progress`, map[string]any{"token": json.RawMessage(`"` + esc + `"`), "value": 7})
	}, jsonrpc.Blocking())
	for _, fr := range framings {
		t.Run(fr.name, func(t *testing.T) {
			c := dial(t, &stream.Server{Server: srv, Framing: fr.f, Protocol: lsp.Protocol()}, client.UseProtocol(lsp.Protocol()))
			got := make(chan string, 1)
			tok, stop := progress.Watch(c.Conn(), func(p json.RawMessage) { got <- string(p) })
			defer stop()
			if _, err := c.CallRaw(context.Background(), "work", map[string]any{"workDoneToken": json.RawMessage(tok)}); err != nil {
				t.Fatal(err)
			}
			select {
			case p := <-got:
				if want := `"value":7`; !strings.Contains(p, want) {
					t.Fatalf("progress %s lacks %s", p, want)
				}
			case <-time.After(wait):
				t.Fatal("the progress with an escaped token did not reach the callback")
			}
		})
	}
}

// TestProgress: a method reports progress on the token its caller sent;
// the caller's callback gets each report before the call returns.
func TestProgress(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("work", func(ctx context.Context, p struct {
		Steps int             `json:"steps"`
		Token json.RawMessage `json:"workDoneToken"`
	}) (int, error) {
		pr := progress.Of(ctx)
		if pr == nil {
			return 0, errors.New("no progress token")
		}
		for i := range p.Steps {
			if err := pr.Report(ctx, map[string]any{"kind": "report", "percentage": i}); err != nil {
				return 0, err
			}
		}
		return p.Steps, nil
	}, jsonrpc.Blocking())
	c := dial(t, &stream.Server{Server: srv, Protocol: lsp.Protocol()}, client.UseProtocol(lsp.Protocol()))
	var got []string
	var mu sync.Mutex
	token, stop := progress.Watch(c.Conn(), func(p json.RawMessage) {
		mu.Lock()
		got = append(got, string(p))
		mu.Unlock()
	})
	defer stop()
	n, err := client.Call[int](context.Background(), c, "work", map[string]any{"steps": 3, "workDoneToken": token})
	if err != nil || n != 3 {
		t.Fatalf("work = %d, %v", n, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[2] != `{"token":`+string(token)+`,"value":{"kind":"report","percentage":2}}` {
		t.Fatalf("progress = %q", got)
	}
}

// TestProgressTokenBounded: a token that is not a string or a number, or
// is longer than MaxProgressToken, gets no progress: each report would
// echo it.
func TestProgressTokenBounded(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("has", func(ctx context.Context, _ struct {
		Token json.RawMessage `json:"workDoneToken"`
	}) bool {
		return progress.Of(ctx) != nil
	})
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: lsp.Protocol()})
	for i, tc := range []struct {
		token string
		want  bool
	}{
		{`"abc"`, true},
		{`7`, true},
		{`-1`, true},
		{`"` + strings.Repeat("x", progress.MaxToken-2) + `"`, true},
		{`"` + strings.Repeat("x", progress.MaxToken-1) + `"`, false},
		{`"` + strings.Repeat("x", 1<<20) + `"`, false},
		{`{"a":1}`, false},
		{`[1]`, false},
		{`null`, false},
		{`true`, false},
	} {
		r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"has","params":{"workDoneToken":%s},"id":%d}`, tc.token, i))
		if got, want := r.Recv(), fmt.Sprintf(`{"jsonrpc":"2.0","result":%v,"id":%d}`, tc.want, i); got != want {
			t.Errorf("token of %d bytes: %s, want %s", len(tc.token), got, want)
		}
	}
}

// TestProgressTo: a call whose progress token is a param of the method's
// own, at any position or by name, as StreamJsonRpc sends an IProgress<T>
// argument, reports through ProgressTo with "$/progress" {token, value}
// before its answer; a token that is not one (null, an object) reports
// nothing and the call still runs.
func TestProgressTo(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("first", func(ctx context.Context, token json.RawMessage, n int) int {
		progress.To(ctx, token).Report(ctx, n)
		return n
	})
	srv.MustRegister("last", func(ctx context.Context, a, b int, token json.RawMessage) int {
		p := progress.To(ctx, token)
		p.Report(ctx, a)
		p.Report(ctx, b)
		return a + b
	}, jsonrpc.ParamNames("a", "b", "progress"), jsonrpc.Blocking())
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: lsp.Protocol()})
	for _, c := range []struct {
		req  string
		want []string
	}{
		{`{"jsonrpc":"2.0","method":"first","params":[5,3],"id":1}`, []string{
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":5,"value":3}}`,
			`{"jsonrpc":"2.0","result":3,"id":1}`}},
		{`{"jsonrpc":"2.0","method":"last","params":[1,2,"tok"],"id":2}`, []string{
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"tok","value":1}}`,
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"tok","value":2}}`,
			`{"jsonrpc":"2.0","result":3,"id":2}`}},
		{`{"jsonrpc":"2.0","method":"last","params":{"progress":7,"b":4,"a":3},"id":3}`, []string{
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":7,"value":3}}`,
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":7,"value":4}}`,
			`{"jsonrpc":"2.0","result":7,"id":3}`}},
		{`{"jsonrpc":"2.0","method":"first","params":[null,1],"id":4}`, []string{`{"jsonrpc":"2.0","result":1,"id":4}`}},
		{`{"jsonrpc":"2.0","method":"first","params":[{"a":1},1],"id":5}`, []string{`{"jsonrpc":"2.0","result":1,"id":5}`}},
	} {
		r.Send(c.req)
		for _, want := range c.want {
			if got := r.Recv(); got != want {
				t.Errorf("%s:\n got %s\nwant %s", c.req, got, want)
			}
		}
	}
	if progress.To(context.Background(), json.RawMessage(`1`)) != nil {
		t.Error("ProgressTo outside a Conn's call is not nil")
	}
}
