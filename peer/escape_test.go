package peer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

var framings = []struct {
	name string
	f    framing.Framing
}{{"line", framing.Line}, {"header", framing.Header}, {"raw", framing.Raw}}

// framed is a peer written by hand over any framing: it sends messages and
// reads them one at a time.
type framed struct {
	t  *testing.T
	wr framing.Writer
	rd framing.Reader
}

func newFramed(t *testing.T, s *stream.Server) *framed {
	t.Helper()
	cc := peertest.ServePipe(t, s)
	return &framed{t: t, wr: s.Framing.NewWriter(cc), rd: s.Framing.NewReader(cc, 1<<20)}
}

func (f *framed) send(msg string) {
	f.t.Helper()
	if err := f.wr.Write([]byte(msg)); err != nil {
		f.t.Fatal(err)
	}
	if err := f.wr.Flush(); err != nil {
		f.t.Fatal(err)
	}
}

func (f *framed) recv() string {
	f.t.Helper()
	got := make(chan string, 1)
	go func() {
		msg, err := f.rd.Read()
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(msg)
	}()
	select {
	case m := <-got:
		return m
	case <-time.After(wait):
		f.t.Fatal("no message")
		return ""
	}
}

// TestEscapedCancel: a cancel notification whose method or member names
// are escaped (as editors whose encoders escape "/" send them) cancels as
// the plain one does, over every framing: under LSP the call is answered
// with -32800 at once, under MCP its context ends and it is not answered.
// The request's id may be escaped differently in the cancel, and still
// names it.
func TestEscapedCancel(t *testing.T) {
	leaktest.Check(t)
	for _, fr := range framings {
		for _, tc := range []struct {
			proto  peer.Protocol
			id     string // the request's id
			cancel string
			answer bool
		}{
			{lsp.Protocol(), `1`, `{"jsonrpc":"2.0","method":"$\/cancelRequest","params":{"id":1}}`, true},
			{lsp.Protocol(), `1`, `{"jsonrpc":"2.0","method":"\u0024/cancelRequest","params":{"id":1}}`, true},
			{lsp.Protocol(), `"a/b"`, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"\u0069d":"a\/b"}}`, true},
			{mcp.Protocol(), `1`, `{"jsonrpc":"2.0","method":"notifications\/cancelled","params":{"requestId":1}}`, false},
			{mcp.Protocol(), `"x"`, `{"jsonrpc":"2.0","m\u0065thod":"notifications/cancelled","params":{"requestId":"\u0078"}}`, false},
		} {
			t.Run(fr.name+"/"+tc.cancel, func(t *testing.T) {
				w := newWaitServer()
				p := newFramed(t, &stream.Server{Server: w.Server, Framing: fr.f, Protocol: tc.proto})
				p.send(`{"jsonrpc":"2.0","method":"wait","params":[1],"id":` + tc.id + `}`)
				w.awaitStarted(t, 1)
				p.send(tc.cancel)
				if err := w.awaitEnded(t); !errors.Is(err, context.Canceled) {
					t.Fatalf("wait ended with %v, want context.Canceled", err)
				}
				if tc.answer {
					if got, want := p.recv(), fmt.Sprintf(cancelledAnswer, tc.id); got != want {
						t.Fatalf("got %s, want %s", got, want)
					}
				}
				p.send(`{"jsonrpc":"2.0","method":"count","id":"c"}`)
				if got, want := p.recv(), `{"jsonrpc":"2.0","result":1,"id":"c"}`; got != want {
					t.Fatalf("got %s, want %s (nothing for a call cancelled under MCP)", got, want)
				}
			})
		}
	}
}

// TestEscapedResponseKey: an answer whose member names are escaped is the
// answer ("re\u0073ult" is "result"), over every framing.
func TestEscapedResponseKey(t *testing.T) {
	leaktest.Check(t)
	for _, fr := range framings {
		for _, answer := range []string{
			`{"jsonrpc":"2.0","re\u0073ult":41,"id":%s}`,
			`{"jsonrpc":"2.0","\u0069d":%s,"result":41}`,
			`{"jsonrpc":"2.0","\u0065rror":{"code":-32000,"message":"no"},"id":%s}`,
		} {
			t.Run(fr.name+"/"+answer, func(t *testing.T) {
				cc, sc := net.Pipe()
				defer sc.Close()
				c := client.New(client.Stream(cc, fr.f))
				defer c.Close()
				rd, wr := fr.f.NewReader(sc, 1<<20), fr.f.NewWriter(sc)
				go func() {
					msg, err := rd.Read()
					if err != nil {
						return
					}
					var r struct {
						ID json.RawMessage `json:"id"`
					}
					if json.Unmarshal(msg, &r) == nil {
						wr.Write(fmt.Appendf(nil, answer, r.ID))
						wr.Flush()
					}
				}()
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				defer cancel()
				n, err := client.Call[int](ctx, c, "anything", nil)
				var e *jsonrpc.Error
				switch {
				case errors.As(err, &e):
					if e.Code != -32000 {
						t.Fatalf("error %v", e)
					}
				case err != nil:
					t.Fatalf("the call failed: %v (the answer was not recognised)", err)
				case n != 41:
					t.Fatalf("result %d, want 41", n)
				}
			})
		}
	}
}

// TestTwoWayBatches: a two-way connection hands the server the batch it
// classified, and the answers are the server's own, for batches shorter
// and longer than the scan records, with invalid elements, blocking calls,
// notifications only, and escaped member names.
func TestTwoWayBatches(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b int) int { return a + b })
	srv.MustRegister("slow", func(ctx context.Context, a int) int { return a }, jsonrpc.Blocking())
	srv.MustRegister("note", func(int) {})
	call := func(method string, id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":[%d,1],"id":%d}`, method, id, id)
	}
	var long []string
	for i := range 40 {
		long = append(long, call("add", i+1))
	}
	var mixed []string
	for i := range 20 {
		switch i % 4 {
		case 0:
			mixed = append(mixed, call("add", i+1))
		case 1:
			mixed = append(mixed, fmt.Sprintf(`{"jsonrpc":"2.0","method":"slow","params":[%d],"id":%d}`, i, i+1))
		case 2:
			mixed = append(mixed, `1`, `{"jsonrpc":"2.0","method":"note","params":[1]}`)
		case 3:
			mixed = append(mixed, fmt.Sprintf(`{"jsonrpc":"2.0","m\u0065thod":"add","params":[%d,2],"\u0069d":%d}`, i, i+1))
		}
	}
	batches := []string{
		"[" + call("add", 1) + "]",
		"[" + strings.Join(long, ",") + "]",
		"[" + strings.Join(mixed, ",") + "]",
		`[{"jsonrpc":"2.0","method":"note","params":[1]}]`,
		`[1,2,3]`,
		`[]`,
		`[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},`,
	}
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: lsp.Protocol()}) // two-way from the start
	for _, b := range batches {
		// What the server answers when it scans the batch itself (the
		// Blocking calls' answers after the others).
		answered := make(chan string, 1)
		srv.ProcessAsync(context.Background(), nil, []byte(b), func(resp []byte) { answered <- string(resp) })
		want := <-answered
		r.Send(b)
		if want == "" {
			// No answer: the next call's answer comes first.
			r.Send(call("add", 99))
			if got := r.Recv(); got != `{"jsonrpc":"2.0","result":100,"id":99}` {
				t.Errorf("batch %.40s...: got %s, want no answer", b, got)
			}
			continue
		}
		if got := r.Recv(); got != want {
			t.Errorf("batch %.40s...:\n got %s\nwant %s", b, got, want)
		}
	}
}
