package enumerator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// seqServer has count, a sequence of n numbers that reports on ended when
// its producer returns (whether the consumer took all, aborted or went),
// and the error its context had then.
func seqServer(ended chan error) *jsonrpc.Server {
	srv := jsonrpc.NewServer()
	srv.MustRegister("count", func(ctx context.Context, n int) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			defer func() { ended <- ctx.Err() }()
			for i := range n {
				if ctx.Err() != nil {
					return
				}
				if !yield(i, nil) {
					return
				}
			}
		}
	})
	srv.MustRegister("fails", func(ctx context.Context) iter.Seq2[string, error] {
		return func(yield func(string, error) bool) {
			for i := range 100 {
				if !yield(fmt.Sprint(i), nil) {
					return
				}
			}
			yield("", jsonrpc.NewError(1234, "broke"))
		}
	})
	return srv
}

func numbers(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		if i > from {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

// TestSeqEnumerator: the wire of a sequence result over a connection,
// StreamJsonRpc's enumerator protocol. A sequence that fits in the first
// answer is its values alone; a longer one is the first 64 values and a
// token, whose values the consumer pulls ($/enumerator/next, with the
// token by name or by position, its method name escaped or not), the last
// answer finished; a pull of a finished or unknown token is answered
// -32001; an abort ends a sequence early, and its producer; an error the
// sequence yields answers the pull after the one that carries the items
// before it.
func TestSeqEnumerator(t *testing.T) {
	leaktest.Check(t)
	ended := make(chan error, 8)
	r := peertest.NewRaw(t, &stream.Server{Server: seqServer(ended)})
	endedWith := func(want error) {
		t.Helper()
		select {
		case err := <-ended:
			if err != want {
				t.Errorf("the producer ended with its context's error %v, want %v", err, want)
			}
		case <-time.After(peertest.Wait):
			t.Fatal("the producer did not end")
		}
	}
	exchange := func(req, want string) {
		t.Helper()
		r.Send(req)
		if got := r.Recv(); got != want {
			t.Errorf("%s\n got %s\nwant %s", req, got, want)
		}
	}

	exchange(`{"jsonrpc":"2.0","method":"count","params":[3],"id":1}`, `{"jsonrpc":"2.0","result":{"values":[0,1,2]},"id":1}`)
	endedWith(nil)

	exchange(`{"jsonrpc":"2.0","method":"count","params":[100],"id":2}`, `{"jsonrpc":"2.0","result":{"values":[`+numbers(0, 64)+`],"token":1},"id":2}`)
	exchange(`{"jsonrpc":"2.0","method":"$\/enumerator\/next","params":{"token":1},"id":3}`, `{"jsonrpc":"2.0","result":{"values":[`+numbers(64, 100)+`],"finished":true},"id":3}`)
	endedWith(nil)
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":[1],"id":4}`, `{"jsonrpc":"2.0","error":{"code":-32001,"message":"No such sequence","data":"no open sequence result has the token 1"},"id":4}`)
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":"x"},"id":5}`, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"the params of $/enumerator/next and $/enumerator/abort are {\"token\": t} or [t], t a token of a sequence result"},"id":5}`)

	exchange(`{"jsonrpc":"2.0","method":"count","params":[1000000],"id":6}`, `{"jsonrpc":"2.0","result":{"values":[`+numbers(0, 64)+`],"token":2},"id":6}`)
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":2},"id":7}`, `{"jsonrpc":"2.0","result":{"values":[`+numbers(64, 128)+`],"finished":false},"id":7}`)
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/abort","params":{"token":2},"id":8}`, `{"jsonrpc":"2.0","result":null,"id":8}`)
	endedWith(context.Canceled)
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":2},"id":9}`, `{"jsonrpc":"2.0","error":{"code":-32001,"message":"No such sequence","data":"no open sequence result has the token 2"},"id":9}`)

	exchange(`{"jsonrpc":"2.0","method":"fails","id":10}`, `{"jsonrpc":"2.0","result":{"values":[`+quoted(0, 64)+`],"token":3},"id":10}`)
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":3},"id":11}`, `{"jsonrpc":"2.0","result":{"values":[`+quoted(64, 100)+`],"finished":false},"id":11}`)
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":3},"id":111}`, `{"jsonrpc":"2.0","error":{"code":1234,"message":"broke"},"id":111}`)
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":3},"id":12}`, `{"jsonrpc":"2.0","error":{"code":-32001,"message":"No such sequence","data":"no open sequence result has the token 3"},"id":12}`)

	// Abort as a notification, then a sequence left open when the
	// connection ends.
	exchange(`{"jsonrpc":"2.0","method":"count","params":[1000],"id":13}`, `{"jsonrpc":"2.0","result":{"values":[`+numbers(0, 64)+`],"token":4},"id":13}`)
	r.Send(`{"jsonrpc":"2.0","method":"$/enumerator/abort","params":[4]}`)
	endedWith(context.Canceled)
	exchange(`{"jsonrpc":"2.0","method":"count","params":[1000],"id":14}`, `{"jsonrpc":"2.0","result":{"values":[`+numbers(0, 64)+`],"token":5},"id":14}`)
	r.Send(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":[4],"id":15}`)
	if got := r.Recv(); !strings.Contains(got, `"code":-32001`) {
		t.Errorf("a pull after the abort notification: %s", got)
	}
}

// quoted is numbers from to to as JSON strings.
func quoted(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		if i > from {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", fmt.Sprint(i))
	}
	return b.String()
}

// TestSeqEndsWithConn: a sequence still open when its connection ends is
// ended, its producer's context cancelled.
func TestSeqEndsWithConn(t *testing.T) {
	leaktest.Check(t)
	ended := make(chan error, 1)
	s := &stream.Server{Server: seqServer(ended)}
	nc := peertest.ServePipe(t, s)
	c := client.New(client.Stream(nc, s.Framing))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), peertest.Wait)
	defer cancel()
	for v, err := range client.CallSeq[int](ctx, c, "count", []int{1000}) {
		if err != nil {
			t.Fatal(err)
		}
		if v == 10 {
			nc.Close() // the connection ends with the loop inside the first answer's items
			break
		}
	}
	select {
	case err := <-ended:
		if err != context.Canceled {
			t.Errorf("the producer's context: %v, want cancelled", err)
		}
	case <-time.After(peertest.Wait):
		t.Fatal("the producer did not end with the connection")
	}
}

