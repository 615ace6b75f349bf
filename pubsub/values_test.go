package pubsub_test

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// tailServer serves tail, a subscription to topic as a sequence result.
func tailServer(topic *pubsub.Topic) *jsonrpc.Server {
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("tail", func(ctx context.Context) iter.Seq2[json.RawMessage, error] {
		return topic.Values(ctx)
	})
	// As LSP's requests take an object, with a partialResultToken.
	srv.MustRegister("lsp/tail", func(ctx context.Context, _ struct{}) iter.Seq2[json.RawMessage, error] {
		return topic.Values(ctx)
	})
	return srv
}

// subscribers waits until topic has n subscriptions.
func subscribers(t *testing.T, topic *pubsub.Topic, n int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for topic.Len() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions, want %d", topic.Len(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestValuesEnumerator: a subscription returned as a sequence result
// answers at once with a token, before anything is published; a pull
// answers with every value queued and waits for one when none is; an
// abort ends the subscription.
func TestValuesEnumerator(t *testing.T) {
	leaktest.Check(t)
	topic := &pubsub.Topic{Method: "unused"}
	r := peertest.NewRaw(t, &stream.Server{Server: tailServer(topic)})
	exchange := func(req, want string) {
		t.Helper()
		r.Send(req)
		if got := r.Recv(); got != want {
			t.Errorf("%s\n got %s\nwant %s", req, got, want)
		}
	}
	exchange(`{"jsonrpc":"2.0","method":"tail","id":1}`, `{"jsonrpc":"2.0","result":{"values":[],"token":1},"id":1}`)
	subscribers(t, topic, 1)
	topic.Publish(1)
	topic.Publish("<b>")
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":1},"id":2}`, `{"jsonrpc":"2.0","result":{"values":[1,"<b>"],"finished":false},"id":2}`)
	r.Send(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":1},"id":3}`)
	topic.Publish(map[string]int{"n": 3})
	if got, want := r.Recv(), `{"jsonrpc":"2.0","result":{"values":[{"n":3}],"finished":false},"id":3}`; got != want {
		t.Errorf("a pull that waits:\n got %s\nwant %s", got, want)
	}
	exchange(`{"jsonrpc":"2.0","method":"$/enumerator/abort","params":{"token":1},"id":4}`, `{"jsonrpc":"2.0","result":null,"id":4}`)
	subscribers(t, topic, 0)
}

// TestValuesOverflow: the values wait in the push queue's bounds; past
// them, Drop skips values and Unsubscribe ends the sequence after the
// values queued before, with a -32005 answer to the pull.
func TestValuesOverflow(t *testing.T) {
	leaktest.Check(t)
	for _, tc := range []struct {
		overflow pubsub.Overflow
		want     []string
	}{
		{pubsub.Drop, []string{
			`{"jsonrpc":"2.0","result":{"values":[0,1],"finished":false},"id":2}`,
			`{"jsonrpc":"2.0","result":{"values":[9],"finished":false},"id":3}`,
		}},
		{pubsub.Unsubscribe, []string{
			`{"jsonrpc":"2.0","result":{"values":[0,1],"finished":false},"id":2}`,
			`{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"the subscription's queue was full: it ended"},"id":3}`,
		}},
	} {
		topic := &pubsub.Topic{Method: "unused", Overflow: tc.overflow}
		r := peertest.NewRaw(t, &stream.Server{Server: tailServer(topic), Limits: transport.Limits{MaxPush: 2}})
		r.Send(`{"jsonrpc":"2.0","method":"tail","id":1}`)
		r.Recv()
		subscribers(t, topic, 1)
		for i := range 5 {
			topic.Publish(i)
		}
		for i, want := range tc.want {
			if i == 1 && tc.overflow == pubsub.Drop {
				topic.Publish(9)
			}
			r.Send(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":1},"id":` + string(rune('2'+i)) + `}`)
			if got := r.Recv(); got != want {
				t.Errorf("%v: got %s\nwant %s", tc.overflow, got, want)
			}
		}
	}
}

// TestValuesPartialResults: under LSP a subscription with a
// partialResultToken sends each value as it is published; cancelling
// the call ends it.
func TestValuesPartialResults(t *testing.T) {
	leaktest.Check(t)
	topic := &pubsub.Topic{Method: "unused"}
	r := peertest.NewRaw(t, &stream.Server{Server: tailServer(topic), Protocol: lsp.Protocol()})
	r.Send(`{"jsonrpc":"2.0","method":"lsp/tail","params":{"partialResultToken":7},"id":1}`)
	subscribers(t, topic, 1)
	for i, want := range []string{
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":7,"value":[0]}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":7,"value":[1]}}`,
	} {
		topic.Publish(i)
		if got := r.Recv(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	r.Send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	if got := r.Recv(); !strings.Contains(got, `"code":-32800`) || !strings.Contains(got, `"id":1`) {
		t.Errorf("the cancelled call: %s", got)
	}
	subscribers(t, topic, 0)
}

// TestValuesCallSeq: the library's client ranges over a subscription
// served as a sequence, and ends it when its loop stops.
func TestValuesCallSeq(t *testing.T) {
	leaktest.Check(t)
	topic := &pubsub.Topic{Method: "unused"}
	c := dial(t, &stream.Server{Server: tailServer(topic)})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	go func() {
		for topic.Len() == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		for i := range 100 {
			topic.Publish(i)
		}
	}()
	n := 0
	for v, err := range client.CallSeq[int](ctx, c, "tail", nil) {
		if err != nil {
			t.Fatal(err)
		}
		if v != n {
			t.Fatalf("value %d is %d", n, v)
		}
		if n++; n == 100 {
			break
		}
	}
	subscribers(t, topic, 0)
}
