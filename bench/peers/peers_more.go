package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"

	gorpc "github.com/gorilla/rpc/v2"
	"github.com/gorilla/rpc/v2/json2"
	lsp "go.lsp.dev/jsonrpc2"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/valyala/fasthttp"
)

// An httpPeer is a peer's http.Handler (or fasthttp handler) with the
// requests to send it and the responses it must give.
type httpPeer struct {
	handler    http.Handler
	fast       fasthttp.RequestHandler // served with fasthttp instead, when set
	reqs, want []string
	close      func() // nil: nothing to release
}

func jsonrpcHTTP() (*httpPeer, error) {
	return &httpPeer{handler: &httprpc.Handler{Server: demo.NewServer()}, reqs: demo.Requests, want: mixWant}, nil
}

func jsonrpcFastHTTP() (*httpPeer, error) {
	h := &fasthttprpc.Handler{Server: demo.NewServer()}
	return &httpPeer{fast: h.ServeFastHTTP, reqs: demo.Requests, want: mixWant}, nil
}

// floorFastHTTP answers as floorHandler does, on fasthttp.
func floorFastHTTP() (*httpPeer, error) {
	fast := func(ctx *fasthttp.RequestCtx) {
		bp := floorBufs.Get().(*[]byte)
		*bp = floorAnswer((*bp)[:0], ctx.PostBody())
		ctx.SetContentType("application/json")
		ctx.SetBody(*bp) // a copy
		floorBufs.Put(bp)
	}
	return &httpPeer{fast: fast, reqs: demo.Requests, want: floorWant()}, nil
}

// ---- gorilla/rpc/v2 json2 ----

// GorillaCalc is the calculator as a gorilla/rpc service: methods of the
// form func(*http.Request, *Args, *Reply) error, params as objects.
type GorillaCalc struct{}

// Num is a one-operand argument.
type Num struct{ X float64 }

// NullableNum is a one-operand nullable argument.
type NullableNum struct{ X *float64 }

// Str is a string argument.
type Str struct{ S string }

func (GorillaCalc) Add(_ *http.Request, p *Pair, r *float64) error    { *r = p.A + p.B; return nil }
func (GorillaCalc) AddInt(_ *http.Request, p *IntPair, r *int) error  { *r = p.A + p.B; return nil }
func (GorillaCalc) Test2(_ *http.Request, p *Num, r *float64) error   { *r = p.X; return nil }
func (GorillaCalc) StringMe(_ *http.Request, p *Str, r *string) error { *r = p.S; return nil }
func (GorillaCalc) NullableFloatToNullableFloat(_ *http.Request, p *NullableNum, r **float64) error {
	*r = p.X
	return nil
}

var gorillaRequests = []string{
	`{"jsonrpc":"2.0","method":"Calculator.Add","params":{"A":1.5,"B":2.25},"id":1}`,
	`{"jsonrpc":"2.0","method":"Calculator.AddInt","params":{"A":3,"B":4},"id":2}`,
	`{"jsonrpc":"2.0","method":"Calculator.NullableFloatToNullableFloat","params":{"X":2.5},"id":3}`,
	`{"jsonrpc":"2.0","method":"Calculator.Test2","params":{"X":3.75},"id":4}`,
	`{"jsonrpc":"2.0","method":"Calculator.StringMe","params":{"S":"hello world"},"id":5}`,
}

func gorillaHTTP() (*httpPeer, error) {
	s := gorpc.NewServer()
	s.RegisterCodec(json2.NewCodec(), "application/json")
	if err := s.RegisterService(GorillaCalc{}, "Calculator"); err != nil {
		return nil, err
	}
	return &httpPeer{handler: s, reqs: gorillaRequests, want: mixWant}, nil
}

// ---- bare net/http floor ----

var floorBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// floorHandler reads the body, finds the id with bytes.Index and writes a
// fixed response with that id.
func floorHandler(w http.ResponseWriter, r *http.Request) {
	bp := floorBufs.Get().(*[]byte)
	defer floorBufs.Put(bp)
	buf := (*bp)[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	n := len(buf)
	buf = floorAnswer(buf, buf[:n])
	*bp = buf
	resp := buf[n:]
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(resp)))
	w.Write(resp)
}

func floorHTTP() (*httpPeer, error) {
	return &httpPeer{handler: http.HandlerFunc(floorHandler), reqs: demo.Requests, want: floorWant()}, nil
}

// ---- ethereum/go-ethereum/rpc ----

// GethCalc is the calculator as a go-ethereum rpc service, registered under
// namespace "calc": methods calc_add, calc_addInt, ... (geth lowers the
// first letter).
type GethCalc struct{}

