package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
	lsp "go.lsp.dev/jsonrpc2"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
	"github.com/jsonrpc-go/jsonrpc/bench/internal/realistic"
	"github.com/jsonrpc-go/jsonrpc/codec/fast"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// A realPeer serves the four methods of package realistic over TCP; its
// server's reqs and want hold one request and its response per method, in
// the order of realistic.Methods.
type realPeer struct {
	name, protocol, note string
	tcp                  func() (*tcpServer, error)
}

// realPeers are the rows of -workload real, in table order.
var realPeers = []realPeer{
	{"jsonrpc-go", "JSON-RPC 2.0", "stream.Server, Line framing; the methods registered with Register (realistic.Register), encoding/json",
		func() (*tcpServer, error) { return jsonrpcRealTCP(realistic.NewServer) }},
	{"jsonrpc-go (Typed)", "JSON-RPC 2.0", "stream.Server, Line framing; the methods registered as typed methods (realistic.RegisterTyped), encoding/json",
		func() (*tcpServer, error) { return jsonrpcRealTCP(realistic.NewTypedServer) }},
	{"jsonrpc-go (Typed, codec/fast)", "JSON-RPC 2.0", "stream.Server, Line framing; typed methods, jsonrpc.UseCodec(fast.Codec{})",
		func() (*tcpServer, error) {
			return jsonrpcRealTCP(func(opts ...jsonrpc.Option) (*jsonrpc.Server, error) {
				return realistic.NewTypedServer(append(opts, jsonrpc.UseCodec(fast.Codec{}))...)
			})
		}},
	{"creachadair/jrpc2", "JSON-RPC 2.0", "jrpc2.Server per connection over channel.Line, Concurrency 1; handler.New for createUser, handler.NewPos for the others", jrpc2RealTCP},
	{"ethereum/go-ethereum/rpc", "JSON-RPC 2.0", "rpc.Server.ServeListener, newline-delimited JSON; a service named real, createUser's user as the only element of a params array", gethRealTCP},
	{"go.lsp.dev/jsonrpc2", "JSON-RPC 2.0", "a Conn per connection over NewNDJSONStream (newline-delimited JSON), one Handler switching on the method, params and results through its DefaultCodec (encoding/json/v2)", lspRealTCP},
	{realFloor, "none (floor)", "finds each request's method and id and writes that method's response, made in advance, with the id: no JSON-RPC; what any server costs at least over this connection with this load generator", floorRealTCP},
}

// realFloor is the name of the floor row of -workload real.
const realFloor = "floor (answers made in advance)"

// realRequests and realWant are the requests of realistic.Methods and their
// responses; rename, when not nil, gives a method its name on the peer, and
// whole sends named params as the only element of an array.
func realRequests(rename func(string) string, whole bool) (reqs, want []string) {
	for _, m := range realistic.Methods {
		req := m.Request
		if rename != nil {
			req = strings.Replace(req, `"method":"`+m.Name+`"`, `"method":"`+rename(m.Name)+`"`, 1)
		}
		if whole && strings.HasPrefix(m.Params, "{") {
			req = strings.Replace(req, `"params":`+m.Params, `"params":[`+m.Params+`]`, 1)
		}
		reqs = append(reqs, req)
		want = append(want, m.Response)
	}
	return reqs, want
}

func jsonrpcRealTCP(newServer func(...jsonrpc.Option) (*jsonrpc.Server, error)) (*tcpServer, error) {
	s, err := newServer()
	if err != nil {
		return nil, err
	}
	srv := &stream.Server{Server: s, Limits: harnessLimits}
	t, err := listen(func(ln net.Listener) { srv.Serve(ln) }, func() { srv.Close() })
	if t != nil {
		t.reqs, t.want = realRequests(nil, false)
	}
	return t, err
}

func jrpc2RealTCP() (*tcpServer, error) {
	mux := handler.Map{
		"createUser": handler.New(realistic.CreateUser),
		"search": handler.NewPos(func(_ context.Context, query string, limit int) ([]realistic.Item, error) {
			return realistic.Search(query, limit)
		}, "query", "limit"),
		"getBlock": handler.NewPos(func(_ context.Context, number uint64, full bool) (map[string]any, error) {
			return realistic.GetBlock(number, full)
		}, "number", "full"),
		"echoRaw": handler.NewPos(func(_ context.Context, v json.RawMessage) json.RawMessage { return realistic.EchoRaw(v) }, "v"),
	}
	var mu sync.Mutex
	var srvs []*jrpc2.Server
	var a acceptLoop
	t, err := listen(func(ln net.Listener) {
		a.serve(ln, func(nc net.Conn) {
			// One handler at a time: with more, jrpc2 answers out of
			// order and a request can wait until the load generator's
			// ids come round again, which jrpc2 refuses as a duplicate.
			s := jrpc2.NewServer(mux, &jrpc2.ServerOptions{Concurrency: 1}).Start(channel.Line(nc, nc))
			mu.Lock()
			srvs = append(srvs, s)
			mu.Unlock()
			s.Wait()
		})
	}, func() {
		mu.Lock()
		for _, s := range srvs {
			s.Stop()
		}
		mu.Unlock()
		a.closeAll()
	})
	if t != nil {
		t.reqs, t.want = realRequests(nil, false)
	}
	return t, err
}

