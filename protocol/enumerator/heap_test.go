package enumerator_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

var seqHeapFor = flag.Duration("seqheap.d", 2*time.Second, "how long TestSeqHeapHeld streams to its slow consumer")

// TestSeqHeapHeld: a method that could produce 1,000,000 items of 200
// bytes, streamed to a consumer that takes 1,000 items a second, over TCP
// over WebSocket and over Streamable HTTP (partial results on the
// request's event stream): the process's heap in use stays under 16 MiB all
// along (the producer is held, not its items queued), and a consumer
// that stops ends the producer, whose context is done. Run it longer with
// -args -seqheap.d=10s.
func TestSeqHeapHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("streams for -seqheap.d")
	}
	item := strings.Repeat("y", 198)
	ended := make(chan time.Time, 1)
	srv := jsonrpc.NewServer()
	srv.MustRegister("items", func(ctx context.Context) iter.Seq[string] {
		return func(yield func(string) bool) {
			defer func() {
				<-ctx.Done()
				ended <- time.Now()
			}()
			for range 1_000_000 {
				if !yield(item) {
					return
				}
			}
		}
	})
	dialers := map[string]func(t *testing.T) client.Channel{
		"tcp": func(t *testing.T) client.Channel {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s := &stream.Server{Server: srv}
			go s.Serve(ln)
			t.Cleanup(func() { s.Close() })
			ch, err := client.Dial(context.Background(), "tcp", ln.Addr().String(), s.Framing)
			if err != nil {
				t.Fatal(err)
			}
			return ch
		},
		"websocket": func(t *testing.T) client.Channel {
			testutil.SkipOnJS(t, "no WebSocket server on js")
			ts := httptest.NewServer(&ws.Handler{Server: srv})
			t.Cleanup(ts.Close)
			ch, err := ws.Dial(context.Background(), "ws"+strings.TrimPrefix(ts.URL, "http"), nil)
			if err != nil {
				t.Fatal(err)
			}
			return ch
		},
	}
	t.Run("streamhttp", func(t *testing.T) {
		runtime.GC() // the garbage of the tests before is not this one's
		// Partial results on the request's event stream, 64 items an
		// event, read at 1,000 items a second.
		lspSrv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
		lspSrv.MustRegister("items", func(ctx context.Context, _ struct {
			Token json.RawMessage `json:"partialResultToken"`
		}) iter.Seq[string] {
			return func(yield func(string) bool) {
				defer func() {
					<-ctx.Done()
					ended <- time.Now()
				}()
				for range 1_000_000 {
					if !yield(item) {
						return
					}
				}
			}
		})
		ts := httptest.NewServer(&streamhttp.Handler{Server: lspSrv, Protocol: lsp.Protocol()})
		defer ts.Close()
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"items","params":{"partialResultToken":"p"},"id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		var peak uint64
		var ms runtime.MemStats
		end := time.Now().Add(*seqHeapFor)
		n := 0
		for time.Now().Before(end) {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(line, "data: ") {
				continue
			}
			n += strings.Count(line, item)
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			time.Sleep(64 * time.Millisecond) // the consumer's pace: 64 items
		}
		resp.Body.Close()
		stopped := time.Now()
		var at time.Time
		select {
		case at = <-ended:
		case <-time.After(30 * time.Second):
			t.Fatal("the producer did not end when the consumer went")
		}
		t.Logf("streamhttp: %d items in %v, heap in use at most %.1f MiB; the producer ended %v after the consumer went",
			n, *seqHeapFor, float64(peak)/(1<<20), at.Sub(stopped))
		if peak >= 16<<20 {
			t.Errorf("heap in use reached %.1f MiB, want under 16 MiB", float64(peak)/(1<<20))
		}
	})
	for _, name := range []string{"tcp", "websocket"} {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			c := client.New(dialers[name](t))
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), *seqHeapFor+30*time.Second)
			defer cancel()
			var peak uint64
			var ms runtime.MemStats
			tick := time.NewTicker(time.Millisecond) // the consumer's pace: 1,000 items a second
			defer tick.Stop()
			sample := time.NewTicker(50 * time.Millisecond)
			defer sample.Stop()
			end := time.Now().Add(*seqHeapFor)
			n := 0
			var stopped time.Time
			for v, err := range client.CallSeq[string](ctx, c, "items", nil) {
				if err != nil || len(v) != len(item) {
					if ctx.Err() != nil {
						// Waited past any pace: what every goroutine was doing.
						var stacks strings.Builder
						pprof.Lookup("goroutine").WriteTo(&stacks, 2)
						t.Log(stacks.String())
					}
					t.Fatalf("item %d: %v", n, err)
				}
				n++
				select {
				case <-sample.C:
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				default:
				}
				if time.Now().After(end) {
					stopped = time.Now()
					break
				}
				<-tick.C
			}
			var at time.Time
			select {
			case at = <-ended:
			case <-ctx.Done():
				t.Fatal("the producer did not end when the consumer stopped")
			}
			t.Logf("%s: %d items in %v, heap in use at most %.1f MiB; the producer ended %v after the consumer stopped",
				name, n, *seqHeapFor, float64(peak)/(1<<20), at.Sub(stopped))
			if peak >= 16<<20 {
				t.Errorf("heap in use reached %.1f MiB, want under 16 MiB", float64(peak)/(1<<20))
			}
		})
	}
}