// TestCallSeq: client.CallSeq pulls a long sequence through to its end,
// stops one early with an abort that ends its producer, and returns the
// error a sequence yields; over plain HTTP (Process) it reads the array.
func TestCallSeq(t *testing.T) {
	leaktest.Check(t)
	ended := make(chan error, 4)
	s := &stream.Server{Server: seqServer(ended)}
	c := peertest.DialPipe(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), peertest.Wait)
	defer cancel()
	for _, opts := range [][]client.SeqOption{nil, {client.ReadAhead()}} {
		n := 0
		for v, err := range client.CallSeq[int](ctx, c, "count", []int{1000}, opts...) {
			if err != nil || v != n {
				t.Fatalf("item %d: %d, %v", n, v, err)
			}
			n++
		}
		if n != 1000 {
			t.Fatalf("%d items, want 1000", n)
		}
		<-ended
		n = 0
		for _, err := range client.CallSeq[int](ctx, c, "count", []int{1 << 30}, opts...) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 200 {
				break
			}
		}
		select {
		case err := <-ended:
			if err != context.Canceled {
				t.Errorf("the producer after the loop stopped: %v, want cancelled", err)
			}
		case <-time.After(peertest.Wait):
			t.Fatal("the producer did not end when the loop stopped")
		}
	}
	var last error
	n := 0
	for _, err := range client.CallSeq[string](ctx, c, "fails", nil) {
		if err != nil {
			last = err
			break
		}
		n++
	}
	if n != 100 || !strings.Contains(fmt.Sprint(last), "broke") {
		t.Errorf("fails: %d items then %v, want 100 then broke", n, last)
	}

	local := client.New(client.Local(seqServer(make(chan error, 1))))
	defer local.Close()
	n = 0
	for v, err := range client.CallSeq[int](ctx, local, "count", []int{5}) {
		if err != nil || v != n {
			t.Fatalf("local item %d: %d, %v", n, v, err)
		}
		n++
	}
	if n != 5 {
		t.Errorf("local: %d items, want 5", n)
	}
}

