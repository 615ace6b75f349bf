package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/rpc"
	rpcjson "net/rpc/jsonrpc"
	"sync"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	"github.com/creachadair/jrpc2/jhttp"
	jrpc2server "github.com/creachadair/jrpc2/server"
	sg "github.com/sourcegraph/jsonrpc2"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// mixWant are the responses of this library to demo.Requests.
var mixWant = []string{
	`{"jsonrpc":"2.0","result":3.75,"id":1}`,
	`{"jsonrpc":"2.0","result":7,"id":2}`,
	`{"jsonrpc":"2.0","result":2.5,"id":3}`,
	`{"jsonrpc":"2.0","result":3.75,"id":4}`,
	`{"jsonrpc":"2.0","result":"hello world","id":5}`,
}

// A peer is one library (or the floor) with its scenarios; a nil scenario
// is skipped with the peer's skip note.
type peer struct {
	name string
	// protocol is the rows' Protocol: "JSON-RPC 2.0", "JSON-RPC 1.0",
	// "gRPC (protobuf)" or "none (floor)".
	protocol string
	tcp      func() (*tcpServer, error)
	tcpNote  string
	tcpSkip  string // why there is no tcp row, when not the default reason
	// tcpOwn, where tcp is nil, is a tcp row that the peer's own client
	// drives (gRPC, which is not newline-terminated JSON).
	tcpOwn   func() (*ownTarget, error)
	inproc   func() (*inprocTarget, error)
	inNote   string
	skipNote string // why there is no inproc row
	// http serves the peer over HTTP/1.1 (the http scenario, at each of
	// httpConns connections); nil: skipped with httpSkip.
	http     func() (*httpPeer, error)
	httpNote string
	httpSkip string
}

// A tcpServer is a peer's server listening on loopback, with the requests
// the generator sends it and the responses it must give.
type tcpServer struct {
	addr  string
	reqs  []string
	want  []string
	frame func([]byte) []byte // nil: JSON line
	stop  func()
}

// An inprocTarget makes one in-process call of request i (mod the mix) per
// call of call; check validates every request's answer once.
type inprocTarget struct {
	call  func(i int)
	check func() error
	close func()
}

// listen starts serve on a loopback listener; stop closes the listener,
// then runs closeConns, then waits for serve to return.
func listen(serve func(net.Listener), closeConns func()) (*tcpServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() { defer close(done); serve(ln) }()
	return &tcpServer{addr: ln.Addr().String(), stop: func() {
		ln.Close()
		if closeConns != nil {
			closeConns()
		}
		<-done
	}}, nil
}

// acceptLoop accepts until ln closes, handing each connection to handle and
// remembering it for closeAll.
type acceptLoop struct {
	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func (a *acceptLoop) serve(ln net.Listener, handle func(net.Conn)) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		a.mu.Lock()
		a.conns = append(a.conns, nc)
		a.mu.Unlock()
		a.wg.Add(1)
		go func() { defer a.wg.Done(); handle(nc) }()
	}
}

func (a *acceptLoop) closeAll() {
	a.mu.Lock()
	for _, c := range a.conns {
		c.Close()
	}
	a.mu.Unlock()
	a.wg.Wait()
}

// peers are the rows, in table order.
// harnessLimits are the limits of this library's in-process servers: the
// defaults, but no idle timeout, since the harness opens a row's
// connections before its interleaved runs and holds them idle while the
// other rows run, longer than the default two minutes on a loaded machine
// (the other libraries' servers have no idle timeout at all).
var harnessLimits = transport.Limits{IdleTimeout: -1}

