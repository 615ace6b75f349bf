package main

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// checkNetReport checks the rows of a tcp or http report: their names in
// order, and latency fields and a note on exactly the network rows.
func checkNetReport(t *testing.T, path, mode string, conns int, want []string) *Report {
	t.Helper()
	rep, raw := readReport(t, path)
	if rep.Mode != mode || rep.Duration != "50ms" {
		t.Errorf("mode %q duration %q", rep.Mode, rep.Duration)
	}
	var got []string
	for _, r := range rep.Rows {
		got = append(got, r.Name)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	rows, _ := raw["rows"].([]any)
	for i, r := range rep.Rows {
		m := rows[i].(map[string]any)
		network := r.Name != "process"
		for _, k := range []string{"p50_us", "p90_us", "p99_us", "latency_samples"} {
			if _, ok := m[k]; ok != network {
				t.Errorf("row %s: field %q present: %v", r.Name, k, ok)
			}
		}
		if r.Note == "" {
			t.Errorf("row %s: no note", r.Name)
		}
		if !network {
			if r.Workers != 1 {
				t.Errorf("row %s: %d workers", r.Name, r.Workers)
			}
			continue
		}
		if r.Workers != conns {
			t.Errorf("row %s: %d connections, want %d", r.Name, r.Workers, conns)
		}
		if !(0 < r.P50us && r.P50us <= r.P90us && r.P90us <= r.P99us) {
			t.Errorf("row %s: p50 %v p90 %v p99 %v µs", r.Name, r.P50us, r.P90us, r.P99us)
		}
		if math.Abs(r.NsPerCall*r.MedianRPS-1e9) > 1 {
			t.Errorf("row %s: %v ns/req at %v req/s", r.Name, r.NsPerCall, r.MedianRPS)
		}
	}
	return rep
}

func TestTCP(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		conns int
		rows  []string
	}{
		{nil, 1, []string{"process", "tcp-inline"}},
		{[]string{"-async", "-conns", "2", "-window", "16", "-inflight", "64"}, 2,
			[]string{"process", "tcp-inline", "tcp-concurrent", "tcp-suspend"}},
	} {
		path := filepath.Join(t.TempDir(), "tcp.json")
		args := append([]string{"tcp", "-d", "50ms", "-runs", "1", "-json", path}, tc.flags...)
		code, out, errOut := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("rpcbench %q: status %d, stderr:\n%s", args, code, errOut)
		}
		rep := checkNetReport(t, path, "tcp", tc.conns, tc.rows)
		for _, r := range rep.Rows[1:] {
			if !strings.Contains(r.Note, "allocs") || !strings.Contains(r.Note, "load generator alone") {
				t.Errorf("row %s: note %q", r.Name, r.Note)
			}
		}
		for _, s := range []string{"tcp-inline/process: ", "p99 µs", "tcp-inline: allocs"} {
			if !strings.Contains(out, s) {
				t.Errorf("rpcbench %q: no %q in the output:\n%s", args, s, out)
			}
		}
		if !strings.Contains(errOut, "running tcp-inline conns=") {
			t.Errorf("no progress line:\n%s", errOut)
		}
	}
}

func TestHTTP(t *testing.T) {
	for _, conns := range []int{1, 3} {
		path := filepath.Join(t.TempDir(), "http.json")
		code, out, errOut := runCmd(t, "http", "-d", "50ms", "-runs", "1", "-conns", string(rune('0'+conns)), "-json", path)
		if code != 0 {
			t.Fatalf("-conns %d: status %d, stderr:\n%s", conns, code, errOut)
		}
		rep := checkNetReport(t, path, "http", conns, []string{"http"})
		if !strings.Contains(rep.Rows[0].Note, "process-wide") || !strings.Contains(out, "process-wide") {
			t.Errorf("note %q; output:\n%s", rep.Rows[0].Note, out)
		}
	}
	// The same over fasthttp (package fasthttprpc).
	path := filepath.Join(t.TempDir(), "fasthttp.json")
	code, _, errOut := runCmd(t, "http", "-d", "50ms", "-runs", "1", "-conns", "2", "-server", "fasthttp", "-json", path)
	if code != 0 {
		t.Fatalf("-server fasthttp: status %d, stderr:\n%s", code, errOut)
	}
	rep := checkNetReport(t, path, "http", 2, []string{"fasthttp"})
	if !strings.Contains(rep.Rows[0].Note, "fasthttp server") {
		t.Errorf("note %q", rep.Rows[0].Note)
	}
}

func TestNetUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tcp", "-d", "0s"}, "-d must be positive"},
		{[]string{"tcp", "-conns", "0"}, "-conns must be at least 1"},
		{[]string{"tcp", "-runs", "0"}, "-runs must be at least 1"},
		{[]string{"tcp", "-window", "0"}, "-window must be at least 1"},
		{[]string{"tcp", "-window", "64", "-inflight", "100"}, "-inflight must be"},
		{[]string{"http", "-conns", "0"}, "-conns must be at least 1"},
		{[]string{"http", "-d", "-1s"}, "-d must be positive"},
		{[]string{"http", "extra"}, `unexpected argument "extra"`},
		{[]string{"http", "-server", "nginx"}, "-server must be net/http or fasthttp"},
	} {
		code, out, errOut := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("rpcbench %q: status %d, stderr:\n%s\nwant status 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	for _, m := range []string{"tcp", "http"} {
		if code, _, errOut := runCmd(t, m, "-h"); code != 0 || !strings.Contains(errOut, "usage: rpcbench "+m) {
			t.Errorf("%s -h: status %d, stderr:\n%s", m, code, errOut)
		}
	}
}

// wrongAdd answers add with a wrong sum.
func wrongAdd() (*jsonrpc.Server, error) {
	s := jsonrpc.NewServer()
	return s, s.Register("add", func(a, b float64) float64 { return a - b })
}

// TestNetRefusesBrokenSetup checks that a server that answers wrong is
// refused before anything is measured, in both modes.
func TestNetRefusesBrokenSetup(t *testing.T) {
	good := tcpRows[0]
	wrong := tcpRows[2] // tcp-suspend's request, answered inline and wrong
	wrong.name, wrong.async, wrong.server = "tcp-wrong", false, wrongAdd
	missing := good
	missing.name, missing.server = "tcp-missing", func() (*jsonrpc.Server, error) { return jsonrpc.NewServer(), nil }
	for _, bad := range []tcpRowDef{wrong, missing} {
		var out, errOut bytes.Buffer
		e := &env{stdout: &out, stderr: &errOut, tcpRows: []tcpRowDef{good, bad}}
		if code := e.run([]string{"tcp", "-d", "20ms"}); code != 1 {
			t.Errorf("row %s: status %d, want 1", bad.name, code)
		}
		if s := errOut.String(); !strings.Contains(s, "refusing to measure: row "+bad.name) || strings.Contains(s, "running") {
			t.Errorf("row %s: stderr:\n%s", bad.name, s)
		}
		if out.Len() != 0 {
			t.Errorf("row %s printed a table:\n%s", bad.name, out.String())
		}
	}

	for _, srv := range []func() (*jsonrpc.Server, error){
		func() (*jsonrpc.Server, error) { // answers add wrong
			s, _ := demoServer()
			return s, s.Register("add", func(a, b float64) float64 { return a - b })
		},
		func() (*jsonrpc.Server, error) { return jsonrpc.NewServer(), nil },
	} {
		var out, errOut bytes.Buffer
		e := &env{stdout: &out, stderr: &errOut, httpServer: srv}
		if code := e.run([]string{"http", "-d", "20ms"}); code != 1 {
			t.Errorf("http: status %d, want 1", code)
		}
		if s := errOut.String(); !strings.Contains(s, "refusing to measure: row http") || strings.Contains(s, "running") {
			t.Errorf("http: stderr:\n%s", s)
		}
		if out.Len() != 0 {
			t.Errorf("http printed a table:\n%s", out.String())
		}
	}
}