// TestSeqPartialResults: under LSP, a call whose params carry a
// partialResultToken gets the items of its sequence as partial results,
// a $/progress {token, value} whose value is a batch's array, then the
// empty answer; a call without the token gets the enumerator's answer.
func TestSeqPartialResults(t *testing.T) {
	leaktest.Check(t)
	ended := make(chan error, 4)
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("workspace/symbol", func(ctx context.Context, p struct {
		Query string `json:"query"`
	}) iter.Seq[string] {
		return func(yield func(string) bool) {
			defer func() { ended <- ctx.Err() }()
			for i := range 100 {
				if !yield(fmt.Sprint(p.Query, i)) {
					return
				}
			}
		}
	})
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: lsp.Protocol(), Limits: transport.Limits{MaxSeqItems: 40}})
	r.Send(`{"jsonrpc":"2.0","method":"workspace/symbol","params":{"query":"s","partialResultToken":"p1"},"id":1}`)
	var names []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("%q", fmt.Sprint("s", i)))
	}
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"p1","value":[` + strings.Join(names[:40], ",") + `]}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"p1","value":[` + strings.Join(names[40:80], ",") + `]}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"p1","value":[` + strings.Join(names[80:], ",") + `]}}`,
		`{"jsonrpc":"2.0","result":[],"id":1}`,
	} {
		if got := r.Recv(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	<-ended
	r.Send(`{"jsonrpc":"2.0","method":"workspace/symbol","params":{"query":"s"},"id":2}`)
	if got, want := r.Recv(), `{"jsonrpc":"2.0","result":{"values":[`+strings.Join(names[:40], ",")+`],"token":1},"id":2}`; got != want {
		t.Errorf("without a partialResultToken:\n got %s\nwant %s", got, want)
	}
}

// TestSeqProducerHeld: the producer runs only for the items a consumer
// pulls: after the first answer it has yielded the first answer's items,
// and after each pull one answer's more, however many it could produce.
func TestSeqProducerHeld(t *testing.T) {
	leaktest.Check(t)
	var mu sync.Mutex
	produced := 0
	srv := jsonrpc.NewServer()
	srv.MustRegister("many", func(ctx context.Context) iter.Seq[int] {
		return func(yield func(int) bool) {
			for i := range 1_000_000 {
				mu.Lock()
				produced++
				mu.Unlock()
				if !yield(i) {
					return
				}
			}
		}
	})
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Limits: transport.Limits{MaxSeqItems: 10}})
	check := func(want int) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if produced != want {
			t.Errorf("the producer yielded %d items, want %d", produced, want)
		}
	}
	r.Send(`{"jsonrpc":"2.0","method":"many","id":1}`)
	r.Recv()
	check(10)
	for i := range 3 {
		r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":[1],"id":%d}`, i+2))
		r.Recv()
		check(20 + 10*i)
	}
}

