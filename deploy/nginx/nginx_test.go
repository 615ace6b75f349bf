package nginx_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/deploy/internal/proc"
	"github.com/jsonrpc-go/jsonrpc/deploy/nginx"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// nginxBinary returns the path of nginx, or skips the test when there is
// none, unless JSONRPC_NGINX=required, as CI sets it, which fails it.
func nginxBinary(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("JSONRPC_NGINX") == "required" {
		t.Fatal("nginx is not installed, and JSONRPC_NGINX=required")
	}
	t.Skip("nginx is not installed (Debian: apt-get install nginx); JSONRPC_NGINX=required fails instead")
	return ""
}

func TestMain(m *testing.M) { proc.Main(m) }

// waitListening waits until addr accepts connections, for 10 s at most.
func waitListening(t *testing.T, what, addr string, exited <-chan struct{}, log func() string) {
	t.Helper()
	proc.WaitListening(t, what, addr, 10*time.Second, exited, log)
}

// A process is a child process the test started.
type process = proc.Process

// start starts name with args; the test's cleanup stops it, and fails
// the test when it does not exit within 10 s of SIGTERM.
func start(t *testing.T, name string, args ...string) *process {
	t.Helper()
	p := proc.Start(t, name, args...)
	t.Cleanup(func() {
		if !p.Stop(10 * time.Second) {
			t.Errorf("%s did not exit within 10s of SIGTERM; killed", p.Cmd.Path)
		}
	})
	return p
}

// startJsonrpcd starts n jsonrpcd processes, HTTP only (WebSocket and
// Streamable HTTP on it), each on a loopback port of its own, with the
// flags args added, waits until each answers its readiness probe
// (/readyz), and returns their addresses.
func startJsonrpcd(t *testing.T, n int, args ...string) ([]string, []*process) {
	t.Helper()
	bin := proc.Jsonrpcd(t)
	var addrs []string
	var procs []*process
	for range n {
		addr := proc.FreeAddr(t)
		p := start(t, bin, append([]string{"-http", addr, "-tcp", ""}, args...)...)
		proc.WaitReady(t, "jsonrpcd", "http://"+addr+"/readyz", 10*time.Second, p.Exited, p.Output)
		addrs, procs = append(addrs, addr), append(procs, p)
	}
	return addrs, procs
}

// startNginx starts nginx in front of backends, with a prefix directory of
// its own, and returns its address.
func startNginx(t *testing.T, backends []string) string {
	t.Helper()
	bin := nginxBinary(t)
	dir := t.TempDir()
	p := nginx.Params{Dir: dir, Listen: proc.FreeAddr(t), Backends: backends, Workers: 1, Root: os.Geteuid() == 0}
	var conf bytes.Buffer
	if err := nginx.Write(&conf, p); err != nil {
		t.Fatal(err)
	}
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, conf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	np := start(t, bin, "-p", dir, "-c", confPath, "-e", filepath.Join(dir, "error.log"))
	log := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return np.Output() + string(b)
	}
	waitListening(t, "nginx", p.Listen, np.Exited, log)
	// Ready once each process's probe answers through nginx.
	for i := range backends {
		proc.WaitReady(t, "nginx", fmt.Sprintf("http://%s/node/%d/readyz", p.Listen, i), 10*time.Second, np.Exited, log)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("nginx's error log:\n%s", log())
		}
	})
	return p.Listen
}

// post sends one call of addInt to url with the headers h and returns the
// answer and the process that gave it (X-Upstream).
func post(t *testing.T, url string, h http.Header) (string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return strings.TrimSpace(string(body)), resp.Header.Get("X-Upstream")
}