// GethReal is the realistic service as go-ethereum registers it.
type GethReal struct{}

func (GethReal) CreateUser(ctx context.Context, u realistic.User) (realistic.User, error) {
	return realistic.CreateUser(ctx, u)
}
func (GethReal) Search(query string, limit int) ([]realistic.Item, error) {
	return realistic.Search(query, limit)
}
func (GethReal) GetBlock(number uint64, full bool) (map[string]any, error) {
	return realistic.GetBlock(number, full)
}
func (GethReal) EchoRaw(v json.RawMessage) json.RawMessage { return realistic.EchoRaw(v) }

func gethRealTCP() (*tcpServer, error) {
	s := gethrpc.NewServer()
	if err := s.RegisterName("real", GethReal{}); err != nil {
		s.Stop()
		return nil, err
	}
	t, err := listen(func(ln net.Listener) { s.ServeListener(ln) }, s.Stop)
	if err != nil {
		s.Stop()
		return nil, err
	}
	t.reqs, t.want = realRequests(func(m string) string { return "real_" + m }, true)
	return t, nil
}

// setupReal builds and validates the rows of -workload real: each peer's
// server, and one connection per method, on which the load generator sends
// that method's request alone. The scenario of a row is its method.
func setupReal() ([]*target, []Skip, error) {
	var ts []*target
	var stops []func()
	fail := func(err error) ([]*target, []Skip, error) {
		for _, t := range ts {
			t.close()
		}
		for _, stop := range stops {
			stop()
		}
		return nil, nil, err
	}
	for _, p := range realPeers {
		srv, err := p.tcp()
		if err != nil {
			return fail(fmt.Errorf("%s: %w", p.name, err))
		}
		stops = append(stops, srv.stop)
		if len(srv.reqs) != len(realistic.Methods) {
			return fail(fmt.Errorf("%s: %d requests for %d methods", p.name, len(srv.reqs), len(realistic.Methods)))
		}
		for i, m := range realistic.Methods {
			c, err := dialClient(srv.addr, srv.reqs[i:i+1], srv.want[i:i+1], srv.frame)
			if err != nil {
				return fail(fmt.Errorf("%s %s: %w", p.name, m.Name, err))
			}
			if err := c.check(); err != nil {
				c.close()
				return fail(fmt.Errorf("%s %s: first window: %w", p.name, m.Name, err))
			}
			ts = append(ts, &target{scenario: m.Name, peer: p.name, protocol: p.protocol, note: p.note, run: c.run, close: c.close})
		}
	}
	// Table order: by method, then peer.
	var byMethod []*target
	for _, m := range realistic.Methods {
		for _, t := range ts {
			if t.scenario == m.Name {
				byMethod = append(byMethod, t)
			}
		}
	}
	if len(byMethod) != len(ts) {
		return fail(errors.New("rows lost in sorting"))
	}
	// The servers stop after the last connection, which is closed last.
	last := byMethod[len(byMethod)-1]
	closeLast := last.close
	last.close = func() {
		closeLast()
		for _, stop := range stops {
			stop()
		}
	}
	return byMethod, nil, nil
}

