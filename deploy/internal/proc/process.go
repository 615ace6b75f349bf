package proc

import (
	"io"
	"net"
	"net/http"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// A Process is a child process a test started, its output collected.
type Process struct {
	Cmd    *exec.Cmd
	Exited chan struct{} // closed once it has exited
	out    testutil.Buffer
}

// Start starts name with args, its standard output and error collected
// (Output). It leaves stopping it to the caller (Stop, Kill).
func Start(t testing.TB, name string, args ...string) *Process {
	t.Helper()
	p := &Process{Cmd: exec.Command(name, args...), Exited: make(chan struct{})}
	p.Cmd.Stdout, p.Cmd.Stderr = &p.out, &p.out
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.Cmd.Wait(); close(p.Exited) }()
	return p
}

// Output returns what the process has written so far.
func (p *Process) Output() string { return p.out.String() }

// Stop asks the process to exit (SIGTERM: jsonrpcd's graceful shutdown,
// nginx's fast one) and kills it when it has not within d; it reports
// whether it exited by itself.
func (p *Process) Stop(d time.Duration) bool {
	select {
	case <-p.Exited:
		return true
	default:
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.Exited:
		return true
	case <-time.After(d):
		p.Kill()
		return false
	}
}

// Kill kills the process at once, as a crash would, and waits for it.
func (p *Process) Kill() {
	p.Cmd.Process.Kill()
	<-p.Exited
}

// WaitReady waits, within d, until a GET of url (a readiness probe, such as
// jsonrpcd's /readyz) is answered 200; it fails the test when exited is
// closed first or d passes, with log's text and the last answer.
func WaitReady(t testing.TB, what, url string, d time.Duration, exited <-chan struct{}, log func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	hc := &http.Client{Timeout: time.Second}
	for {
		var last string
		resp, err := hc.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before %s answered 200:\n%s", what, url, log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s not ready after %v: %s\n%s", what, url, d, last, log())
		}
		time.Sleep(20 * time.Millisecond) // polls a condition, bounded by deadline
	}
}

// WaitListening waits, within d, until addr accepts connections; it fails
// the test when exited is closed first or d passes, with log's text.
func WaitListening(t testing.TB, what, addr string, d time.Duration, exited <-chan struct{}, log func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before it listened on %s:\n%s", what, addr, log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not listen on %s after %v: %v\n%s", what, addr, d, err, log())
		}
		time.Sleep(20 * time.Millisecond) // polls a condition, bounded by deadline
	}
}