// The recipe's routing: HTTP round-robin over the processes, by header or
// path to one process, and a WebSocket connection to one process for its
// lifetime.
func TestRouting(t *testing.T) {
	backends, _ := startJsonrpcd(t, 2)
	addr := startNginx(t, backends)
	const want = `{"jsonrpc":"2.0","result":3,"id":1}`

	seen := map[string]int{}
	for range 20 {
		answer, upstream := post(t, "http://"+addr+"/", nil)
		if answer != want {
			t.Fatalf("POST / answered %s, want %s", answer, want)
		}
		seen[upstream]++
	}
	if seen[backends[0]] != 10 || seen[backends[1]] != 10 {
		t.Errorf("20 calls to / went to %v, want 10 to each of %v", seen, backends)
	}

	for i, b := range backends {
		for range 5 {
			if answer, upstream := post(t, fmt.Sprintf("http://%s/node/%d/", addr, i), nil); answer != want || upstream != b {
				t.Errorf("POST /node/%d/: %s from %s, want %s from %s", i, answer, upstream, want, b)
			}
			h := http.Header{"X-Jsonrpcd-Node": {fmt.Sprint(i)}}
			if answer, upstream := post(t, "http://"+addr+"/", h); answer != want || upstream != b {
				t.Errorf("POST / with X-Jsonrpcd-Node: %d: %s from %s, want %s from %s", i, answer, upstream, want, b)
			}
		}
	}

	// A body over nginx's default of 1 MiB but within jsonrpcd's 4 MiB
	// passes; one over 4 MiB is refused by jsonrpcd, not nginx.
	for _, c := range []struct {
		size   int
		status int
	}{{3 << 20, http.StatusOK}, {5 << 20, http.StatusRequestEntityTooLarge}} {
		body := `{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":1}` + strings.Repeat(" ", c.size)
		resp, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("X-Upstream") == "" || c.status == http.StatusOK && strings.TrimSpace(string(answer)) != want {
			t.Errorf("a body of %d MiB: %d from %q: %.200s, want %d from a process", c.size>>20, resp.StatusCode, resp.Header.Get("X-Upstream"), answer, c.status)
		}
	}

	// WebSocket: the handshake goes round-robin, then the connection
	// stays; /node/N/ws reaches process N.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seen = map[string]int{}
	for _, path := range []string{"/ws", "/ws", "/node/1/ws"} {
		conn, resp, err := websocket.Dial(ctx, "ws://"+addr+path, nil)
		if err != nil {
			t.Fatalf("WebSocket %s: %v", path, err)
		}
		upstream := resp.Header.Get("X-Upstream")
		seen[upstream]++
		if path == "/node/1/ws" && upstream != backends[1] {
			t.Errorf("WebSocket /node/1/ws went to %s, want %s", upstream, backends[1])
		}
		for range 10 {
			if err := conn.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":1}`)); err != nil {
				t.Fatal(err)
			}
			if _, msg, err := conn.Read(ctx); err != nil || string(msg) != want {
				t.Fatalf("WebSocket %s: %s, %v", path, msg, err)
			}
		}
		conn.Close(websocket.StatusNormalClosure, "")
	}
	if seen[backends[0]] != 1 || seen[backends[1]] != 2 {
		t.Errorf("WebSocket connections went to %v, want one to %s and two to %s", seen, backends[0], backends[1])
	}
}

// countingTransport counts the HTTP exchanges and the 502s.
type countingTransport struct {
	http.RoundTripper
	requests, badGateway, failed atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.requests.Add(1)
	resp, err := c.RoundTripper.RoundTrip(r)
	switch {
	case err != nil:
		c.failed.Add(1)
	case resp.StatusCode == http.StatusBadGateway:
		c.badGateway.Add(1)
	}
	return resp, err
}

func newHTTPClient() (*http.Client, *countingTransport) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	ct := &countingTransport{RoundTripper: tr}
	return &http.Client{Transport: ct}, ct
}

// load makes calls of addInt from workers goroutines until n have been
// made or d has passed, and returns how many were made and how many failed
// (each failure is reported with t.Errorf, up to 10), or stop is closed.
// after is called once, when half of n have been made.
func load(t *testing.T, c client.Caller, n, workers int, d time.Duration, stop <-chan struct{}, after func()) (made, failed int64) {
	t.Helper()
	var next, done, bad atomic.Int64
	var once sync.Once
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				select {
				case <-stop:
					return
				default:
				}
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				sum, err := client.Call[int64](context.Background(), c, "addInt", []int64{i, 1})
				if err != nil || sum != i+1 {
					if bad.Add(1) <= 10 {
						t.Errorf("call %d: addInt = %d, %v; want %d", i, sum, err, i+1)
					}
				}
				if done.Add(1) == int64(n/2) && after != nil {
					once.Do(after)
				}
			}
		})
	}
	wg.Wait()
	return done.Load(), bad.Load()
}