var peers = []peer{
	{
		name:     "jsonrpc-go",
		protocol: "JSON-RPC 2.0",
		tcp: func() (*tcpServer, error) {
			srv := &stream.Server{Server: demo.NewServer(), Limits: harnessLimits}
			t, err := listen(func(ln net.Listener) { srv.Serve(ln) }, func() { srv.Close() })
			if t != nil {
				t.reqs, t.want = demo.Requests, mixWant
			}
			return t, err
		},
		tcpNote: "stream.Server, Line framing (JSON lines), Inline ordering; JSON-RPC 2.0",
		inproc: func() (*inprocTarget, error) {
			srv := demo.NewServer()
			buf := make([]byte, 0, 512)
			reqs := bytesOf(demo.Requests)
			return &inprocTarget{
				call: func(i int) { buf = srv.Process(context.Background(), buf[:0], reqs[i%len(reqs)]) },
				check: func() error {
					for i, r := range reqs {
						if err := sameJSON(srv.Process(context.Background(), nil, r), mixWant[i]); err != nil {
							return err
						}
					}
					return nil
				},
			}, nil
		},
		inNote:   "(*jsonrpc.Server).Process into a reused buffer, one goroutine",
		http:     jsonrpcHTTP,
		httpNote: "net/http.Server with &httprpc.Handler{Server: demo.NewServer()}; one request per POST",
	},
	{
		name:     "jsonrpc-go (fasthttp)",
		protocol: "JSON-RPC 2.0",
		tcpSkip:  "the same server as jsonrpc-go's tcp row: only the HTTP server differs",
		skipNote: "the same Process as jsonrpc-go's inproc row",
		http:     jsonrpcFastHTTP,
		httpNote: "fasthttp v1.74.0 fasthttp.Server with &fasthttprpc.Handler{Server: demo.NewServer()}; one request per POST",
	},
	{
		name:     "net/rpc/jsonrpc (JSON-RPC 1.0)",
		protocol: "JSON-RPC 1.0",
		tcp:      netRPCServer,
		tcpNote:  `std net/rpc + jsonrpc.NewServerCodec: JSON values back to back (one per line as written); 1.0 requests {"method":"Calculator.Add","params":[{"A":1.5,"B":2.25}],"id":1}, struct/single params; one goroutine per call, responses may reorder`,
		skipNote: "no in-process entry point (net/rpc serves a ServerCodec; a codec over a pipe is a transport, not a direct call)",
		httpSkip: "net/rpc's HTTP transport is a CONNECT hijack into the same stream protocol, not one request per POST",
	},
	{
		name:     "creachadair/jrpc2",
		protocol: "JSON-RPC 2.0",
		tcp:      jrpc2TCP,
		tcpNote:  "jrpc2 v1.3.5 server, channel.Line framing (JSON lines), handler.NewPos functions, default concurrency; same JSON-RPC 2.0 requests",
		inproc:   jrpc2Local,
		inNote:   "server.NewLocal (channel.Direct) + Client.Call with json.RawMessage params; includes the client's request encoding and goroutine hand-offs",
		http:     jrpc2HTTP,
		httpNote: "jrpc2 v1.3.5 jhttp.NewBridge(handler.Map of the same functions, nil) on net/http.Server, one bridge for all the connections: per POST it parses the body, re-issues the call through a jrpc2 client to a server.Local (channel.Direct) with a fresh id, and marshals the response back with the caller's id",
	},
	{
		name:     "sourcegraph/jsonrpc2",
		protocol: "JSON-RPC 2.0",
		tcp:      sourcegraphTCP,
		tcpNote:  "sourcegraph/jsonrpc2 v0.2.3 NewConn over NewBufferedStream(PlainObjectCodec): plain JSON values back to back (newline-terminated by json.Encoder), one write per response; synchronous HandlerWithError decoding params with encoding/json; same JSON-RPC 2.0 requests",
		skipNote: "no in-process entry point (a Conn needs an ObjectStream)",
		httpSkip: "no HTTP transport",
	},
	{
		name:     "go.lsp.dev/jsonrpc2",
		protocol: "JSON-RPC 2.0",
		tcp:      lspTCP,
		tcpNote:  "go.lsp.dev/jsonrpc2 v1.0.1 Conn per connection over NewNDJSONStream (newline-delimited JSON), one Handler switching on the method, params through its DefaultCodec (encoding/json/v2); same JSON-RPC 2.0 requests",
		skipNote: "no in-process entry point (a Conn needs a Stream)",
		httpSkip: "no HTTP transport",
	},
	{
		name:     "gorilla/rpc/v2 json2",
		protocol: "JSON-RPC 2.0",
		http:     gorillaHTTP,
		httpNote: `gorilla/rpc v1.2.0 v2.Server + json2.NewCodec on net/http.Server; service methods func(*http.Request, *Args, *Reply) error, so params are objects: {"jsonrpc":"2.0","method":"Calculator.Add","params":{"A":1.5,"B":2.25},"id":1}, {"X":2.5}, {"S":"hello world"}`,
		skipNote: "no in-process entry point (an http.Handler only)",
	},
	{
		name:     "ethereum/go-ethereum/rpc",
		protocol: "JSON-RPC 2.0",
		tcp:      gethTCP,
		tcpNote:  `go-ethereum v1.17.10 rpc.Server.ServeListener (NewCodec: JSON values back to back, newline after each response); service registered as namespace "calc", so methods are calc_add, calc_addInt, calc_nullableFloatToNullableFloat, calc_test2, calc_stringMe with the same positional params; one goroutine per call, responses may reorder`,
		inproc:   gethInproc,
		inNote:   `rpc.DialInProc + Client.CallContext (namespace "calc", positional params as Go values); includes geth's client: request encoding, an in-memory pipe and the response's decoding`,
		http:     gethHTTP,
		httpNote: `go-ethereum v1.17.10 rpc.Server as http.Handler on net/http.Server; namespace "calc" (calc_add, ...), same positional params`,
	},
	{
		name:     "google.golang.org/grpc",
		protocol: "gRPC (protobuf)",
		tcpOwn:   grpcTCP,
		tcpNote:  grpcNote,
		skipNote: "no in-process entry point: grpc-go has no in-process channel, and an in-memory listener (test/bufconn) is still the HTTP/2 transport",
		httpSkip: "gRPC needs HTTP/2 (streams, trailers); this scenario is HTTP/1.1 with one JSON body per POST",
	},
	{
		name:     "floor (tokenizer)",
		protocol: "none (floor)",
		tcp:      floorTCP,
		tcpNote:  `minimal server: per line bytes.Index for "id", writes {"jsonrpc":"2.0","result":null,"id":<id>}; bounds any processor`,
		inproc: func() (*inprocTarget, error) {
			reqs := bytesOf(demo.Requests)
			buf := make([]byte, 0, 128)
			want := floorWant()
			return &inprocTarget{
				call: func(i int) { buf = floorAnswer(buf[:0], reqs[i%len(reqs)]) },
				check: func() error {
					for i, r := range reqs {
						if err := sameJSON(floorAnswer(nil, r), want[i]); err != nil {
							return err
						}
					}
					return nil
				},
			}, nil
		},
		inNote:   `bytes.Index for "id" and a fixed response with that id, one goroutine`,
		http:     floorHTTP,
		httpNote: `bare net/http handler: reads the body, bytes.Index for "id", writes {"jsonrpc":"2.0","result":null,"id":<id>} with Content-Length; bounds any handler on net/http`,
	},
	{
		name:     "floor (fasthttp)",
		protocol: "none (floor)",
		tcpSkip:  "the tcp floor is floor (tokenizer)'s",
		skipNote: "the inproc floor is floor (tokenizer)'s",
		http:     floorFastHTTP,
		httpNote: `bare fasthttp handler: bytes.Index for "id" in the body fasthttp read, writes {"jsonrpc":"2.0","result":null,"id":<id>}; bounds any handler on fasthttp`,
	},
}

