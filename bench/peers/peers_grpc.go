package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
	"github.com/jsonrpc-go/jsonrpc/bench/peers/calcpb"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// The gRPC row: what a user would pick instead of JSON-RPC. The same five
// calculator calls as demo.Requests, as unary gRPC calls with the protobuf
// messages of calcpb, driven by grpc-go's own client (the raw-bytes JSON
// client cannot speak HTTP/2), with inflight calls in flight on one
// connection as the other tcp rows keep inflight requests unanswered.

var grpcNote = fmt.Sprintf("grpc-go v1.84.0 server (grpc.NewServer defaults: a goroutine per call) and client (grpc.NewClient, insecure.NewCredentials: plaintext on loopback); "+
	"unary calls with protobuf messages (calcpb: protoc-gen-go v1.36.12, protoc-gen-go-grpc v1.6.2), not JSON, over HTTP/2 on one connection; "+
	"%d goroutines with one call in flight each, cycling the five methods with the params of demo.Requests, every answer checked; "+
	"the time and allocations include grpc-go's client (request encoding, HTTP/2 framing, response decoding), not a raw-bytes client", inflight)

// grpcCalc is the calculator as a gRPC service.
type grpcCalc struct {
	calcpb.UnimplementedCalculatorServer
}

func (grpcCalc) Add(_ context.Context, p *calcpb.Pair) (*calcpb.Double, error) {
	return &calcpb.Double{X: p.A + p.B}, nil
}

func (grpcCalc) AddInt(_ context.Context, p *calcpb.IntPair) (*calcpb.Int, error) {
	return &calcpb.Int{X: p.A + p.B}, nil
}

func (grpcCalc) NullableFloatToNullableFloat(_ context.Context, p *calcpb.NullableDouble) (*calcpb.NullableDouble, error) {
	return &calcpb.NullableDouble{X: p.X}, nil
}

func (grpcCalc) Test2(_ context.Context, p *calcpb.Double) (*calcpb.Double, error) {
	return &calcpb.Double{X: p.X}, nil
}

func (grpcCalc) StringMe(_ context.Context, p *calcpb.Str) (*calcpb.Str, error) {
	return &calcpb.Str{S: p.S}, nil
}

// A grpcCall makes one call and checks its answer.
type grpcCall func(ctx context.Context) error

