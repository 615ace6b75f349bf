package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

const (
	// chromiumPath is the browser the test drives, as the explorer's does.
	chromiumPath = "/usr/bin/chromium"

	// browserEnv set to "required" turns the skip without a browser into a
	// failure, for CI machines that install one (the explorer's variable).
	browserEnv = "JSONRPC_EXPLORER_BROWSER"

	// buildTimeout bounds the build of the page's program.
	buildTimeout = 3 * time.Minute

	// pageTimeout bounds the browser's work, from its start to its end.
	pageTimeout = 90 * time.Second

	// settleTimeout bounds the wait for the page to be ready again after an
	// action.
	settleTimeout = 20 * time.Second
)

// TestPage builds the page's program for js/wasm, serves the page and the
// demo methods on 127.0.0.1, and drives the page in a headless Chromium:
// requests answered in the page must get the answers of the library built
// natively, without reaching the server, and requests sent over HTTP and
// WebSocket must reach the server and show its answers.
func TestPage(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv(browserEnv) == "required" {
			t.Fatalf("%s=required, but there is no browser: %v", browserEnv, err)
		}
		t.Skipf("no browser: %v (install Chromium at %s; %s=required fails instead of skipping)", err, chromiumPath, browserEnv)
	}
	dir := t.TempDir()
	bctx, bcancel := context.WithTimeout(context.Background(), buildTimeout)
	defer bcancel()
	if err := Build(bctx, dir); err != nil {
		t.Fatal(err)
	}

	var rpcHits, wsHits atomic.Int64
	h := Handler(dir)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/rpc":
			rpcHits.Add(1)
		case "/ws":
			wsHits.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()

	p := newPage(t)
	p.run(chromedp.Navigate(srv.URL + "/"))
	p.settle()

	native := demo.NewServer()
	want := func(req string) string {
		return string(native.Process(context.Background(), nil, []byte(req)))
	}
	const subtract = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`
	if got := want(subtract); got != `{"jsonrpc":"2.0","result":19,"id":1}` {
		t.Fatalf("natively, %s answers %s", subtract, got)
	}
	notification := `{"jsonrpc":"2.0","method":"update","params":[1,2,3]}`
	unknown := `{"jsonrpc":"2.0","method":"nope","id":"x"}`
	const noResponse = "(no response: a notification)"

	// Answered in the page: the server sees nothing.
	for _, req := range []string{subtract, demo.Batch, unknown, `{"jsonrpc":"2.0","method"`} {
		p.checkAnswer(t, "answer", req, want(req))
	}
	if got := p.press("answer", notification); got.Text != noResponse || got.Error {
		t.Errorf("in the page, notification %s: %+v, want %q", notification, got, noResponse)
	}
	if n, m := rpcHits.Load(), wsHits.Load(); n != 0 || m != 0 {
		t.Errorf("answering in the page reached the server: %d HTTP requests, %d WebSocket", n, m)
	}

	// Sent over HTTP, through the browser's fetch.
	for i, req := range []string{subtract, demo.Batch, unknown} {
		p.checkAnswer(t, "send", req, want(req))
		if n := rpcHits.Load(); n != int64(i+1) {
			t.Errorf("after %d sends over HTTP, the server had %d requests", i+1, n)
		}
	}
	if got := p.press("send", notification); got.Text != noResponse || got.Error {
		t.Errorf("over HTTP, notification %s: %+v, want %q", notification, got, noResponse)
	}
	if n := rpcHits.Load(); n != 4 {
		t.Errorf("after the notification over HTTP, the server had %d requests, want 4", n)
	}

	// Sent over WebSocket, through the browser's WebSocket.
	p.eval(`(() => { const s = document.getElementById("transport"); s.value = "ws"; s.dispatchEvent(new Event("change")); })()`)
	if got := p.eval(`document.getElementById("endpoint").value`); got != "/ws" {
		t.Errorf("choosing WebSocket set the endpoint to %q, want /ws", got)
	}
	for _, req := range []string{`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}`, demo.Batch} {
		p.checkAnswer(t, "send", req, want(req))
	}
	if n := wsHits.Load(); n != 2 {
		t.Errorf("after two sends over WebSocket, the server had %d connections, want 2", n)
	}

	// A server that is not there shows an error.
	p.eval(`document.getElementById("transport").value = "http"; document.getElementById("endpoint").value = "/missing"`)
	if got := p.press("send", subtract); !got.Error || !strings.Contains(got.Text, "404") {
		t.Errorf("over HTTP to /missing: %+v, want an error naming 404", got)
	}
}

// shown is what an output element of the page shows.
type shown struct {
	Text  string `json:"text"`
	Error bool   `json:"error"` // shown as an error
}

// checkAnswer types req, presses the button and compares the output, as
// JSON responses (a batch in any order), with want.
func (p *page) checkAnswer(t *testing.T, button, req, want string) {
	t.Helper()
	got := p.press(button, req)
	var g, w any
	if got.Error || json.Unmarshal([]byte(got.Text), &g) != nil || json.Unmarshal([]byte(want), &w) != nil || !testutil.SameResponse(g, w) {
		t.Errorf("%s %s: the page shows %+v, want %s", button, req, got, want)
	}
}

// page is a tab of a headless Chromium.
type page struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string // console errors, uncaught exceptions
}

// newPage starts a browser with the flags of the explorer's test, and at
// cleanup reports every console error and exception and closes it.
func newPage(t *testing.T) *page {
	t.Helper()
	p := &page{t: t}
	ctx, cancel := context.WithTimeout(context.Background(), pageTimeout)
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		// The machines that run the tests may have no network: keep the
		// browser from reaching for one.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	tctx, tcancel := chromedp.NewContext(actx, chromedp.WithListener(p.listen))
	p.ctx = tctx
	t.Cleanup(func() {
		p.mu.Lock()
		for _, msg := range p.problems {
			t.Errorf("browser console: %s", msg)
		}
		p.mu.Unlock()
		chromedp.Cancel(tctx)
		tcancel()
		acancel()
		cancel()
	})
	if err := chromedp.Do(tctx); err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}
	return p
}

// listen records the console errors and uncaught exceptions of the tab. A
// failed fetch of the missing endpoint is an expected log entry; the page
// shows it, which the test checks.
func (p *page) listen(ev any) {
	var problem string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		problem = "uncaught exception: " + ev.ExceptionDetails.Text
		if e := ev.ExceptionDetails.Exception; e != nil {
			problem += " " + e.Description
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError {
			var args []string
			for _, a := range ev.Args {
				args = append(args, a.Description+string(a.Value))
			}
			problem = "console.error(" + strings.Join(args, ", ") + ")"
		}
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError && !strings.HasSuffix(ev.Entry.URL, "/missing") {
			problem = fmt.Sprintf("%s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
		}
	}
	if problem != "" {
		p.mu.Lock()
		p.problems = append(p.problems, problem)
		p.mu.Unlock()
	}
}

// run runs chromedp actions in the tab, failing the test on an error.
func (p *page) run(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("in the browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page and returns its value
// as a string.
func (p *page) eval(expr string) string {
	p.t.Helper()
	var s string
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		p.t.Fatalf("evaluating %.120s: %v", expr, err)
	}
	if v != nil {
		s = fmt.Sprint(v)
	}
	return s
}

// settleJS runs a script (the first verb), waits up to a time (the second,
// in milliseconds) for the page to be ready, and returns what the output
// element with the id (the third) shows.
const settleJS = `(async () => {
  %s
  const root = document.getElementById("wasm");
  const deadline = performance.now() + %d;
  while (root.dataset.state !== "ready") {
    if (root.dataset.state === "error") throw new Error("the page shows an error: " + document.getElementById("status").textContent);
    if (performance.now() > deadline) throw new Error("the page is not ready; its state is " + root.dataset.state);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const out = document.getElementById(%q);
  return out ? { text: out.textContent, error: out.classList.contains("error") } : { text: "", error: false };
})()`

// settle waits for the page to be ready.
func (p *page) settle() {
	p.t.Helper()
	p.act("", "answer-out")
}

// press types req into the request box, presses the button with the id
// ("answer" or "send"), and returns what its output shows once the page is
// ready again.
func (p *page) press(button, req string) shown {
	p.t.Helper()
	b, _ := json.Marshal(req)
	script := fmt.Sprintf(`document.getElementById("request").value = %s;
  document.getElementById(%q).click();
  document.getElementById("wasm").dataset.state === "ready" && (() => { throw new Error("the button did not start a request") })();`, b, button)
	return p.act(script, button+"-out")
}

func (p *page) act(script, out string) shown {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[shown](fmt.Sprintf(settleJS, script, settleTimeout.Milliseconds(), out), chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("in the page: %v", err)
	}
	return v
}