func bytesOf(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// sameJSON compares got with want as JSON values.
func sameJSON(got []byte, want string) error {
	g, err := canonical(got)
	if err != nil {
		return fmt.Errorf("response %q is not JSON: %w", got, err)
	}
	w, err := canonical([]byte(want))
	if err != nil {
		return err
	}
	if g != w {
		return fmt.Errorf("got %s, want %s", got, want)
	}
	return nil
}

// ---- floor ----

var idKey = []byte(`"id":`)

// floorAnswer appends a fixed response carrying req's id bytes.
func floorAnswer(dst, req []byte) []byte {
	i := bytes.Index(req, idKey)
	if i < 0 {
		return append(dst, `{"jsonrpc":"2.0","result":null,"id":null}`...)
	}
	v := req[i+len(idKey):]
	j := bytes.IndexAny(v, ",}")
	if j < 0 {
		j = len(v)
	}
	dst = append(dst, `{"jsonrpc":"2.0","result":null,"id":`...)
	dst = append(dst, v[:j]...)
	return append(dst, '}')
}

func floorWant() []string {
	out := make([]string, len(demo.Requests))
	for i := range out {
		out[i] = fmt.Sprintf(`{"jsonrpc":"2.0","result":null,"id":%d}`, i+1)
	}
	return out
}

func floorTCP() (*tcpServer, error) {
	var a acceptLoop
	t, err := listen(func(ln net.Listener) {
		a.serve(ln, func(nc net.Conn) { serveLines(nc, floorAnswer) })
	}, a.closeAll)
	if t != nil {
		t.reqs, t.want = demo.Requests, floorWant()
	}
	return t, err
}

// serveLines answers each request line read from nc with what answer
// appends for it and a newline, buffered, flushed when no request is
// waiting: how the floors serve a connection.
func serveLines(nc net.Conn, answer func(dst, line []byte) []byte) {
	br := bufio.NewReaderSize(nc, 64<<10)
	bw := bufio.NewWriterSize(nc, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			bw.Flush()
			return
		}
		bw.Write(append(answer(bw.AvailableBuffer(), line), '\n'))
		if br.Buffered() == 0 && bw.Flush() != nil {
			return
		}
	}
}

