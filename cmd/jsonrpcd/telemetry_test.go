package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// running is jsonrpcd run in the test's process, as the command line args
// ask, with both listeners on ephemeral loopback ports.
type running struct {
	addr    map[string]string // "http", "tcp", "metrics": what stdout says
	stdout  *testutil.Buffer  // every line of standard output
	stderr  *testutil.Buffer
	cancel  context.CancelFunc
	done    chan int
	stopped bool
}

// startRun starts jsonrpcd with args and waits for it to say where it
// listens. The test's end stops it.
func startRun(t *testing.T, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{addr: map[string]string{}, stdout: &testutil.Buffer{}, stderr: &testutil.Buffer{}, cancel: cancel, done: make(chan int, 1)}
	pr, pw := io.Pipe()
	go func() {
		r.done <- run(ctx, append([]string{"-http", "127.0.0.1:0", "-tcp", "127.0.0.1:0", "-ws=false"}, args...), strings.NewReader(""), pw, r.stderr)
		pw.Close()
	}()
	t.Cleanup(func() { r.stop(t) })
	lines := bufio.NewScanner(pr)
	want := 2
	if strings.Contains(strings.Join(args, " "), "-metrics") {
		want++
	}
	for len(r.addr) < want && lines.Scan() {
		line := lines.Text()
		r.stdout.Write([]byte(line + "\n"))
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "jsonrpcd: HTTP on "), strings.HasPrefix(line, "jsonrpcd: HTTPS on "):
			r.addr["http"] = f[len(f)-1]
		case strings.HasPrefix(line, "jsonrpcd: TCP"):
			r.addr["tcp"] = f[len(f)-1]
		case strings.HasPrefix(line, "jsonrpcd: metrics on "):
			r.addr["metrics"] = f[len(f)-1]
		}
	}
	if len(r.addr) < want {
		t.Fatalf("jsonrpcd said where it listens: %v; stderr:\n%s", r.addr, r.stderr)
	}
	go func() {
		for lines.Scan() {
			r.stdout.Write([]byte(lines.Text() + "\n"))
		}
	}()
	return r
}

