package peer_test

import (
	"context"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// TestAnswersBeforeLaterNotifications: on a two-way connection, what a
// call running on a goroutine of its own sends (a notification about the
// session an earlier call created, as an agent's session/update follows
// session/new) goes after the answers to the calls read before it, which
// the read loop had queued. Here the notification is sent while the read
// loop is held by a third call, before it could start a writer.
func TestAnswersBeforeLaterNotifications(t *testing.T) {
	srv := jsonrpc.NewServer()
	notified := make(chan struct{})
	srv.MustRegister("create", func() string { return "s1" })
	srv.MustRegister("prompt", func(ctx context.Context) (string, error) {
		err := peer.FromContext(ctx).Notify(ctx, "update", []string{"s1"})
		close(notified)
		return "done", err
	}, jsonrpc.Blocking())
	srv.MustRegister("hold", func() string { <-notified; return "held" })
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: lsp.Protocol()})
	r.Send(
		`{"jsonrpc":"2.0","method":"create","id":1}`,
		`{"jsonrpc":"2.0","method":"prompt","id":2}`,
		`{"jsonrpc":"2.0","method":"hold","id":3}`,
	)
	if got, want := r.Recv(), `{"jsonrpc":"2.0","result":"s1","id":1}`; got != want {
		t.Fatalf("first message %s, want the answer to create, %s", got, want)
	}
	if got, want := r.Recv(), `{"jsonrpc":"2.0","method":"update","params":["s1"]}`; got != want {
		t.Fatalf("second message %s, want the notification %s", got, want)
	}
}
