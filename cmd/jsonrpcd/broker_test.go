package main

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/nats-io/nats-server/v2/server"
)

// startReplica starts the jsonrpcd binary bin with args on random
// loopback ports and returns its TCP address; the test's cleanup stops
// it.
func startReplica(t *testing.T, bin string, args ...string) (tcpAddr string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-http", "127.0.0.1:0", "-tcp", "127.0.0.1:0"}, args...)...)
	var stderr testutil.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	_, tcpAddr, err = listening(stdout)
	go func() { io.Copy(io.Discard, stdout); exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(wait):
			cmd.Process.Kill()
			<-exited
		}
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return tcpAddr
}

// TestBrokerReplicas: two jsonrpcd on one NATS server (-broker) share the
// feed: a subscriber on one receives, in order, what is published on the
// other, and publish answers 0 (the value is on the broker).
func TestBrokerReplicas(t *testing.T) {
	testutil.SkipOnJS(t, "starts jsonrpcd as a process")
	if testing.Short() {
		t.Skip("builds and starts jsonrpcd twice")
	}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(wait) {
		t.Fatal("NATS server not ready")
	}
	bin := testutil.Build(t, ".", "jsonrpcd")
	a := startReplica(t, bin, "-broker", ns.ClientURL())
	b := startReplica(t, bin, "-broker", ns.ClientURL())

	sub, subr := dialLines(t, a)
	sub.Write([]byte(`{"jsonrpc":"2.0","method":"subscribe","id":1}` + "\n"))
	answer := readLine(t, subr)
	id, ok := strings.CutPrefix(answer, `{"jsonrpc":"2.0","result":"`)
	if !ok || !strings.HasSuffix(id, `","id":1}`) {
		t.Fatalf("subscribe answered %s", answer)
	}
	id = strings.TrimSuffix(id, `","id":1}`)

	pub, pubr := dialLines(t, b)
	const n = 20
	for i := range n {
		fmt.Fprintf(pub, `{"jsonrpc":"2.0","method":"publish","params":["%d",1],"id":%d}`+"\n", i, i)
		if got, want := readLine(t, pubr), fmt.Sprintf(`{"jsonrpc":"2.0","result":0,"id":%d}`, i); got != want {
			t.Fatalf("publish answered %s, want %s", got, want)
		}
	}
	for i := range n {
		if got, want := readLine(t, subr), `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"`+id+fmt.Sprintf(`","result":"%d"}}`, i); got != want {
			t.Fatalf("notification %s, want %s", got, want)
		}
	}
}