// retryPolicy retries addInt, which is idempotent, until a process that
// is left takes it: nginx answers 502 for the calls that were in flight on
// a process that died, and leaves that process out for 5 s.
var retryPolicy = client.RetryPolicy{
	Attempts:   8,
	Backoff:    20 * time.Millisecond,
	MaxBackoff: 500 * time.Millisecond,
	Idempotent: func(method string) bool { return method == "addInt" },
}

// A process dies in the middle of a load through nginx: every idempotent
// call succeeds, retried by the client when the process died under it; a
// WebSocket client on the process left keeps its connection, and one on
// the process that died reconnects to the other.
func TestFailover(t *testing.T) {
	backends, procs := startJsonrpcd(t, 2)
	addr := startNginx(t, backends)

	// Two WebSocket clients, one on each process (round-robin, one nginx
	// worker, no other request between their handshakes).
	var wsClients [2]*client.Client
	var wsDials [2]atomic.Int64
	for i := range wsClients {
		wsClients[i] = client.Redial(func(ctx context.Context) (client.Channel, error) {
			wsDials[i].Add(1)
			return ws.Dial(ctx, "ws://"+addr+"/ws", nil)
		}, client.Retry(retryPolicy), client.Timeout(20*time.Second))
		defer wsClients[i].Close()
		if _, err := client.Call[int64](context.Background(), wsClients[i], "addInt", []int{1, 2}); err != nil {
			t.Fatal(err)
		}
	}
	firstConns := [2]any{wsClients[0].Conn(), wsClients[1].Conn()}

	hc, counts := newHTTPClient()
	c := client.New(client.HTTP("http://"+addr+"/", hc), client.Retry(retryPolicy), client.Timeout(20*time.Second))
	defer c.Close()

	const calls, workers = 2000, 8
	killed := make(chan struct{})
	// The WebSocket clients call, one call at a time each, for as long as
	// the HTTP load runs.
	var wsMade, wsFailed [2]atomic.Int64
	var wg sync.WaitGroup
	httpDone := make(chan struct{})
	for i, wc := range wsClients {
		wg.Go(func() {
			made, failed := load(t, wc, 1e6, 1, time.Minute, httpDone, nil)
			wsMade[i].Add(made)
			wsFailed[i].Add(failed)
		})
	}
	start := time.Now()
	made, failed := load(t, c, calls, workers, time.Minute, nil, func() {
		procs[1].Kill()
		close(killed)
	})
	took := time.Since(start)
	close(httpDone)
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("the load ended before a process was killed")
	}
	t.Logf("HTTP: %d calls of addInt from %d workers through nginx in %v, process 1 killed after %d: %d failed; %d HTTP exchanges, %d answered 502, %d failed",
		made, workers, took.Round(time.Millisecond), calls/2, failed, counts.requests.Load(), counts.badGateway.Load(), counts.failed.Load())
	if made != calls || failed != 0 {
		t.Errorf("%d of %d calls made, %d failed; want every call to succeed", made, calls, failed)
	}

	// The WebSocket client on the process left kept its connection; the
	// one on the process that died dialed again, and every call succeeded.
	for i := range wsClients {
		t.Logf("WebSocket client %d: %d calls, %d failed, %d dials", i, wsMade[i].Load(), wsFailed[i].Load(), wsDials[i].Load())
		if wsFailed[i].Load() != 0 || wsMade[i].Load() == 0 {
			t.Errorf("WebSocket client %d: %d calls made, %d failed", i, wsMade[i].Load(), wsFailed[i].Load())
		}
	}
	// Call again, in case the client on process 1 had no call in flight
	// when it died and has not noticed yet.
	for i, wc := range wsClients {
		if _, err := client.Call[int64](context.Background(), wc, "addInt", []int{1, 2}); err != nil {
			t.Errorf("WebSocket client %d after the kill: %v", i, err)
		}
	}
	var kept, moved int
	for i, wc := range wsClients {
		if wc.Conn() == firstConns[i] && wsDials[i].Load() == 1 {
			kept++
		} else {
			moved++
		}
	}
	if kept != 1 || moved != 1 {
		t.Errorf("WebSocket clients: %d kept their connection and %d reconnected, want 1 and 1", kept, moved)
	}
}

