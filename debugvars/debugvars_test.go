package debugvars_test

import (
	"context"
	"encoding/json"
	"expvar"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	_ "github.com/jsonrpc-go/jsonrpc/debugvars"
	"github.com/jsonrpc-go/jsonrpc/internal/asyncbuf"
)

func TestPublished(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("one", func() int { return 1 }, jsonrpc.Blocking())
	done := make(chan struct{})
	srv.ProcessAsync(context.Background(), nil, []byte(`{"jsonrpc":"2.0","method":"one","id":1}`), func([]byte) { close(done) })
	<-done
	v := expvar.Get("jsonrpc")
	if v == nil {
		t.Fatal(`expvar "jsonrpc" is not published`)
	}
	var got struct{ Scratch asyncbuf.Stats }
	if err := json.Unmarshal([]byte(v.String()), &got); err != nil {
		t.Fatalf("%s: %v", v.String(), err)
	}
	if got.Scratch.Misses+got.Scratch.FallbackHits == 0 {
		t.Errorf("the first ProcessAsync took no buffer from the fallback: %+v", got.Scratch)
	}
}