// grpcMix returns a function that makes the calls of demo.Requests on c,
// with their params as request messages of their own (one set per
// goroutine), each checking its result against mixWant.
func grpcMix(c calcpb.CalculatorClient) (func() []grpcCall, error) {
	results, err := wantResults()
	if err != nil {
		return nil, err
	}
	// makes are per request: make(params, result) returns the call.
	var makes []func() grpcCall
	for i, r := range demo.Requests {
		method, params, err := splitRequest(r)
		if err != nil {
			return nil, err
		}
		res := json.RawMessage(results[i])
		bad := func(got any) error { return fmt.Errorf("%s: got %v, want %s", method, got, res) }
		var mk func() grpcCall
		switch method {
		case "add":
			var a [2]float64
			var w float64
			err = errors.Join(json.Unmarshal(params, &a), json.Unmarshal(res, &w))
			mk = func() grpcCall {
				req := &calcpb.Pair{A: a[0], B: a[1]}
				return func(ctx context.Context) error {
					r, err := c.Add(ctx, req)
					if err == nil && r.GetX() != w {
						err = bad(r.GetX())
					}
					return err
				}
			}
		case "addInt":
			var a [2]int64
			var w int64
			err = errors.Join(json.Unmarshal(params, &a), json.Unmarshal(res, &w))
			mk = func() grpcCall {
				req := &calcpb.IntPair{A: a[0], B: a[1]}
				return func(ctx context.Context) error {
					r, err := c.AddInt(ctx, req)
					if err == nil && r.GetX() != w {
						err = bad(r.GetX())
					}
					return err
				}
			}
		case "NullableFloatToNullableFloat":
			var a [1]*float64
			var w *float64
			err = errors.Join(json.Unmarshal(params, &a), json.Unmarshal(res, &w))
			mk = func() grpcCall {
				req := &calcpb.NullableDouble{X: a[0]}
				return func(ctx context.Context) error {
					r, err := c.NullableFloatToNullableFloat(ctx, req)
					if err != nil {
						return err
					}
					if (r.X == nil) != (w == nil) || r.X != nil && *r.X != *w {
						var got any // nil: absent
						if r.X != nil {
							got = *r.X
						}
						return bad(got)
					}
					return nil
				}
			}
		case "Test2":
			var a [1]float64
			var w float64
			err = errors.Join(json.Unmarshal(params, &a), json.Unmarshal(res, &w))
			mk = func() grpcCall {
				req := &calcpb.Double{X: a[0]}
				return func(ctx context.Context) error {
					r, err := c.Test2(ctx, req)
					if err == nil && r.GetX() != w {
						err = bad(r.GetX())
					}
					return err
				}
			}
		case "StringMe":
			var a [1]string
			var w string
			err = errors.Join(json.Unmarshal(params, &a), json.Unmarshal(res, &w))
			mk = func() grpcCall {
				req := &calcpb.Str{S: a[0]}
				return func(ctx context.Context) error {
					r, err := c.StringMe(ctx, req)
					if err == nil && r.GetS() != w {
						err = bad(r.GetS())
					}
					return err
				}
			}
		default:
			return nil, fmt.Errorf("no gRPC method for %s", r)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r, err)
		}
		makes = append(makes, mk)
	}
	return func() []grpcCall {
		calls := make([]grpcCall, len(makes))
		for i, mk := range makes {
			calls[i] = mk()
		}
		return calls
	}, nil
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func grpcTCP() (*ownTarget, error) { return grpcTarget(grpcCalc{}) }

// grpcTarget serves impl with grpc-go on loopback and drives it with one
// grpc.ClientConn.
func grpcTarget(impl calcpb.CalculatorServer) (*ownTarget, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cl := &countingListener{Listener: ln}
	srv := grpc.NewServer()
	calcpb.RegisterCalculatorServer(srv, impl)
	served := make(chan struct{})
	go func() { defer close(served); srv.Serve(cl) }()
	stop := func() { srv.Stop(); <-served }
	cc, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		stop()
		return nil, err
	}
	newCalls, err := grpcMix(calcpb.NewCalculatorClient(cc))
	if err != nil {
		cc.Close()
		stop()
		return nil, err
	}
	check := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		for _, call := range newCalls() {
			if err := call(ctx); err != nil {
				return err
			}
		}
		if n := cl.n.Load(); n != 1 {
			return fmt.Errorf("%d connections, want 1", n)
		}
		return nil
	}
	return &ownTarget{
		check: check,
		run: func(d time.Duration) (measurement, error) {
			// No deadline per call (the JSON rows have none); a watchdog
			// cancels calls that outlive the run.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			watchdog := time.AfterFunc(d+drainTimeout, cancel)
			defer watchdog.Stop()
			ops := make([]int64, inflight)
			errs := make([]error, inflight)
			loads := make([]func(*atomic.Bool), inflight)
			for w := range loads {
				calls := newCalls()
				loads[w] = func(stop *atomic.Bool) {
					for i := w % len(calls); !stop.Load(); i = (i + 1) % len(calls) {
						if err := calls[i](ctx); err != nil {
							errs[w] = err
							return
						}
						ops[w]++
					}
				}
			}
			el, mallocs := loadgen.RunFor(d, loads)
			m := measurement{mallocs: mallocs, elapsed: el}
			failed, first := 0, error(nil)
			for w, n := range ops {
				m.calls += n
				if errs[w] != nil {
					failed++
					first = cmp.Or(first, errs[w])
				}
			}
			if failed > 0 {
				return m, fmt.Errorf("%d of %d goroutines failed, the first with: %w", failed, inflight, first)
			}
			return m, check()
		},
		close: func() { cc.Close(); stop() },
	}, nil
}