// ---- net/rpc/jsonrpc ----

// Calculator is the calculator as a net/rpc service.
type Calculator struct{}

// Pair is a two-operand argument.
type Pair struct{ A, B float64 }

// IntPair is a two-operand integer argument.
type IntPair struct{ A, B int }

func (Calculator) Add(p Pair, r *float64) error      { *r = p.A + p.B; return nil }
func (Calculator) AddInt(p IntPair, r *int) error    { *r = p.A + p.B; return nil }
func (Calculator) Test2(x float64, r *float64) error { *r = x; return nil }
func (Calculator) StringMe(s string, r *string) error {
	*r = s
	return nil
}
func (Calculator) NullableFloatToNullableFloat(a *float64, r **float64) error {
	*r = a
	return nil
}

var netRPCRequests = []string{
	`{"method":"Calculator.Add","params":[{"A":1.5,"B":2.25}],"id":1}`,
	`{"method":"Calculator.AddInt","params":[{"A":3,"B":4}],"id":2}`,
	`{"method":"Calculator.NullableFloatToNullableFloat","params":[2.5],"id":3}`,
	`{"method":"Calculator.Test2","params":[3.75],"id":4}`,
	`{"method":"Calculator.StringMe","params":["hello world"],"id":5}`,
}

var netRPCWant = []string{
	`{"id":1,"result":3.75,"error":null}`,
	`{"id":2,"result":7,"error":null}`,
	`{"id":3,"result":2.5,"error":null}`,
	`{"id":4,"result":3.75,"error":null}`,
	`{"id":5,"result":"hello world","error":null}`,
}

func netRPCServer() (*tcpServer, error) {
	srv := rpc.NewServer()
	if err := srv.RegisterName("Calculator", Calculator{}); err != nil {
		return nil, err
	}
	var a acceptLoop
	t, err := listen(func(ln net.Listener) {
		a.serve(ln, func(nc net.Conn) { srv.ServeCodec(rpcjson.NewServerCodec(nc)) })
	}, a.closeAll)
	if t != nil {
		t.reqs, t.want = netRPCRequests, netRPCWant
	}
	return t, err
}

// ---- creachadair/jrpc2 ----

func jrpc2Methods() handler.Map {
	return handler.Map{
		"add":                          handler.NewPos(func(_ context.Context, a, b float64) float64 { return a + b }, "a", "b"),
		"addInt":                       handler.NewPos(func(_ context.Context, a, b int) int { return a + b }, "a", "b"),
		"NullableFloatToNullableFloat": handler.NewPos(func(_ context.Context, a *float64) *float64 { return a }, "a"),
		"Test2":                        handler.NewPos(func(_ context.Context, x float64) float64 { return x }, "x"),
		"StringMe":                     handler.NewPos(func(_ context.Context, s string) string { return s }, "s"),
	}
}

