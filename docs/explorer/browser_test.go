package explorer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

const (
	// chromiumPath is the browser the tests drive.
	chromiumPath = "/usr/bin/chromium"

	// browserEnv set to "required" turns the skip without a browser into a
	// failure, for CI machines that install one.
	browserEnv = "JSONRPC_EXPLORER_BROWSER"

	// pageTimeout bounds all the browser work of one test, from the start of
	// the browser to its end. Each test takes 1 to 7 s on a busy 2-core
	// machine, and each result set added to docs/bench adds about 0.2 s to
	// TestPageShowsEverySet.
	pageTimeout = 60 * time.Second

	// settleTimeout bounds the wait for one view to render.
	settleTimeout = 10 * time.Second
)

// page is one tab of a headless Chromium that shows the explorer, served
// with the rest of docs/ by an httptest server on 127.0.0.1.
type page struct {
	t    *testing.T
	ctx  context.Context
	base string // URL of docs/explorer/, ending in "/"

	mu       sync.Mutex // protects the fields below
	problems []string   // console errors, uncaught exceptions, failed loads
	warnings []string   // console and browser log warnings, logged only
}

// newPage starts a browser on the explorer. extra maps URL paths, such as
// "/bench/index.json", to JSON served instead of the file there. It skips
// the test when there is no browser, unless browserEnv says one is
// required. At cleanup it reports every console error and exception as a
// test error, and closes the browser.
func newPage(t *testing.T, extra map[string][]byte) *page {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv(browserEnv) == "required" {
			t.Fatalf("%s=required, but there is no browser: %v", browserEnv, err)
		}
		t.Skipf("no browser: %v (install Chromium at %s; %s=required fails instead of skipping)", err, chromiumPath, browserEnv)
	}

	files := http.FileServer(http.Dir(".."))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, ok := extra[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "application/json")
			w.Write(b)
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	p := &page{t: t, base: srv.URL + "/explorer/"}
	out := new(lockedBuffer)
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
		chromedp.CombinedOutput(out),
	)
	tctx, tcancel := chromedp.NewContext(actx, chromedp.WithListener(p.listen))
	p.ctx = tctx
	t.Cleanup(func() {
		p.mu.Lock()
		for _, msg := range p.problems {
			t.Errorf("browser console: %s", msg)
		}
		for _, msg := range p.warnings {
			t.Logf("browser console: %s", msg)
		}
		p.mu.Unlock()
		if err := chromedp.Cancel(tctx); err != nil && ctx.Err() == nil {
			t.Logf("closing the browser: %v", err)
		}
		tcancel()
		acancel() // waits for the browser to exit
		cancel()
		if t.Failed() {
			t.Logf("browser output (last 4 KiB):\n%s", out.tail(4096))
		}
	})
	if err := chromedp.Do(tctx); err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}
	return p
}

// listen records the console errors and exceptions of the tab. The tab
// calls it in order with the other messages of the browser, so a problem
// that happens before a command's reply is recorded when the command
// returns.
func (p *page) listen(ev any) {
	var problem, warning string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		problem = "uncaught exception: " + d.Text
		if d.Exception != nil {
			problem += " " + d.Exception.Description
		}
		problem += fmt.Sprintf(" at %s:%d:%d", d.URL, d.LineNumber+1, d.ColumnNumber+1)
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range ev.Args {
			if a.Description != "" {
				args = append(args, a.Description)
			} else {
				args = append(args, string(a.Value))
			}
		}
		msg := fmt.Sprintf("console.%s(%s)", ev.Type, strings.Join(args, ", "))
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
			problem = msg
		case runtime.ConsoleAPICalledTypeWarning:
			warning = msg
		}
	case *cdplog.EventEntryAdded:
		msg := fmt.Sprintf("%s %s: %s %s", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text, ev.Entry.URL)
		switch ev.Entry.Level {
		case cdplog.EntryLevelError:
			problem = msg
		case cdplog.EntryLevelWarning:
			warning = msg
		}
	}
	if problem == "" && warning == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if problem != "" {
		p.problems = append(p.problems, problem)
	}
	if warning != "" {
		p.warnings = append(p.warnings, warning)
	}
}

// takeProblems returns the problems recorded so far and forgets them.
func (p *page) takeProblems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	ps := p.problems
	p.problems = nil
	return ps
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluating %.120s: %v", expr, err)
	}
	return v
}

// js returns v as a JavaScript literal.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// open loads the explorer with the URL hash (with its "#", or empty) and
// returns the view once it has rendered.
func (p *page) open(hash string) view {
	p.t.Helper()
	// Through about:blank, so that a change of the hash alone loads the
	// page again.
	if err := chromedp.Do(p.ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(p.base+hash)); err != nil {
		p.t.Fatalf("opening %s%s: %v", p.base, hash, err)
	}
	return p.act("")
}

// act marks the view stale, runs a script that changes it, and returns the
// view once the page has rendered again, all in one round trip. An empty
// script waits for the first view of a page that loads.
func (p *page) act(script string) view {
	p.t.Helper()
	if script != "" {
		script = `document.getElementById("explorer").dataset.state = "stale";` + "\n" + script + ";"
	}
	expr := fmt.Sprintf(settleJS, script, settleTimeout.Milliseconds(), readViewJS)
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[view](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("waiting for the explorer to render: %v", err)
	}
	if v.State != "ready" {
		p.t.Fatalf("the explorer shows an error: %q", v.Error)
	}
	return v
}

// settleJS runs a script (the first verb), waits up to a time (the second,
// in milliseconds) for the page to render, then reads the view (the third).
const settleJS = `(async () => {
  %s
  const root = document.getElementById("explorer");
  const deadline = performance.now() + %d;
  while (root.dataset.state !== "ready" && root.dataset.state !== "error") {
    if (performance.now() > deadline) throw new Error("the explorer did not render; its state is " + root.dataset.state);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return %s;
})()`

// choose selects value in the select element with the id, as a reader
// does, and returns the new view.
func (p *page) choose(id, value string) view {
	p.t.Helper()
	return p.act(fmt.Sprintf(`((id, value) => {
  const s = document.getElementById(id);
  if (![...s.options].some((o) => o.value === value)) throw new Error("no option " + JSON.stringify(value) + " in #" + id);
  s.value = value;
  s.dispatchEvent(new Event("change", { bubbles: true }));
})(%s, %s)`, js(id), js(value)))
}

// click clicks the button with the id and returns the new view.
func (p *page) click(id string) view {
	p.t.Helper()
	return p.act(fmt.Sprintf(`document.getElementById(%s).click()`, js(id)))
}

// lockedBuffer is a bytes.Buffer safe for concurrent use by multiple
// goroutines: the browser writes its output while the test reads it.
type lockedBuffer struct{ testutil.Buffer }

// tail returns the last n bytes written, less the lines that only say
// that the machine has no D-Bus, which Chromium logs many times at start.
func (b *lockedBuffer) tail(n int) string {
	var kept []string
	for line := range strings.Lines(b.String()) {
		if !strings.Contains(line, "ERROR:dbus/") {
			kept = append(kept, line)
		}
	}
	s := strings.Join(kept, "")
	if len(s) > n {
		s = s[len(s)-n:]
	}
	return s
}