// TestHTTPRefusesBadResponses checks the client's HTTP checks: status,
// Content-Length, keep-alive.
func TestHTTPRefusesBadResponses(t *testing.T) {
	want := `{"jsonrpc":"2.0","result":3.75,"id":1}`
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		err  string // "" when accepted
	}{
		{"ok", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "38")
			io.WriteString(w, want)
		}, ""},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusInternalServerError)
		}, "500"},
		{"chunked", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, want[:10])
			w.(http.Flusher).Flush()
			io.WriteString(w, want[10:])
		}, "Content-Length required"},
		{"close", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			io.WriteString(w, want)
		}, "closes the connection"},
		{"wrong", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"jsonrpc":"2.0","result":3.5,"id":1}`)
		}, "want"},
		{"204", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		}, "no response"},
	} {
		tg, err := newHTTPTarget("t-"+tc.name, tc.h, []string{addReq}, []string{want}, 1)
		if tc.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			m, lat, err := tg.measure(20 * time.Millisecond)
			if err != nil || m.Ops < 1 || lat.n != uint64(m.Ops) {
				t.Errorf("%s: %+v, %v", tc.name, m, err)
			}
			tg.close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
		if tg != nil {
			tg.close()
		}
	}
}

// doublingServer answers every request line with two response lines.
func doublingServer(ln net.Listener) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			sc := bufio.NewScanner(nc)
			for sc.Scan() {
				if _, err := io.WriteString(nc, mixWant[0]+"\n"+mixWant[0]+"\n"); err != nil {
					return
				}
			}
		}()
	}
}

// TestTCPRefusesBadStream checks that a server answering more lines than
// requests fails the first-window check and, unchecked, the run.
func TestTCPRefusesBadStream(t *testing.T) {
	tg, err := startTCP("double", doublingServer, []string{demo.Requests[0]}, []string{mixWant[0]}, 1, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.close()
	if err := tg.check(tg.conns[0]); err != nil {
		t.Fatalf("the first window of a doubled stream: %v", err) // the first 4 lines are right
	}
	// The check left the stream 4 lines ahead: the run sees more responses
	// than requests, or the check after it a mismatch.
	tg.validate = true
	start := time.Now()
	_, _, err = tg.run(20 * time.Millisecond)
	if err == nil {
		t.Error("a run on a doubling server passed")
	}
	t.Log(err)
	if el := time.Since(start); el > drainTimeout+time.Second {
		t.Errorf("the run took %v", el)
	}
}

// TestTCPBounded checks that a server that stops answering fails the run
// within the drain timeout instead of hanging it.
func TestTCPBounded(t *testing.T) {
	silent := func(ln net.Listener) {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, nc) // read nothing, answer nothing
		}
	}
	defer func(d time.Duration) { drainTimeout = d }(drainTimeout)
	drainTimeout = 200 * time.Millisecond
	tg, err := startTCP("silent", silent, []string{demo.Requests[0]}, []string{mixWant[0]}, 1, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.close()
	start := time.Now()
	_, _, err = tg.run(10 * time.Millisecond)
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "0 responses") && !strings.Contains(err.Error(), "after 0 responses") {
		t.Errorf("run on a silent server: %v", err)
	}
	if el := time.Since(start); el > drainTimeout+time.Second {
		t.Errorf("the run took %v", el)
	}
}

func TestLatHist(t *testing.T) {
	var h latHist
	if h.quantile(0.5) != 0 {
		t.Error("empty histogram")
	}
	for v := int64(1); v <= 100000; v++ {
		h.record(v * 1000) // 1 µs to 100 ms, uniform
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 1} {
		got, want := h.quantile(q), q*100000*1000
		if math.Abs(got-want) > 0.035*want {
			t.Errorf("quantile %v: %v, want %v", q, got, want)
		}
	}
	for _, v := range []uint64{0, 1, 31, 32, 33, 63, 64, 65, 1000, 1 << 40, math.MaxInt64} {
		i := latIndex(v)
		if i < 0 || i >= latBuckets {
			t.Fatalf("latIndex(%d) = %d", v, i)
		}
		if mid := latValue(i); math.Abs(mid-float64(v)) > 0.035*float64(v)+0.5 {
			t.Errorf("latValue(latIndex(%d)) = %v", v, mid)
		}
	}
	var o latHist
	o.record(5)
	o.add(&h)
	if o.n != h.n+1 {
		t.Errorf("add: %d samples", o.n)
	}
}
