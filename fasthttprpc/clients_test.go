package fasthttprpc_test

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// names is a transport.Handler that records the client each request's
// context names (transport.WithClient), the name by which the Server
// shares its goroutines and request copies between clients, and answers
// with the demo server.
type names struct {
	srv  transport.Handler
	mu   sync.Mutex // protects the field below
	seen []string
}

func (n *names) clients() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.seen
}

func (n *names) ProcessAsync(ctx context.Context, dst, req []byte, reply func([]byte)) {
	client, _ := ctx.Value(keys.Client{}).(string)
	n.mu.Lock()
	n.seen = append(n.seen, client)
	n.mu.Unlock()
	n.srv.ProcessAsync(ctx, dst, req, reply)
}

// TestClientOfRequest: the handler names the client of each request by the
// IP address of the connection it came on (every port one client; none for
// an address that is not TCP), or by ClientKey, so that the Server's shares
// per client (jsonrpc.Limits.MaxRunningPerClient, MaxHeldPerClient) tell
// clients apart. Before, every request was of no client, and one client's
// Blocking calls could take every goroutine and every byte of MaxHeld
// (bench/soak's fasthttp-bodies).
func TestClientOfRequest(t *testing.T) {
	unix := &net.UnixAddr{Name: "/run/x.sock", Net: "unix"}
	header := func(ctx *fasthttp.RequestCtx) string { return string(ctx.Request.Header.Peek("X-Client")) }
	for _, tc := range []struct {
		name   string
		key    func(*fasthttp.RequestCtx) string
		from   []net.Addr
		header []string
		want   []string
	}{
		{"remote IP", nil,
			[]net.Addr{
				&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40001},
				&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1).To4(), Port: 40002},
				&net.TCPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 40001},
				&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 40001},
				unix,
				&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40003},
			},
			nil,
			[]string{"127.0.0.1", "127.0.0.1", "127.0.0.2", "2001:db8::1", "", "127.0.0.1"}},
		{"ClientKey", header,
			[]net.Addr{
				&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40001},
				&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40002},
				&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40003},
			},
			[]string{"203.0.113.7", "198.51.100.1", ""},
			[]string{"203.0.113.7", "198.51.100.1", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &names{srv: demo.NewServer()}
			h := &fasthttprpc.Handler{Server: n, ClientKey: tc.key}
			for i, from := range tc.from {
				var req fasthttp.Request
				req.Header.SetMethod(fasthttp.MethodPost)
				req.Header.SetContentType("application/json")
				if tc.header != nil && tc.header[i] != "" {
					req.Header.Set("X-Client", tc.header[i])
				}
				req.SetBodyString(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
				var ctx fasthttp.RequestCtx
				ctx.Init(&req, from, nil)
				h.ServeFastHTTP(&ctx)
				if got := string(ctx.Response.Body()); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
					t.Fatalf("request %d: answer %s", i, got)
				}
			}
			if got := n.clients(); !slices.Equal(got, tc.want) {
				t.Errorf("the clients named: %q, want %q", got, tc.want)
			}
		})
	}
}

// Over a connection, the client is the IP address the connection came
// from.
func TestClientOfConnection(t *testing.T) {
	n := &names{srv: demo.NewServer()}
	s := fasthttprpc.NewServer(n)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	defer s.Shutdown()
	var req fasthttp.Request
	var resp fasthttp.Response
	req.SetRequestURI("http://" + l.Addr().String() + "/")
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	req.SetBodyString(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	if err := fasthttp.Do(&req, &resp); err != nil {
		t.Fatal(err)
	}
	if got := string(resp.Body()); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Fatalf("answer %s", got)
	}
	if got := n.clients(); !slices.Equal(got, []string{"127.0.0.1"}) {
		t.Errorf("the clients named: %q, want [127.0.0.1]", got)
	}
}
