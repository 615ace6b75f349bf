package jsonrpc_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// boom panics, for the logger's tests; its name is what the stack holds.
func boom(string) string { panic("boom: the disk at /srv/data is full") }

func TestLoggerPanic(t *testing.T) {
	logger, log := testutil.NewLog()
	srv := jsonrpc.NewServer(jsonrpc.UseLogger(logger))
	srv.MustRegister("boom", boom)

	resp := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"boom","params":["x"],"id":1}`)
	if want := `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}`; resp != want {
		t.Errorf("answer %s, want %s", resp, want)
	}
	recs := log.Find(t, "method panicked")
	if len(recs) != 1 {
		t.Fatalf("%d records of the panic, want 1; the log:\n%s", len(recs), log)
	}
	testutil.Want(t, recs[0], "ERROR", map[string]any{
		"method": "boom",
		"panic":  "boom: the disk at /srv/data is full",
		"stack":  testutil.Contains("jsonrpc_test.boom"),
	})
	// What the server logs stays there.
	for _, secret := range []string{"boom:", "/srv/data", "goroutine", "jsonrpc_test.boom"} {
		if strings.Contains(resp, secret) {
			t.Errorf("the answer %s holds %q", resp, secret)
		}
	}
}

func TestLoggerPanicBlocking(t *testing.T) {
	logger, log := testutil.NewLog()
	srv := jsonrpc.NewServer(jsonrpc.UseLogger(logger))
	srv.MustRegister("boom", boom, jsonrpc.Blocking())
	done := make(chan string, 1)
	srv.ProcessAsync(context.Background(), nil, []byte(`{"jsonrpc":"2.0","method":"boom","params":["x"],"id":1}`), func(resp []byte) { done <- string(resp) })
	if resp := <-done; strings.Contains(resp, "srv/data") || !strings.Contains(resp, "-32603") {
		t.Errorf("answer %s", resp)
	}
	testutil.Want(t, log.Wait(t, "method panicked"), "ERROR", map[string]any{"method": "boom", "stack": testutil.Contains("jsonrpc_test.boom")})
}

func TestLoggerInterceptorPanic(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  jsonrpc.Option
	}{
		{"before next", jsonrpc.Intercept(func(context.Context, *jsonrpc.Call, func(context.Context) error) error {
			panic("in interceptor")
		})},
		{"after next", jsonrpc.Intercept(func(ctx context.Context, _ *jsonrpc.Call, next func(context.Context) error) error {
			next(ctx)
			panic("in interceptor, after next")
		})},
	} {
		t.Run(c.name, func(t *testing.T) {
			logger, log := testutil.NewLog()
			srv := jsonrpc.NewServer(jsonrpc.UseLogger(logger), c.opt)
			srv.MustRegister("upper", strings.ToUpper)
			resp := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"upper","params":["x"],"id":1}`)
			if strings.Contains(resp, "goroutine") {
				t.Errorf("answer %s", resp)
			}
			recs := log.Find(t, "interceptor panicked")
			if len(recs) != 1 {
				t.Fatalf("%d records of the panic, want 1; the log:\n%s", len(recs), log)
			}
			testutil.Want(t, recs[0], "ERROR", map[string]any{
				"method": "upper",
				"panic":  testutil.Contains("in interceptor"),
				"stack":  testutil.Contains("goroutine"),
			})
		})
	}
}

func TestLoggerParseError(t *testing.T) {
	logger, log := testutil.NewLog()
	srv := jsonrpc.NewServer(jsonrpc.UseLogger(logger))
	srv.MustRegister("upper", strings.ToUpper)
	for _, req := range []string{`{"jsonrpc":"2.0",`, `[{"jsonrpc":"2.0"},`} {
		srv.ProcessString(context.Background(), req)
		done := make(chan struct{})
		srv.ProcessAsync(context.Background(), nil, []byte(req), func([]byte) { close(done) })
		<-done
	}
	recs := log.Find(t, "parse error")
	if len(recs) != 4 {
		t.Fatalf("%d records of parse errors, want 4 (two documents, Process and ProcessAsync); the log:\n%s", len(recs), log)
	}
	for _, r := range recs {
		testutil.Want(t, r, "WARN", map[string]any{"error": testutil.Contains(""), "bytes": testutil.Contains("")})
	}
	testutil.Want(t, recs[0], "WARN", map[string]any{"bytes": 17})
	// A valid request logs nothing.
	before := log.String()
	srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"upper","params":["x"],"id":1}`)
	if after := log.String(); after != before {
		t.Errorf("a call that succeeds logged %s", after[len(before):])
	}
}

// TestLoggerNone checks that a server without a logger prints nothing,
// not even through the log package's default logger.
func TestLoggerNone(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Skip(err)
	}
	defer r.Close()
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(w, nil)))
	defer slog.SetDefault(old)
	srv := jsonrpc.NewServer()
	srv.MustRegister("boom", boom)
	srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"boom","params":["x"],"id":1}`)
	srv.ProcessString(context.Background(), `{`)
	w.Close()
	var b strings.Builder
	buf := make([]byte, 512)
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if b.Len() != 0 {
		t.Errorf("a server without a logger logged %s", b.String())
	}
}

func ExampleUseLogger() {
	// A handler without the time and the stack, so that the output is the
	// same each run.
	h := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "stack" {
			return slog.Attr{}
		}
		return a
	}})
	srv := jsonrpc.NewServer(jsonrpc.UseLogger(slog.New(h)))
	srv.MustRegister("divide", func(a, b int) int { return a / b })

	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"divide","params":[1,`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"divide","params":[1,0],"id":1}`))
	// Output:
	// level=WARN msg="parse error" error="invalid JSON at offset 47" bytes=47
	// {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}
	// level=ERROR msg="method panicked" method=divide panic="runtime error: integer divide by zero"
	// {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}
}