func (GethCalc) Add(a, b float64) float64                         { return a + b }
func (GethCalc) AddInt(a, b int) int                              { return a + b }
func (GethCalc) NullableFloatToNullableFloat(a *float64) *float64 { return a }
func (GethCalc) Test2(x float64) float64                          { return x }
func (GethCalc) StringMe(s string) string                         { return s }

var gethRequests = []string{
	`{"jsonrpc":"2.0","method":"calc_add","params":[1.5,2.25],"id":1}`,
	`{"jsonrpc":"2.0","method":"calc_addInt","params":[3,4],"id":2}`,
	`{"jsonrpc":"2.0","method":"calc_nullableFloatToNullableFloat","params":[2.5],"id":3}`,
	`{"jsonrpc":"2.0","method":"calc_test2","params":[3.75],"id":4}`,
	`{"jsonrpc":"2.0","method":"calc_stringMe","params":["hello world"],"id":5}`,
}

func gethServer() (*gethrpc.Server, error) {
	s := gethrpc.NewServer()
	if err := s.RegisterName("calc", GethCalc{}); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func gethTCP() (*tcpServer, error) {
	s, err := gethServer()
	if err != nil {
		return nil, err
	}
	t, err := listen(func(ln net.Listener) { s.ServeListener(ln) }, s.Stop)
	if err != nil {
		s.Stop()
		return nil, err
	}
	t.reqs, t.want = gethRequests, mixWant
	return t, nil
}

func gethHTTP() (*httpPeer, error) {
	s, err := gethServer()
	if err != nil {
		return nil, err
	}
	return &httpPeer{handler: s, reqs: gethRequests, want: mixWant, close: s.Stop}, nil
}

func gethInproc() (*inprocTarget, error) {
	s, err := gethServer()
	if err != nil {
		return nil, err
	}
	cl := gethrpc.DialInProc(s)
	methods := make([]string, len(gethRequests))
	params := make([][]any, len(gethRequests))
	for i, r := range gethRequests {
		m, raw, err := splitRequest(r)
		if err != nil {
			return nil, err
		}
		methods[i] = m
		var ps []any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&ps); err != nil {
			return nil, err
		}
		params[i] = ps
	}
	results, err := wantResults()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	var callErr error
	var res any
	return &inprocTarget{
		call: func(i int) {
			j := i % len(methods)
			if err := cl.CallContext(ctx, &res, methods[j], params[j]...); err != nil && callErr == nil {
				callErr = err
			}
		},
		check: func() error {
			if callErr != nil {
				return callErr
			}
			for i := range methods {
				var got json.RawMessage
				if err := cl.CallContext(ctx, &got, methods[i], params[i]...); err != nil {
					return fmt.Errorf("%s: %w", methods[i], err)
				}
				if err := sameJSON(got, results[i]); err != nil {
					return fmt.Errorf("%s: result: %w", methods[i], err)
				}
			}
			return nil
		},
		close: func() { cl.Close(); s.Stop() },
	}, nil
}

// ---- go.lsp.dev/jsonrpc2 ----

// lspHandler serves the calculator mix as a go.lsp.dev/jsonrpc2 handler,
// its params decoded by the library's default payload codec.
func lspHandler(ctx context.Context, req *lsp.Request) (any, error) {
	c := lsp.DefaultCodec
	bad := func(err error) (any, error) { return nil, lsp.NewError(lsp.InvalidParams, err.Error()) }
	p := req.Params()
	switch req.Method() {
	case "add":
		var a [2]float64
		if err := c.Unmarshal(p, &a); err != nil {
			return bad(err)
		}
		return a[0] + a[1], nil
	case "addInt":
		var a [2]int
		if err := c.Unmarshal(p, &a); err != nil {
			return bad(err)
		}
		return a[0] + a[1], nil
	case "NullableFloatToNullableFloat":
		var a [1]*float64
		if err := c.Unmarshal(p, &a); err != nil {
			return bad(err)
		}
		return a[0], nil
	case "Test2":
		var a [1]float64
		if err := c.Unmarshal(p, &a); err != nil {
			return bad(err)
		}
		return a[0], nil
	case "StringMe":
		var a [1]string
		if err := c.Unmarshal(p, &a); err != nil {
			return bad(err)
		}
		return a[0], nil
	}
	return lsp.MethodNotFoundHandler(ctx, req)
}

func lspTCP() (*tcpServer, error) {
	var a acceptLoop
	t, err := listen(func(ln net.Listener) {
		a.serve(ln, func(nc net.Conn) {
			conn := lsp.NewConn(lsp.NewNDJSONStream(nc))
			conn.Go(context.Background(), lspHandler)
			<-conn.Done()
		})
	}, a.closeAll)
	if t != nil {
		t.reqs, t.want = demo.Requests, mixWant
	}
	return t, err
}
