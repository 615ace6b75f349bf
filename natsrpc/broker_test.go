package natsrpc_test

import (
	"net"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/natsrpc"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// startNATS runs a NATS server in the test's process, on 127.0.0.1 and
// port (-1: a random one), until the test ends.
func startNATS(t testing.TB, port int) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(peertest.Wait) {
		t.Fatal("the NATS server is not ready")
	}
	t.Cleanup(s.Shutdown)
	return s
}

// dial returns a Broker on a connection of its own to s that reconnects
// quickly.
func dial(t *testing.T, s *server.Server) *natsrpc.Broker {
	t.Helper()
	b, err := natsrpc.Dial(s.ClientURL(), nats.ReconnectWait(20*time.Millisecond), nats.ReconnectJitter(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// TestReplicas: two replicas on two connections are one topic.
func TestReplicas(t *testing.T) {
	s := startNATS(t, -1)
	peertest.BrokerReplicas(t, dial(t, s), dial(t, s), 2000)
}

// TestRestart: delivery resumes when the server restarts on the same
// port; both connections reconnect and resubscribe by themselves.
func TestRestart(t *testing.T) {
	s := startNATS(t, -1)
	port := s.Addr().(*net.TCPAddr).Port
	peertest.BrokerRestart(t, dial(t, s), dial(t, s), func() {
		s.Shutdown()
		s.WaitForShutdown()
		startNATS(t, port)
	}, 10*time.Second, 100)
}