// TestThroughput measures the same load through nginx to one jsonrpcd
// process and to two (go test -v -run Throughput ./nginx prints the
// figures; its README's are from there).
func TestThroughput(t *testing.T) {
	nginxBinary(t)
	const calls, workers = 20000, 16
	rates := make([]float64, 2)
	for n := 1; n <= 2; n++ {
		backends, _ := startJsonrpcd(t, n)
		addr := startNginx(t, backends)
		hc, _ := newHTTPClient()
		c := client.New(client.HTTP("http://"+addr+"/", hc))
		load(t, c, 500, workers, 10*time.Second, nil, nil) // warm-up: connections, pools
		start := time.Now()
		made, failed := load(t, c, calls, workers, 10*time.Second, nil, nil)
		took := time.Since(start)
		c.Close()
		rates[n-1] = float64(made) / took.Seconds()
		t.Logf("nginx -> %d jsonrpcd: %d calls of addInt over HTTP from %d workers in %v: %.0f calls/s (%d failed)",
			n, made, workers, took.Round(time.Millisecond), rates[n-1], failed)
		if failed != 0 || made == 0 {
			t.Errorf("%d processes: %d calls made, %d failed", n, made, failed)
		}
	}
	t.Logf("2 processes / 1 process: %.2fx", rates[1]/rates[0])
}

// TestDrain (issue 39): jsonrpcd -drain behind nginx. On SIGTERM, process
// 0's /readyz, reached through nginx, answers 503 at once while /healthz
// stays 200 and the process goes on answering, listeners open, new calls
// and the call in flight alike; a second SIGTERM ends the drain, and the
// call in flight is answered before the process exits with status 0.
// nginx itself has no active health checks: a balancer that has them
// probes /readyz of each process, as the test does through /node/N/.
func TestDrain(t *testing.T) {
	nginxBinary(t)
	backends, procs := startJsonrpcd(t, 2, "-drain", "10m")
	addr := startNginx(t, backends)
	p := procs[0]
	// Before the cleanups of start, which send one SIGTERM: the second
	// ends the drain.
	t.Cleanup(func() {
		for _, p := range procs {
			drainThenStop(p)
		}
	})
	get := func(path string) int {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	node0 := "http://" + addr + "/node/0/"
	inFlight := make(chan string, 1)
	wrote := make(chan struct{})
	go func() {
		// sleep answers after 2 s: it is in flight when the signals come
		// (sent before the first, and the test makes four round trips to
		// the process before the second).
		trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { close(wrote) }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodPost, node0,
			strings.NewReader(`{"jsonrpc":"2.0","method":"sleep","params":[2000],"id":1}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			inFlight <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		inFlight <- strings.TrimSpace(string(b))
	}()

	<-wrote
	p.Cmd.Process.Signal(syscall.SIGTERM)
	if !waitDraining(p) {
		t.Fatalf("jsonrpcd does not drain after SIGTERM:\n%s", p.Output())
	}
	if got := get("/node/0/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("draining: /node/0/readyz %d, want 503", got)
	}
	if got := get("/node/0/healthz"); got != http.StatusOK {
		t.Errorf("draining: /node/0/healthz %d, want 200", got)
	}
	if got := get("/node/1/readyz"); got != http.StatusOK {
		t.Errorf("the other process: /node/1/readyz %d, want 200", got)
	}
	if got, _ := post(t, node0, nil); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("a call while draining: %s", got)
	}

	p.Cmd.Process.Signal(syscall.SIGTERM) // ends the drain
	if got, want := <-inFlight, `{"jsonrpc":"2.0","result":2000,"id":1}`; got != want {
		t.Errorf("the call in flight: %s, want %s", got, want)
	}
	select {
	case <-p.Exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("jsonrpcd does not exit after the drain:\n%s", p.Output())
	}
	if code := p.Cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d, want 0:\n%s", code, p.Output())
	}
}

// waitDraining waits, for 10 s at most, until p says it drains after a
// SIGTERM, and reports whether it did.
func waitDraining(p *process) bool {
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(p.Output(), "jsonrpcd: draining"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// drainThenStop sends p, a jsonrpcd -drain still running, the two SIGTERMs
// that end it.
func drainThenStop(p *process) {
	select {
	case <-p.Exited:
		return
	default:
	}
	if !strings.Contains(p.Output(), "jsonrpcd: draining") {
		p.Cmd.Process.Signal(syscall.SIGTERM)
		waitDraining(p)
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
}