// TestCallSeqPartialResults: under LSP, client.CallSeq sends a
// partialResultToken and reads the items from the partial results; a loop
// that stops early cancels the call, and its producer ends; params that
// are not an object get the enumerator.
func TestCallSeqPartialResults(t *testing.T) {
	leaktest.Check(t)
	ended := make(chan error, 4)
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("count", func(ctx context.Context, p struct {
		N     int             `json:"n"`
		Token json.RawMessage `json:"partialResultToken"`
	}) iter.Seq2[int, error] {
		return func(yield func(int, error) bool) {
			defer func() { ended <- ctx.Err() }()
			if p.Token == nil {
				yield(0, errors.New("no partialResultToken"))
				return
			}
			for i := range p.N {
				if ctx.Err() != nil || !yield(i, nil) {
					return
				}
			}
		}
	})
	srv.MustRegister("positional", func(ctx context.Context, n int) iter.Seq[int] {
		return func(yield func(int) bool) {
			for i := range n {
				if !yield(i) {
					return
				}
			}
		}
	})
	s := &stream.Server{Server: srv, Protocol: lsp.Protocol(), Limits: transport.Limits{MaxSeqItems: 7}}
	c := peertest.DialPipe(t, s, client.UseProtocol(lsp.Protocol()))
	ctx, cancel := context.WithTimeout(context.Background(), peertest.Wait)
	defer cancel()
	n := 0
	for v, err := range client.CallSeq[int](ctx, c, "count", map[string]int{"n": 100}) {
		if err != nil || v != n {
			t.Fatalf("item %d: %d, %v", n, v, err)
		}
		n++
	}
	if n != 100 {
		t.Fatalf("%d items, want 100", n)
	}
	if err := <-ended; err != nil {
		t.Fatalf("the producer ended with %v", err)
	}
	n = 0
	for _, err := range client.CallSeq[int](ctx, c, "count", map[string]int{"n": 1 << 30}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 50 {
			break
		}
	}
	select {
	case err := <-ended:
		if err != context.Canceled {
			t.Errorf("the producer after the loop stopped: %v, want cancelled", err)
		}
	case <-time.After(peertest.Wait):
		t.Fatal("the producer did not end when the loop stopped")
	}
	n = 0
	for v, err := range client.CallSeq[int](ctx, c, "positional", []int{20}) {
		if err != nil || v != n {
			t.Fatalf("positional item %d: %d, %v", n, v, err)
		}
		n++
	}
	if n != 20 {
		t.Errorf("positional: %d items, want 20", n)
	}
}

// TestSeqPullInBatch: a pull and an abort inside a batch are answered in
// the batch's answer, as StreamJsonRpc serves them, as methods of the
// connection (its local RPC methods): the pull with the next items, an
// abort notification by ending its sequence; and a pull that reaches the
// server before the connection's first sequence is answered as an
// unknown token. Before, each was answered -32601 (method not found)
// and the abort was lost.
func TestSeqPullInBatch(t *testing.T) {
	leaktest.Check(t)
	ended := make(chan error, 8)
	r := peertest.NewRaw(t, &stream.Server{Server: seqServer(ended), Limits: transport.Limits{MaxSeqItems: 10}})
	exchange := func(req, want string) {
		t.Helper()
		r.Send(req)
		if got := r.Recv(); got != want {
			t.Errorf("%s\n got %s\nwant %s", req, got, want)
		}
	}
	exchange(`[{"jsonrpc":"2.0","method":"$/enumerator/next","params":[1],"id":1}]`,
		`[{"jsonrpc":"2.0","error":{"code":-32001,"message":"No such sequence","data":"no open sequence result has the token 1"},"id":1}]`)
	exchange(`{"jsonrpc":"2.0","method":"count","params":[15],"id":2}`, `{"jsonrpc":"2.0","result":{"values":[`+numbers(0, 10)+`],"token":1},"id":2}`)
	exchange(`{"jsonrpc":"2.0","method":"count","params":[1000],"id":3}`, `{"jsonrpc":"2.0","result":{"values":[`+numbers(0, 10)+`],"token":2},"id":3}`)
	exchange(`[{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":1},"id":4},{"jsonrpc":"2.0","method":"$/enumerator/abort","params":[2]}]`,
		`[{"jsonrpc":"2.0","result":{"values":[`+numbers(10, 15)+`],"finished":true},"id":4}]`)
	for range 2 {
		select {
		case <-ended:
		case <-time.After(peertest.Wait):
			t.Fatal("a sequence did not end")
		}
	}
	exchange(`[{"jsonrpc":"2.0","method":"$/enumerator/next","params":[2],"id":5},{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":"x"},"id":6}]`,
		`[{"jsonrpc":"2.0","error":{"code":-32001,"message":"No such sequence","data":"no open sequence result has the token 2"},"id":5},{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"the params of $/enumerator/next and $/enumerator/abort are {\"token\": t} or [t], t a token of a sequence result"},"id":6}]`)
}
