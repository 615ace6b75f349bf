// Package wasm serves the WebAssembly page, index.html: the library,
// compiled to js/wasm (the program in ./app), answers the JSON-RPC requests
// the reader types, in the page, and sends them from the browser to a
// server over HTTP (the Fetch API) or WebSocket.
//
// Build compiles the program and copies Go's wasm_exec.js beside it, and
// Handler serves the page with them and, on the same origin, the demo
// methods that jsonrpcd serves: over HTTP at /rpc and over WebSocket at /ws.
// The command in ./serve does both:
//
//	go run ./docs/explorer/wasm/serve
//
// The package's test drives the page in a headless Chromium.
package wasm

import (
	"context"
	"embed"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// AppPackage is the import path of the program of the page.
const AppPackage = "github.com/jsonrpc-go/jsonrpc/docs/explorer/wasm/app"

//go:embed index.html page.js
var pageFiles embed.FS

// Build compiles AppPackage with GOOS=js GOARCH=wasm to dir/app.wasm and
// copies the wasm_exec.js of the same Go installation to dir, running the
// go command on PATH in the module of this package.
func Build(ctx context.Context, dir string) error {
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "app.wasm"), AppPackage)
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", AppPackage, err, out)
	}
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %v", err)
	}
	js, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "wasm_exec.js"), js, 0o644)
}

// Handler serves the page at /, the files Build wrote to dir at
// /app.wasm and /wasm_exec.js, and the demo methods at /rpc (HTTP) and /ws
// (WebSocket).
func Handler(dir string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(pageFiles))
	built := http.FileServer(http.Dir(dir))
	mux.Handle("GET /app.wasm", built)
	mux.Handle("GET /wasm_exec.js", built)
	mux.Handle("/rpc", &httprpc.Handler{Server: demo.NewServer()})
	mux.Handle("/ws", &ws.Handler{Server: demo.NewServer()})
	return mux
}
