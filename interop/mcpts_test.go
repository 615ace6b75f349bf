package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// runSteps runs a script of mcpts/ with node and returns the lines it
// printed, by step, and the order of the steps.
func runSteps(t *testing.T, node, script string, args ...string) (map[string]json.RawMessage, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("node %s:\n%s%s", filepath.Base(script), out, stderr.Bytes())
	if err != nil {
		t.Fatalf("node %s: %v", filepath.Base(script), err)
	}
	steps := map[string]json.RawMessage{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s struct{ Step string }
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("a line that is not JSON: %s", sc.Bytes())
		}
		steps[s.Step] = append(json.RawMessage(nil), sc.Bytes()...)
		order = append(order, s.Step)
	}
	return steps, order
}

// step decodes the line of a step into v.
func step(t *testing.T, steps map[string]json.RawMessage, name string, v any) {
	t.Helper()
	if err := json.Unmarshal(steps[name], v); err != nil {
		t.Fatalf("step %s: %s: %v", name, steps[name], err)
	}
}

// serveHTTP starts the example server bin with -http on a loopback port
// and returns its endpoint's URL; it is stopped at the test's end.
func serveHTTP(t *testing.T, bin string) string {
	t.Helper()
	return startStreamable(t, bin, "-http", "127.0.0.1:0")
}

// startStreamable starts the server bin with args, which give it a
// loopback port of its own choosing, and returns the URL of its
// Streamable HTTP endpoint, from the line "NAME: Streamable HTTP on URL"
// it prints when it listens (within 30 seconds). It is interrupted at the
// test's end, and killed if it has not exited 10 seconds later.
func startStreamable(t *testing.T, bin string, args ...string) string {
	t.Helper()
	url, _ := startAnnounced(t, bin, filepath.Base(bin)+": Streamable HTTP on ", args...)
	return url
}

// startAnnounced starts the server bin with args, as startStreamable
// does, and returns the rest of the first line it prints that begins with
// prefix, and what it printed up to then.
func startAnnounced(t *testing.T, bin, prefix string, args ...string) (rest, printed string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout := &announced{prefix: prefix, url: make(chan string, 1)}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Errorf("%s did not exit within 10 s of the interrupt", filepath.Base(bin))
			cmd.Process.Kill()
			<-exited
		}
		if stderr.Len() > 0 {
			t.Logf("%s %s: %s", filepath.Base(bin), strings.Join(args, " "), stderr.Bytes())
		}
	})
	select {
	case url := <-stdout.url:
		return url, stdout.String()
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("%s exited (%v) before it listened; it said %q", bin, err, stdout.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not say where it listens within 30 s; it said %q", bin, stdout.String())
	}
	return "", ""
}

// announced is the standard output of a server: it keeps what was
// written, and sends on url the rest of the first line that begins with
// prefix. It is safe for concurrent use.
type announced struct {
	prefix string
	url    chan string

	mu   sync.Mutex
	buf  bytes.Buffer
	sent bool
}

func (a *announced) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Write(p)
	for line := range strings.Lines(a.buf.String()) {
		if a.sent || !strings.HasSuffix(line, "\n") {
			break
		}
		if url, ok := strings.CutPrefix(strings.TrimSpace(line), a.prefix); ok {
			a.url <- url
			a.sent = true
		}
	}
	return len(p), nil
}

func (a *announced) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf.String()
}

