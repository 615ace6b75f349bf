package client_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// helperEnv names the variable that makes the test binary run as a child
// process for the Command tests (see runHelper) instead of running tests.
const helperEnv = "JSONRPC_CLIENT_TEST_HELPER"

// runHelper is the child process's behaviour: "hang" ignores its input and
// never exits on its own; "fail" exits with status 3 at once.
func runHelper(what string) {
	switch what {
	case "hang":
		time.Sleep(time.Hour)
	case "fail":
		os.Exit(3)
	}
	os.Exit(0)
}

func helperCommand(what string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+what)
	return cmd
}

// A response larger than framing.DefaultMaxMessage reaches the client.
func TestStreamLargeResponse(t *testing.T) {
	leaktest.Check(t)
	cc, sc := net.Pipe()
	big := strings.Repeat("x", framing.DefaultMaxMessage+1)
	served := make(chan error, 1)
	go func() {
		defer sc.Close()
		r := framing.Header.NewReader(sc, 0)
		if _, err := r.Read(); err != nil {
			served <- err
			return
		}
		w := framing.Header.NewWriter(sc)
		w.Write([]byte(`{"jsonrpc":"2.0","result":"` + big + `","id":1}`))
		served <- w.Flush()
	}()
	c := client.New(client.Stream(cc, framing.Header))
	defer c.Close()
	got, err := client.Call[string](context.Background(), c, "big", nil)
	if err != nil || got != big {
		t.Errorf("got %d bytes, %v", len(got), err)
	}
	if err := <-served; err != nil {
		t.Error(err)
	}
}

// blockingRWC is a stream whose writes block until it is closed; each write
// reports itself on entered.
type blockingRWC struct {
	entered chan struct{}
	closed  chan struct{}
}

func (b *blockingRWC) Read([]byte) (int, error) {
	<-b.closed
	return 0, io.EOF
}

func (b *blockingRWC) Write([]byte) (int, error) {
	b.entered <- struct{}{}
	<-b.closed
	return 0, net.ErrClosed
}

func (b *blockingRWC) Close() error {
	close(b.closed)
	return nil
}

// A Write under an ended context sends nothing; a failed write breaks the
// channel.
func TestStreamWriteContextAndBreak(t *testing.T) {
	leaktest.Check(t)
	rwc := &blockingRWC{entered: make(chan struct{}, 1), closed: make(chan struct{})}
	ch := client.Stream(rwc, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ch.Write(ctx, []byte(`{}`)); err != context.Canceled {
		t.Errorf("Write with a cancelled context: %v", err)
	}
	if err := ch.Write(context.Background(), []byte(`{}`)); err != nil {
		t.Errorf("Write: %v", err)
	}
	first := make(chan error, 1)
	go func() { first <- ch.Flush() }()
	<-rwc.entered // the Flush writes the message, and blocks

	ch.Close()
	if err := <-first; !errors.Is(err, client.ErrClosed) || !errors.Is(err, net.ErrClosed) {
		t.Errorf("the blocked Flush: %v", err)
	}
	if err := ch.Write(context.Background(), []byte(`{}`)); !errors.Is(err, client.ErrClosed) {
		t.Errorf("a Write after the failed one: %v", err)
	}
	if _, err := ch.Read(); err != io.EOF {
		t.Errorf("Read after Close: %v", err)
	}
}

// A write that fails closes the stream, so that the client's pending calls
// fail too.
func TestStreamWriteErrorFailsClient(t *testing.T) {
	leaktest.Check(t)
	cc, sc := net.Pipe()
	c := client.New(client.Stream(cc, nil))
	defer c.Close()
	sc.Close()
	_, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2})
	if !errors.Is(err, client.ErrClosed) {
		t.Errorf("err = %v, want ErrClosed", err)
	}
}

func TestDialNetworks(t *testing.T) {
	if _, err := client.Dial(context.Background(), "udp", "127.0.0.1:1", nil); err == nil {
		t.Error("Dial udp: no error")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if _, err := client.Dial(context.Background(), "tcp", addr, nil); err == nil {
		t.Error("Dial of a closed port: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := client.Dial(ctx, "tcp", "127.0.0.1:1", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Dial with a cancelled context: %v", err)
	}
}

func TestCommandErrors(t *testing.T) {
	cmd := helperCommand("")
	cmd.Stdin = strings.NewReader("")
	if _, err := client.Command(cmd, nil); err == nil {
		t.Error("Command with Stdin set: no error")
	}
	if _, err := client.Command(exec.Command("/nonexistent/jsonrpc-server"), nil); err == nil {
		t.Error("Command of a missing program: no error")
	}
}

// A child that exits fails the calls; Close reports its exit status.
func TestCommandExit(t *testing.T) {
	testutil.SkipOnWasm(t, "starts a child process, which needs os.Pipe and os/exec, not implemented on WebAssembly")
	leaktest.Check(t)
	ch, err := client.Command(helperCommand("fail"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch)
	_, err = client.Call[int](context.Background(), c, "addInt", []int{1, 2})
	if !errors.Is(err, client.ErrClosed) {
		t.Errorf("call: %v, want ErrClosed", err)
	}
	var ee *exec.ExitError
	if err := c.Close(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("Close: %v, want exit status 3", err)
	}
}

// A child that does not exit when its input ends is killed after WaitDelay.
func TestCommandKill(t *testing.T) {
	testutil.SkipOnWasm(t, "starts a child process, which needs os.Pipe and os/exec, not implemented on WebAssembly")
	if testing.Short() {
		t.Skip("starts a child process")
	}
	leaktest.Check(t)
	cmd := helperCommand("hang")
	cmd.WaitDelay = 50 * time.Millisecond
	ch, err := client.Command(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Close(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Close: %v", err)
	}
	if _, err := ch.Read(); err == nil {
		t.Error("Read after Close: no error")
	}
}

// TestStreamClosesAtEOF: when a stream.Server shuts down, a client that
// sees the end of its input closes its end, so that the server, which
// waits for that (stream.Server.LingerTimeout), closes at once; the
// client's calls then fail with ErrClosed.
func TestStreamClosesAtEOF(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("one", func() int { return 1 })
	s := &stream.Server{Server: srv, LingerTimeout: time.Minute}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	ch, err := client.Dial(context.Background(), "tcp", l.Addr().String(), framing.Line)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch)
	defer c.Close()
	if n, err := client.Call[int](context.Background(), c, "one", nil); err != nil || n != 1 {
		t.Fatalf("one = %v, %v", n, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown = %v: the server lingered for a client that did not close", err)
	}
	if err := <-served; err != stream.ErrServerClosed {
		t.Fatalf("Serve = %v", err)
	}
	if _, err := client.Call[int](context.Background(), c, "one", nil); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("a call after the server shut down: %v, want ErrClosed", err)
	}
}
