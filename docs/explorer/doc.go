// Package explorer holds the test of the benchmark explorer, the static page
// docs/explorer/index.html that shows the result sets of docs/bench.
//
// The package has no code of its own. Its tests check that
// docs/bench/index.json lists every result set, and drive the page in a
// headless Chromium (github.com/chromedp/chromedp): the rows and numbers it
// shows, its filters, its side-by-side comparison, and that it logs no
// errors. They skip without /usr/bin/chromium, unless the environment sets
// JSONRPC_EXPLORER_BROWSER=required. After adding a result set, rewrite the
// index with
//
//	go test -run TestIndex -update
//
// The page and the tests live in a module of their own, so that the module
// github.com/jsonrpc-go/jsonrpc does not depend on chromedp.
package explorer