func jrpc2TCP() (*tcpServer, error) {
	mux := jrpc2Methods()
	var mu sync.Mutex
	var srvs []*jrpc2.Server
	var a acceptLoop
	t, err := listen(func(ln net.Listener) {
		a.serve(ln, func(nc net.Conn) {
			s := jrpc2.NewServer(mux, nil).Start(channel.Line(nc, nc))
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
		t.reqs, t.want = demo.Requests, mixWant
	}
	return t, err
}

// jrpc2HTTP serves the jrpc2 methods through jhttp.Bridge; each call of it
// starts its own bridge.
func jrpc2HTTP() (*httpPeer, error) {
	b := jhttp.NewBridge(jrpc2Methods(), nil)
	return &httpPeer{handler: b, reqs: demo.Requests, want: mixWant, close: func() { b.Close() }}, nil
}

// splitRequest returns the method and raw params of a demo request.
func splitRequest(req string) (string, json.RawMessage, error) {
	var r struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	err := json.Unmarshal([]byte(req), &r)
	return r.Method, r.Params, err
}

// wantResults are the results of mixWant.
func wantResults() ([]string, error) {
	out := make([]string, len(mixWant))
	for i, w := range mixWant {
		var r struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(w), &r); err != nil {
			return nil, err
		}
		out[i] = string(r.Result)
	}
	return out, nil
}

func jrpc2Local() (*inprocTarget, error) {
	loc := jrpc2server.NewLocal(jrpc2Methods(), nil)
	methods := make([]string, len(demo.Requests))
	params := make([]json.RawMessage, len(demo.Requests))
	for i, r := range demo.Requests {
		var err error
		if methods[i], params[i], err = splitRequest(r); err != nil {
			return nil, err
		}
	}
	results, err := wantResults()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var callErr error
	return &inprocTarget{
		call: func(i int) {
			j := i % len(methods)
			if _, err := loc.Client.Call(ctx, methods[j], params[j]); err != nil && callErr == nil {
				callErr = err
			}
		},
		check: func() error {
			if callErr != nil {
				return callErr
			}
			for i := range methods {
				rsp, err := loc.Client.Call(ctx, methods[i], params[i])
				if err != nil {
					return fmt.Errorf("%s: %w", methods[i], err)
				}
				var got json.RawMessage
				if err := rsp.UnmarshalResult(&got); err != nil {
					return fmt.Errorf("%s: %w", methods[i], err)
				}
				if err := sameJSON(got, results[i]); err != nil {
					return fmt.Errorf("%s: result: %w", methods[i], err)
				}
			}
			return nil
		},
		close: func() { loc.Close() },
	}, nil
}

// ---- sourcegraph/jsonrpc2 ----

func sourcegraphHandler() sg.Handler {
	return sg.HandlerWithError(func(_ context.Context, _ *sg.Conn, req *sg.Request) (any, error) {
		if req.Params == nil {
			return nil, &sg.Error{Code: sg.CodeInvalidParams, Message: "params required"}
		}
		p := []byte(*req.Params)
		bad := func(err error) (any, error) {
			return nil, &sg.Error{Code: sg.CodeInvalidParams, Message: err.Error()}
		}
		switch req.Method {
		case "add":
			var a [2]float64
			if err := json.Unmarshal(p, &a); err != nil {
				return bad(err)
			}
			return a[0] + a[1], nil
		case "addInt":
			var a [2]int
			if err := json.Unmarshal(p, &a); err != nil {
				return bad(err)
			}
			return a[0] + a[1], nil
		case "NullableFloatToNullableFloat":
			var a [1]*float64
			if err := json.Unmarshal(p, &a); err != nil {
				return bad(err)
			}
			return a[0], nil
		case "Test2":
			var a [1]float64
			if err := json.Unmarshal(p, &a); err != nil {
				return bad(err)
			}
			return a[0], nil
		case "StringMe":
			var a [1]string
			if err := json.Unmarshal(p, &a); err != nil {
				return bad(err)
			}
			return a[0], nil
		}
		return nil, &sg.Error{Code: sg.CodeMethodNotFound, Message: "method not found: " + req.Method}
	})
}

func sourcegraphTCP() (*tcpServer, error) {
	h := sourcegraphHandler()
	var a acceptLoop
	t, err := listen(func(ln net.Listener) {
		a.serve(ln, func(nc net.Conn) {
			c := sg.NewConn(context.Background(), sg.NewBufferedStream(nc, sg.PlainObjectCodec{}), h)
			<-c.DisconnectNotify()
		})
	}, a.closeAll)
	if t != nil {
		t.reqs, t.want = demo.Requests, mixWant
	}
	return t, err
}
