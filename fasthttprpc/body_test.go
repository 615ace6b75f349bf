package fasthttprpc_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
)

// wait bounds every wait of these tests.
const wait = 10 * time.Second

// watchedListener tells when each of its connections has had want bytes
// read from it and the server asks for more: the server then waits on the
// client, and has made whatever room it makes for the body.
type watchedListener struct {
	net.Listener
	want    int
	waiting chan struct{} // a value per connection that reached want
}

func (l *watchedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &watchedConn{Conn: c, l: l}, nil
}

type watchedConn struct {
	net.Conn
	l    *watchedListener
	read int
	once sync.Once
}

func (c *watchedConn) Read(p []byte) (int, error) {
	if c.read >= c.l.want {
		c.once.Do(func() { c.l.waiting <- struct{}{} })
	}
	n, err := c.Conn.Read(p)
	c.read += n
	return n, err
}

// serveServer serves s itself on loopback and returns its address; it is
// shut down when the test ends.
func serveServer(t *testing.T, s *fasthttp.Server, wrap func(net.Listener) net.Listener) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Logger = quiet{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if wrap != nil {
			s.Serve(wrap(ln))
		} else {
			s.Serve(ln)
		}
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.ShutdownWithContext(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
	})
	return ln.Addr().String()
}

// stalledPost is the start of a POST that declares a body of length bytes
// and sends sent bytes of it.
func stalledPost(length, sent int) string {
	return fmt.Sprintf("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", length) +
		`{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", sent-len(`{"jsonrpc":"2.0","method":"echo","params":["`))
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A client that declares a body of 4 MiB and sends 100 bytes costs the
// server about what it sent, not what it declared: 50 such connections
// grow the heap by well under 50 × 4 MiB.
func TestNewServerDeclaredLength(t *testing.T) {
	const conns, sent = 50, 100
	req := stalledPost(4<<20, sent)
	l := &watchedListener{want: len(req), waiting: make(chan struct{}, conns)}
	addr := serveServer(t, fasthttprpc.NewServer(demo.NewServer()), func(ln net.Listener) net.Listener { l.Listener = ln; return l })

	before := heapAlloc()
	var cs []net.Conn
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	for range conns {
		c, err := net.DialTimeout("tcp", addr, wait)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
	}
	for range conns {
		select {
		case <-l.waiting:
		case <-time.After(wait):
			t.Fatal("the server did not read every request")
		}
	}
	after := heapAlloc()
	growth := int64(after) - int64(before)
	t.Logf("heap grew by %.1f MiB for %d connections that declared 4 MiB and sent %d bytes of it (%d with the headers)", float64(growth)/(1<<20), conns, sent, len(req))
	if limit := int64(16 << 20); growth > limit {
		t.Errorf("heap grew by %d MiB, want under %d MiB (the declared lengths would be %d MiB)", growth>>20, limit>>20, conns*4)
	}
}

// A body that never completes is answered with 408 when the read timeout
// passes, whether it stalls in the bytes fasthttp reads ahead or in those
// the handler reads, and the connection is closed.
func TestNewServerStalledBody(t *testing.T) {
	leaktest.CheckIgnoring(t, fasthttpBackground...)
	s := fasthttprpc.NewServer(demo.NewServer())
	s.ReadTimeout = 300 * time.Millisecond
	addr := serveServer(t, s, nil)
	for _, sent := range []int{100, 20 << 10} {
		c, err := net.DialTimeout("tcp", addr, wait)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(wait))
		io.WriteString(c, stalledPost(4<<20, sent))
		got, err := io.ReadAll(c)
		c.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%d bytes sent: no answer and the connection open after %v", sent, wait)
			continue
		}
		if !strings.HasPrefix(string(got), "HTTP/1.1 408 ") {
			t.Errorf("%d bytes sent: answer %q, want 408", sent, got)
		}
	}
}

// With streamed bodies the handler applies the limit (the server's
// MaxRequestBodySize), to a declared length and to a chunked body, reads
// bodies larger than what fasthttp reads ahead, and keeps a connection in
// step when it answers without reading a body.
func TestNewServerStreamedBodies(t *testing.T) {
	leaktest.CheckIgnoring(t, fasthttpBackground...)
	srv := demo.NewServer()
	srv.MustRegister("body", func(ctx context.Context) (int, error) {
		rc, ok := jsonrpc.CallOf(ctx).ContextValue().(*fasthttp.RequestCtx)
		if !ok {
			return 0, errors.New("no RequestCtx")
		}
		return len(rc.PostBody()), nil
	})
	s := fasthttprpc.NewServer(srv)
	const limit = 16 << 10
	s.MaxRequestBodySize = limit
	addr := serveServer(t, s, nil)
	url := "http://" + addr
	echo := func(n int) string {
		return `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", n) + `"],"id":1}`
	}
	atLimit := echo(limit - len(echo(0)))

	for _, tc := range []struct {
		name    string
		body    string
		chunked bool
		status  int
	}{
		{"small", echo(10), false, 200},
		{"past the read-ahead", echo(12 << 10), false, 200},
		{"chunked", echo(12 << 10), true, 200},
		{"at the limit", atLimit, false, 200},
		{"chunked at the limit", atLimit, true, 200},
		{"over the limit", atLimit + " ", false, 413},
		{"chunked over the limit", atLimit + " ", true, 413},
	} {
		// Written whole before the answer is read: the server answers 413
		// and closes the connection before it reads the whole body, and
		// the body is small enough for the connection's buffers.
		c, err := net.DialTimeout("tcp", addr, wait)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(wait))
		head := "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
		if tc.chunked {
			// Chunks of 1000 bytes, as a client that streams would send.
			var b strings.Builder
			b.WriteString(head + "Transfer-Encoding: chunked\r\n\r\n")
			for rest := tc.body; rest != ""; {
				n := min(len(rest), 1000)
				fmt.Fprintf(&b, "%x\r\n%s\r\n", n, rest[:n])
				rest = rest[n:]
			}
			b.WriteString("0\r\n\r\n")
			io.WriteString(c, b.String())
		} else {
			io.WriteString(c, head+fmt.Sprintf("Content-Length: %d\r\n\r\n", len(tc.body))+tc.body)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			c.Close()
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d (%.100s)", tc.name, resp.StatusCode, tc.status, b)
			continue
		}
		if tc.status == 200 && string(b) != srv.ProcessString(context.Background(), tc.body) {
			t.Errorf("%s: answer %.100s", tc.name, b)
		}
	}

	// A method reads the body from the RequestCtx.
	body := `{"jsonrpc":"2.0","method":"body","id":1}`
	if a := do(t, "POST", url, "application/json", body); a.body != fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":1}`, len(body)) {
		t.Errorf("body seen by the method: %d %s", a.status, a.body)
	}

	// An answer that leaves a streamed body unread closes the connection,
	// so that the body is never read as a request: after the 415 comes
	// either the end of the connection or the answer to the request after
	// the body, never an answer to the request inside the body.
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), wait)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(wait))
	// fasthttp reads 8 KiB of a body ahead: the request in the body
	// starts right after them.
	smuggled := strings.Repeat(" ", 8<<10) + "GET /smuggled HTTP/1.1\r\nHost: localhost\r\n\r\n"
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"+
		fmt.Sprintf("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", len(smuggled))+smuggled+
		"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 54\r\n\r\n"+`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	br := bufio.NewReader(c)
	for _, want := range []int{405, 415, 200} {
		resp, err := http.ReadResponse(br, nil)
		if want == 200 && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)) {
			break // closed after the 415 (reset: the rest was unread)
		}
		if err != nil {
			t.Fatalf("answer %d: %v", want, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("status %d %q, want %d", resp.StatusCode, b, want)
			break
		}
	}
}

// A multipart body is not read ahead by fasthttp (which, streaming, would
// read it without the body limit): it is refused with 415 as soon as the
// handler runs.
func TestNewServerMultipart(t *testing.T) {
	addr := serveServer(t, fasthttprpc.NewServer(demo.NewServer()), nil)
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(wait))
	part := "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f\"\r\n\r\n" + strings.Repeat("x", 16<<10)
	io.WriteString(c, fmt.Sprintf("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n", 1<<30)+part)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("status %d, want 415", resp.StatusCode)
	}
}