// stop shuts jsonrpcd down, as a signal does, and checks its status.
func (r *running) stop(t *testing.T) {
	t.Helper()
	if r.stopped {
		return
	}
	r.stopped = true
	r.cancel()
	select {
	case code := <-r.done:
		if code != 0 {
			t.Errorf("status %d after shutdown; stderr:\n%s", code, r.stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no shutdown")
	}
}

// post sends req over HTTP to url and returns the answer.
func post(t *testing.T, url, req string) string {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Post(url, "application/json", strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

// tcpCall sends req over TCP to addr and returns the answer line.
func tcpCall(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, req+"\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(line, "\n")
}

const addReq = `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`

func TestLogLevelDebug(t *testing.T) {
	r := startRun(t, "-log-level", "debug")
	if got := tcpCall(t, r.addr["tcp"], `{"jsonrpc":"2.0",`); !strings.Contains(got, "-32700") {
		t.Errorf("TCP: %s", got)
	}
	if got := post(t, r.addr["http"], addReq); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("HTTP: %s", got)
	}
	r.stop(t)
	log := r.stderr.String()
	for _, want := range []string{
		`level=DEBUG msg="connection opened" transport=tcp remote=127.0.0.1:`,
		`level=DEBUG msg="connection closed" transport=tcp remote=127.0.0.1:`,
		`level=DEBUG msg="connection opened" transport=http remote=127.0.0.1:`,
		`level=WARN msg="parse error" error=`,
		`level=INFO msg="shutting down" timeout=10s`,
		`level=INFO msg="shutdown complete"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr holds no %s; it holds:\n%s", want, log)
		}
	}
	// Standard output holds only the lines that say where it listens.
	if out := r.stdout.String(); strings.Contains(out, "level=") {
		t.Errorf("records on standard output:\n%s", out)
	}
}

func TestLogLevels(t *testing.T) {
	for _, c := range []struct {
		level    string
		want     []string
		wantNone []string
	}{
		{"info", []string{"level=INFO", "level=WARN"}, []string{"level=DEBUG"}},
		{"warn", []string{"level=WARN"}, []string{"level=DEBUG", "level=INFO"}},
		{"error", nil, []string{"level=DEBUG", "level=INFO", "level=WARN"}},
		{"off", nil, []string{"level="}},
	} {
		t.Run(c.level, func(t *testing.T) {
			r := startRun(t, "-log-level", c.level)
			tcpCall(t, r.addr["tcp"], `{"jsonrpc":"2.0",`)
			r.stop(t)
			log := r.stderr.String()
			for _, w := range c.want {
				if !strings.Contains(log, w) {
					t.Errorf("stderr holds no %s:\n%s", w, log)
				}
			}
			for _, w := range c.wantNone {
				if strings.Contains(log, w) {
					t.Errorf("stderr holds %s:\n%s", w, log)
				}
			}
		})
	}
	if code := run(context.Background(), []string{"-log-level", "loud"}, strings.NewReader(""), io.Discard, io.Discard); code != 2 {
		t.Errorf("-log-level loud: status %d, want 2", code)
	}
}

// TestLogStdio: with -stdio the records go to standard error, and standard
// output holds the answers only.
func TestLogStdio(t *testing.T) {
	var out, errOut testutil.Buffer
	in := `{"jsonrpc":"2.0","method"` + "\n" + addReq + "\n"
	if code := run(context.Background(), []string{"-stdio"}, strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("status %d: %s", code, errOut.String())
	}
	if want := `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}` + "\n" + `{"jsonrpc":"2.0","result":3,"id":1}` + "\n"; out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if !strings.Contains(errOut.String(), `level=WARN msg="parse error"`) {
		t.Errorf("stderr: %s", errOut.String())
	}
}

func TestMetrics(t *testing.T) {
	r := startRun(t, "-metrics", "127.0.0.1:0", "-log-level", "off")
	scrape := func() string {
		c := &http.Client{Timeout: 5 * time.Second}
		resp, err := c.Get(r.addr["metrics"])
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("scrape: %s", resp.Status)
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if strings.Contains(scrape(), `rpc_method="add"`) {
		t.Fatal("the metrics count add before any call")
	}
	if got := post(t, r.addr["http"], addReq); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("HTTP: %s", got)
	}
	tcpCall(t, r.addr["tcp"], addReq)
	tcpCall(t, r.addr["tcp"], `{"jsonrpc":"2.0","method":"add","params":[1],"id":2}`)
	metrics := scrape()
	for _, want := range []string{
		`rpc_server_duration_milliseconds_count{rpc_method="add",rpc_system="jsonrpc"} 2`,
		`rpc_server_duration_milliseconds_count{rpc_jsonrpc_error_code="-32602",rpc_method="add",rpc_system="jsonrpc"} 1`,
		`rpc_server_duration_milliseconds_bucket{rpc_method="add",rpc_system="jsonrpc",le="+Inf"} 2`,
		`rpc_server_active_calls{rpc_method="add",rpc_system="jsonrpc"} 0`,
	} {
		if !containsLine(metrics, want) {
			t.Errorf("the scrape holds no %s; it holds:\n%s", want, metrics)
		}
	}
	// The runtime's and the process's, whatever their values.
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "process_open_fds"} {
		if !strings.Contains(metrics, "\n"+name+" ") {
			t.Errorf("the scrape holds no %s", name)
		}
	}
	if !strings.HasSuffix(r.addr["metrics"], "/metrics") || !strings.HasPrefix(r.addr["metrics"], "http://127.0.0.1:") {
		t.Errorf("metrics address %s", r.addr["metrics"])
	}
}

// containsLine reports whether text has a line that begins with want,
// whatever labels the exporter adds (such as otel_scope_*) aside.
func containsLine(text, want string) bool {
	for line := range strings.Lines(text) {
		if strings.TrimSuffix(line, "\n") == want {
			return true
		}
	}
	return false
}

// collector is an OTLP/HTTP trace receiver: it keeps the requests it is
// sent.
type collector struct {
	mu   sync.Mutex
	reqs []*coltracepb.ExportTraceServiceRequest
	errs []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	req := new(coltracepb.ExportTraceServiceRequest)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/v1/traces":
		c.errs = append(c.errs, r.Method+" "+r.URL.Path)
	case r.Header.Get("Content-Type") != "application/x-protobuf":
		c.errs = append(c.errs, "Content-Type "+r.Header.Get("Content-Type"))
	case err != nil:
		c.errs = append(c.errs, err.Error())
	default:
		if err := proto.Unmarshal(body, req); err != nil {
			c.errs = append(c.errs, err.Error())
			break
		}
		c.reqs = append(c.reqs, req)
	}
	resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(resp)
}

// spans returns the spans received, by name, each with its string
// attributes, and the service name of their resource.
func (c *collector) spans() (spans map[string]map[string]string, service string, errs []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	spans = map[string]map[string]string{}
	for _, req := range c.reqs {
		for _, rs := range req.ResourceSpans {
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.Key == "service.name" {
					service = kv.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					attrs := map[string]string{}
					for _, kv := range sp.Attributes {
						attrs[kv.Key] = kv.GetValue().GetStringValue()
					}
					spans[sp.Name] = attrs
				}
			}
		}
	}
	return spans, service, c.errs
}

func TestOTLP(t *testing.T) {
	col := &collector{}
	ts := httptest.NewServer(col)
	defer ts.Close()
	r := startRun(t, "-otlp", ts.URL+"/v1/traces", "-log-level", "off")
	traceparent := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	req, err := http.NewRequest(http.MethodPost, r.addr["http"], strings.NewReader(addReq))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", traceparent)
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tcpCall(t, r.addr["tcp"], `{"jsonrpc":"2.0","method":"subtract","params":[3,1],"id":"s"}`)
	// The spans are batched; the shutdown sends those left.
	r.stop(t)
	spans, service, errs := col.spans()
	if len(errs) > 0 {
		t.Errorf("the collector was sent: %v", errs)
	}
	add, ok := spans["add"]
	if !ok {
		t.Fatalf("no span named add among %v", spans)
	}
	if add["rpc.method"] != "add" || add["rpc.system"] != "jsonrpc" {
		t.Errorf("the span of add: %v", add)
	}
	if sub := spans["subtract"]; sub["rpc.method"] != "subtract" || sub["rpc.jsonrpc.request_id"] != `"s"` && sub["rpc.jsonrpc.request_id"] != "s" {
		t.Errorf("the span of subtract: %v", sub)
	}
	if service != "jsonrpcd" {
		t.Errorf("service.name %q, want jsonrpcd", service)
	}
	// The span of add is the child of the caller's.
	col.mu.Lock()
	defer col.mu.Unlock()
	found := false
	for _, req := range col.reqs {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					if sp.Name == "add" {
						found = true
						if got := string(sp.TraceId); got != string(hexBytes(t, traceparent[3:35])) {
							t.Errorf("the span of add has trace id %x, want the traceparent's", sp.TraceId)
						}
					}
				}
			}
		}
	}
	if !found {
		t.Error("no span of add")
	}
}

func hexBytes(t *testing.T, s string) []byte {
	t.Helper()
	b := make([]byte, len(s)/2)
	for i := range b {
		var v byte
		for _, c := range s[2*i : 2*i+2] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= byte(c - '0')
			case c >= 'a' && c <= 'f':
				v |= byte(c - 'a' + 10)
			}
		}
		b[i] = v
	}
	return b
}