// TestMCPTypeScript drives examples/mcpserver with the MCP TypeScript SDK
// from npm (npm ci in mcpts/), both its lines: @modelcontextprotocol/sdk
// 1.32.2 (sdk1.mjs), which speaks up to 2025-11-25 and has no
// server/discover, and @modelcontextprotocol/client 2.4.0 (client2.mjs),
// pinned to 2026-07-28 and in its default, the handshake of 2025-11-25;
// each over stdio and over Streamable HTTP (the example's -http, driven
// by the SDK's StreamableHTTPClientTransport: sessions at 2025-11-25, a
// POST of its own for each request at 2026-07-28, where closing a call's
// stream cancels it, without notifications/cancelled). Each: the version agreed, the tools, echo, arguments that do not fit (a
// tool error), sleep with progress, a sleep cancelled through an
// AbortSignal, confirm answered by the SDK's elicitation handler, a
// subscription to the note told of its change, resources/read and an
// unknown tool; and under 2026-07-28, the _meta of each request,
// resultType on each result, the input-required round trip and the
// subscription id, as the SDK saw them on the wire.
func TestMCPTypeScript(t *testing.T) {
	node, dir := needNode(t, "mcpts", "@modelcontextprotocol/sdk", "@modelcontextprotocol/client")
	bin := buildExample(t, "mcpserver")
	// wantCancels is how many notifications/cancelled the SDK sends to
	// cancel a call: one, but over Streamable HTTP at 2026-07-28, where
	// closing the call's stream is the cancellation.
	common := func(t *testing.T, steps map[string]json.RawMessage, wantCancels int) {
		t.Helper()
		var tools struct{ Names []string }
		step(t, steps, "tools", &tools)
		if len(tools.Names) < 4 || !slices.Equal(tools.Names[:4], []string{"echo", "sleep", "note", "confirm"}) {
			t.Errorf("tools: %v", tools.Names)
		}
		var echo struct {
			Text    string
			IsError bool
		}
		step(t, steps, "echo", &echo)
		if echo.Text != "hello from TypeScript" || echo.IsError {
			t.Errorf("echo: %s", steps["echo"])
		}
		var bad struct{ IsError bool }
		if step(t, steps, "badargs", &bad); !bad.IsError {
			t.Errorf("arguments that do not fit: %s, want a tool error", steps["badargs"])
		}
		var progress struct {
			Text    string
			Reports []float64
		}
		step(t, steps, "progress", &progress)
		if progress.Text != "slept 1000 ms" || len(progress.Reports) < 1 || !slices.IsSorted(progress.Reports) {
			t.Errorf("progress: %s, want rising reports", steps["progress"])
		}
		var cancel struct {
			MS       float64
			Error    string
			Cancels  int
			Answered bool
		}
		step(t, steps, "cancel", &cancel)
		if cancel.Answered || cancel.Error == "" || cancel.Cancels != wantCancels || cancel.MS > 2000 {
			t.Errorf("cancel: %s, want an error at once and %d notifications/cancelled", steps["cancel"], wantCancels)
		}
		var confirm struct {
			Text     string
			Elicited []string
		}
		step(t, steps, "confirm", &confirm)
		if confirm.Text != "confirmed: delete the draft" || !slices.Equal(confirm.Elicited, []string{"Confirm: delete the draft"}) {
			t.Errorf("confirm: %s", steps["confirm"])
		}
		var read struct{ Text string }
		if step(t, steps, "read", &read); read.Text != "from TypeScript" {
			t.Errorf("read: %s", steps["read"])
		}
		var unknown struct{ Code int }
		if step(t, steps, "unknown", &unknown); unknown.Code != -32602 {
			t.Errorf("unknown tool: %s, want -32602", steps["unknown"])
		}
	}

	url := serveHTTP(t, bin)
	for _, tr := range []struct{ name, server string }{{"stdio", bin}, {"http", url}} {
		t.Run("sdk-1.32.2/"+tr.name, func(t *testing.T) {
			steps, order := runSteps(t, node, filepath.Join(dir, "sdk1.mjs"), tr.server)
			if want := []string{"connect", "ping", "tools", "echo", "badargs", "progress", "cancel", "confirm", "subscribe", "read", "unknown"}; !slices.Equal(order, want) {
				t.Fatalf("steps %v, want %v", order, want)
			}
			var conn struct {
				Latest, Asked, Version string
				Discover               int
			}
			step(t, steps, "connect", &conn)
			if conn.Latest != "2025-11-25" || conn.Asked != "2025-11-25" || conn.Version != "2025-11-25" || conn.Discover != 0 {
				t.Errorf("connect: %s, want 2025-11-25 asked and agreed, no server/discover", steps["connect"])
			}
			common(t, steps, 1)
			var confirm struct{ Requests int }
			if step(t, steps, "confirm", &confirm); confirm.Requests != 1 {
				t.Errorf("confirm: %s, want one elicitation/create request to the client", steps["confirm"])
			}
			var sub struct{ URI string }
			if step(t, steps, "subscribe", &sub); sub.URI != "note://current" {
				t.Errorf("subscribe: %s", steps["subscribe"])
			}
		})

		for _, mode := range []string{"2026-07-28", "legacy"} {
			t.Run("client-2.4.0/"+tr.name+"/"+mode, func(t *testing.T) {
				modern := mode == "2026-07-28"
				steps, order := runSteps(t, node, filepath.Join(dir, "client2.mjs"), tr.server, mode)
				want := []string{"connect", "tools", "echo", "meta", "badargs", "progress", "cancel", "confirm", "subscribe", "read", "unknown", "results"}
				if modern {
					want = slices.Insert(want, 9, "unsubscribe")
				}
				if !slices.Equal(order, want) {
					t.Fatalf("steps %v, want %v", order, want)
				}
				var conn struct {
					Version string
					Server  struct{ Name string }
				}
				step(t, steps, "connect", &conn)
				wantVersion := "2025-11-25"
				if modern {
					wantVersion = "2026-07-28"
				}
				if conn.Version != wantVersion || conn.Server.Name != "mcpserver" {
					t.Errorf("connect: %s, want %s with mcpserver", steps["connect"], wantVersion)
				}
				wantCancels := 1
				if modern && tr.name == "http" {
					wantCancels = 0
				}
				common(t, steps, wantCancels)

				var meta struct{ Meta map[string]json.RawMessage }
				step(t, steps, "meta", &meta)
				var confirm struct{ InputRequired, Retries, Requests int }
				step(t, steps, "confirm", &confirm)
				var sub struct {
					Honored         *struct{ ResourceSubscriptions []string }
					URI             string
					ListenID        json.RawMessage
					SubscriptionIDs []json.RawMessage
				}
				step(t, steps, "subscribe", &sub)
				var results struct{ Count, WithResultType int }
				step(t, steps, "results", &results)
				if !modern {
					if meta.Meta != nil || confirm.Requests != 1 || confirm.InputRequired != 0 || sub.URI != "note://current" || results.WithResultType != 0 {
						t.Errorf("2025-11-25: meta %s, confirm %s, subscribe %s, results %s", steps["meta"], steps["confirm"], steps["subscribe"], steps["results"])
					}
					return
				}
				if string(meta.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` || meta.Meta["io.modelcontextprotocol/clientCapabilities"] == nil {
					t.Errorf("the _meta of a request: %s", steps["meta"])
				}
				var echo struct{ Raw []map[string]json.RawMessage }
				step(t, steps, "echo", &echo)
				if len(echo.Raw) != 1 || string(echo.Raw[0]["resultType"]) != `"complete"` || !strings.Contains(string(echo.Raw[0]["_meta"]), "io.modelcontextprotocol/serverInfo") {
					t.Errorf("the echo's result on the wire: %s", steps["echo"])
				}
				if confirm.InputRequired != 1 || confirm.Retries != 1 || confirm.Requests != 0 {
					t.Errorf("confirm: %s, want one input-required result, one retry, no request to the client", steps["confirm"])
				}
				if sub.Honored == nil || !slices.Equal(sub.Honored.ResourceSubscriptions, []string{"note://current"}) || sub.URI != "note://current" ||
					len(sub.SubscriptionIDs) != 1 || string(sub.SubscriptionIDs[0]) != string(sub.ListenID) || !strings.HasPrefix(string(sub.ListenID), `"`) {
					t.Errorf("subscribe: %s, want the note honored (tools not), and its update with the listen request's (string) id", steps["subscribe"])
				}
				var unsub struct{ Closed string }
				if step(t, steps, "unsubscribe", &unsub); unsub.Closed != "local" {
					t.Errorf("unsubscribe: %s", steps["unsubscribe"])
				}
				if results.Count == 0 || results.WithResultType != results.Count {
					t.Errorf("results: %s, want resultType on each", steps["results"])
				}
			})
		}
	}
}
