package streamhttp_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// BenchmarkPlainCall: one call answered with JSON, over a loopback
// keep-alive connection, through httprpc and through this package, in
// the same run: what a request's connection costs beside the HTTP
// exchange.
func BenchmarkPlainCall(b *testing.B) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b float64) float64 { return a + b })
	const call = `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	hosts := []struct {
		name string
		h    http.Handler
	}{
		{"httprpc", &httprpc.Handler{Server: srv}},
		{"streamhttp", &streamhttp.Handler{Server: srv}},
	}
	servers := make([]*httptest.Server, len(hosts))
	for i, h := range hosts {
		servers[i] = httptest.NewServer(h.h)
		defer servers[i].Close()
	}
	post := func(b *testing.B, ts *httptest.Server, body *strings.Reader) {
		body.Reset(call)
		req, _ := http.NewRequest(http.MethodPost, ts.URL, body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", both)
		resp, err := ts.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(out) != `{"jsonrpc":"2.0","result":3,"id":1}` {
			b.Fatalf("answer %s", out)
		}
	}
	for i, h := range hosts {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				body := strings.NewReader(call)
				for pb.Next() {
					post(b, servers[i], body)
				}
			})
		})
	}
	// The two hosts in turns, each call timed: a shared machine's noise
	// falls on both alike, and the ratio is of one run.
	b.Run("ratio", func(b *testing.B) {
		var mu sync.Mutex
		var spent [2]time.Duration
		b.RunParallel(func(pb *testing.PB) {
			body := strings.NewReader(call)
			var mine [2]time.Duration
			for pb.Next() {
				for i, ts := range servers {
					t := time.Now()
					post(b, ts, body)
					mine[i] += time.Since(t)
				}
			}
			mu.Lock()
			spent[0] += mine[0]
			spent[1] += mine[1]
			mu.Unlock()
		})
		b.ReportMetric(float64(spent[0])/float64(spent[1]), "streamhttp/httprpc-speed")
	})
}

// BenchmarkEvents: the events of one stream per second, a method that
// reports progress b.N times before it answers.
func BenchmarkEvents(b *testing.B) {
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields()) // _meta
	srv.MustRegister("count", func(ctx context.Context, p struct {
		N int `json:"n"`
	}) (int, error) {
		prog := progress.Of(ctx)
		for i := range p.N {
			if err := prog.Report(ctx, mcp.Progress{Progress: float64(i)}); err != nil {
				return 0, err
			}
		}
		return p.N, nil
	}, jsonrpc.Blocking())
	ts := httptest.NewServer(&streamhttp.Handler{Server: srv, Limits: transport.Limits{MaxPush: 1 << 16}})
	defer ts.Close()
	b.ReportAllocs()
	body := `{"jsonrpc":"2.0","method":"count","params":{"n":` + strconv.Itoa(b.N) + `,"_meta":{"progressToken":1}},"id":1}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	b.ResetTimer()
	resp, err := ts.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	n := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			n++
		}
	}
	if n != b.N+1 {
		b.Fatalf("%d events, want %d (status %d, %s)", n, b.N+1, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