// printReal prints the table of -workload real: each method's rows, and
// this library's ratio over each peer.
func printReal(w io.Writer, rep *Report, runs int) {
	floors := map[string]float64{}
	for _, r := range rep.Rows {
		if r.Peer == realFloor {
			floors[r.Scenario] = r.MedianRPS
		}
	}
	fmt.Fprintf(w, "realistic methods (package realistic: createUser, search, getBlock, echoRaw), one method per connection\n")
	fmt.Fprintf(w, "%s %s/%s, %s, %d cores, GOMAXPROCS %d; median of %d runs of %s each, interleaved\n",
		rep.Go, rep.GOOS, rep.GOARCH, rep.CPU, rep.Cores, rep.GOMAXPROCS, runs, rep.Duration)
	fmt.Fprintf(w, "one loopback TCP connection per row, windows of %d requests per write, at most %d unanswered, same raw-bytes client for every row\n\n", window, inflight)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tpeer\treq/s\tmin–max\tns/call\tcpu ns/call\tallocs/call\tjsonrpc-go over it\tthe floor over it\t")
	for _, r := range rep.Rows {
		over, floor := "—", "—"
		if r.Peer != reference && r.RatioToRef > 0 {
			over = fmt.Sprintf("%.1f×", 1/r.RatioToRef)
		}
		if f := floors[r.Scenario]; r.Peer != realFloor && f > 0 && r.MedianRPS > 0 {
			floor = fmt.Sprintf("%.1f×", f/r.MedianRPS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s–%s\t%.0f\t%.0f\t%.2f\t%s\t%s\t\n", r.Scenario, r.Peer, loadgen.FormatRate(r.MedianRPS),
			loadgen.FormatRate(r.MinRPS), loadgen.FormatRate(r.MaxRPS), r.NsPerCall, r.CPUNsPerCall, r.AllocsPerCall, over, floor)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nconditions per peer:")
	seen := map[string]bool{}
	for _, r := range rep.Rows {
		if !seen[r.Peer] {
			seen[r.Peer] = true
			fmt.Fprintf(w, "  %s [%s]: %s\n", r.Peer, r.Protocol, strings.TrimSuffix(r.Note, "; allocs are process-wide (server and client) Mallocs delta / calls"))
		}
	}
	fmt.Fprintln(w, "allocs/call: runtime.MemStats.Mallocs delta over the run / calls, process-wide (server and load generator)")
	fmt.Fprintln(w, "cpu ns/call: the process's CPU time (user and system, server and load generator) over the row's runs / calls; over ns/call, the cores it kept busy")
	fmt.Fprintln(w, "the floor over it: the floor row's rate over the row's, the most that any server could be over the row here")
}

// floorRealTCP is the floor of -workload real: for each request line, the
// response of its method, made in advance, with the request's id, written as
// the other rows' servers write theirs (buffered, flushed when no request
// is waiting).
func floorRealTCP() (*tcpServer, error) {
	reqs, want := realRequests(nil, false)
	names := make([][]byte, len(realistic.Methods))
	heads := make([][]byte, len(realistic.Methods))
	for i, m := range realistic.Methods {
		names[i] = []byte(`"method":"` + m.Name + `"`)
		heads[i] = []byte(`{"jsonrpc":"2.0","result":` + m.Result + `,"id":`)
	}
	answer := func(dst, req []byte) []byte {
		for i, name := range names {
			if bytes.Contains(req, name) {
				dst = append(dst, heads[i]...)
				break
			}
		}
		// The id is the last member of these requests.
		v := req[bytes.LastIndex(req, idKey)+len(idKey):]
		return append(append(dst, v[:bytes.IndexByte(v, '}')]...), '}')
	}
	var a acceptLoop
	t, err := listen(func(ln net.Listener) {
		a.serve(ln, func(nc net.Conn) { serveLines(nc, answer) })
	}, a.closeAll)
	if t != nil {
		t.reqs, t.want = reqs, want
	}
	return t, err
}

// lspRealHandler serves the realistic methods as a go.lsp.dev/jsonrpc2
// handler: its params decoded, and its results encoded, by the library's
// default payload codec (encoding/json/v2).
func lspRealHandler(ctx context.Context, req *lsp.Request) (any, error) {
	c := lsp.DefaultCodec
	switch req.Method() {
	case "createUser":
		var u realistic.User
		if err := c.Unmarshal(req.Params(), &u); err != nil {
			return nil, lsp.NewError(lsp.InvalidParams, err.Error())
		}
		return realistic.CreateUser(ctx, u)
	case "search":
		var (
			args  []json.RawMessage
			query string
			limit int
		)
		if err := errors.Join(c.Unmarshal(req.Params(), &args), want(len(args), 2)); err != nil {
			return nil, lsp.NewError(lsp.InvalidParams, err.Error())
		}
		if err := errors.Join(c.Unmarshal(args[0], &query), c.Unmarshal(args[1], &limit)); err != nil {
			return nil, lsp.NewError(lsp.InvalidParams, err.Error())
		}
		return realistic.Search(query, limit)
	case "getBlock":
		var (
			args   []json.RawMessage
			number uint64
			full   bool
		)
		if err := errors.Join(c.Unmarshal(req.Params(), &args), want(len(args), 2)); err != nil {
			return nil, lsp.NewError(lsp.InvalidParams, err.Error())
		}
		if err := errors.Join(c.Unmarshal(args[0], &number), c.Unmarshal(args[1], &full)); err != nil {
			return nil, lsp.NewError(lsp.InvalidParams, err.Error())
		}
		return realistic.GetBlock(number, full)
	case "echoRaw":
		var args []json.RawMessage
		if err := errors.Join(c.Unmarshal(req.Params(), &args), want(len(args), 1)); err != nil {
			return nil, lsp.NewError(lsp.InvalidParams, err.Error())
		}
		return lsp.RawMessage(args[0]), nil
	}
	return lsp.MethodNotFoundHandler(ctx, req)
}

// want is the error of a params array of n elements where it needs k.
func want(n, k int) error {
	if n != k {
		return fmt.Errorf("%d params, want %d", n, k)
	}
	return nil
}

func lspRealTCP() (*tcpServer, error) {
	var a acceptLoop
	t, err := listen(func(ln net.Listener) {
		a.serve(ln, func(nc net.Conn) {
			conn := lsp.NewConn(lsp.NewNDJSONStream(nc))
			conn.Go(context.Background(), lspRealHandler)
			<-conn.Done()
		})
	}, a.closeAll)
	if t != nil {
		t.reqs, t.want = realRequests(nil, false)
	}
	return t, err
}
