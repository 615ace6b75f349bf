// Command serve builds the WebAssembly page of package wasm and serves it,
// with the demo methods over HTTP at /rpc and over WebSocket at /ws, until
// interrupted:
//
//	go run ./docs/explorer/wasm/serve            # http://127.0.0.1:8090/
//	go run ./docs/explorer/wasm/serve -addr 127.0.0.1:9000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"

	"github.com/jsonrpc-go/jsonrpc/docs/explorer/wasm"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "the `address` to serve on")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *addr); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, addr string) error {
	dir, err := os.MkdirTemp("", "jsonrpc-wasm-page-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintln(os.Stderr, "building the page's program for GOOS=js GOARCH=wasm...")
	if err := wasm.Build(ctx, dir); err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: wasm.Handler(dir)}
	context.AfterFunc(ctx, func() { srv.Close() })
	fmt.Fprintf(os.Stderr, "serving the page on http://%s/ (interrupt to stop)\n", l.Addr())
	if err := srv.Serve(l); err != http.ErrServerClosed {
		return err
	}
	return nil
}
