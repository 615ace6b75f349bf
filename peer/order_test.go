package peer_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
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

// TestNotifyAfterInputEnds: once the peer has ended its input (an editor
// closes the agent's standard input) a call still running may still send
// notifications before its answer, as its answer is still sent. (The
// stream host cancels the calls in flight at the end of the input: this
// one finishes its work regardless.)
func TestNotifyAfterInputEnds(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("turn", func(ctx context.Context) (string, error) {
		c := peer.FromContext(ctx)
		<-c.Done() // the read loop has ended: the input is over
		return "done", c.Notify(context.WithoutCancel(ctx), "update", []string{"late"})
	}, jsonrpc.Blocking())
	var out bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"turn","id":1}` + "\n")
	s := &stream.Server{Server: srv, Protocol: mcp.Protocol()} // a cancelled call's answer is its own
	if err := s.ServeConn(context.Background(), stream.ReadWriteCloser(in, &out)); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","method":"update","params":["late"]}` + "\n" + `{"jsonrpc":"2.0","result":"done","id":1}` + "\n"
	if got := out.String(); got != want {
		t.Errorf("written:\n%s\nwant:\n%s", got, want)
	}
}
