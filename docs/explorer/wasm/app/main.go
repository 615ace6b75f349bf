//go:build js

// Command app is the program of the WebAssembly page (../index.html),
// built with GOOS=js GOARCH=wasm: the library running in the browser.
//
// It sets the global jsonrpcWasm to an object of two functions, each
// returning a Promise of a string, and then dispatches the event
// "jsonrpc-wasm-ready" on window:
//
//	jsonrpcWasm.process(request)              // answered in the page
//	jsonrpcWasm.send(transport, url, request) // answered by a server
//
// process answers a JSON-RPC request document with a jsonrpc.Server that
// serves the demo methods (package demo), as jsonrpcd does; send sends it
// to a server at url with the library's client channels: over HTTP
// (transport "http"; net/http in a browser is the Fetch API) or over
// WebSocket (transport "ws"; coder/websocket in a browser is its
// WebSocket). Both resolve to the response document, or to "" when the
// request is a notification, which has none.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"
	"time"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// sendTimeout bounds one send, from the connection to the response.
const sendTimeout = 10 * time.Second

func main() {
	srv := demo.NewServer()
	api := js.Global().Get("Object").New()
	api.Set("process", js.FuncOf(func(_ js.Value, args []js.Value) any {
		req := stringArg(args, 0)
		return promise(func() (string, error) {
			return string(srv.Process(context.Background(), nil, []byte(req))), nil
		})
	}))
	api.Set("send", js.FuncOf(func(_ js.Value, args []js.Value) any {
		transport, url, req := stringArg(args, 0), stringArg(args, 1), stringArg(args, 2)
		return promise(func() (string, error) { return send(transport, url, []byte(req)) })
	}))
	js.Global().Set("jsonrpcWasm", api)
	js.Global().Call("dispatchEvent", js.Global().Get("Event").New("jsonrpc-wasm-ready"))
	select {} // the functions live as long as the page
}

// stringArg returns args[i] as a string, or "" when it is missing.
func stringArg(args []js.Value, i int) string {
	if i >= len(args) {
		return ""
	}
	return args[i].String()
}

// promise returns a JavaScript Promise of f's result, run on a goroutine of
// its own: a callback from JavaScript must not block, and a call may wait
// for the network or a timer.
func promise(f func() (string, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject := args[0], args[1]
		executor.Release() // the Promise constructor calls it once, now
		go func() {
			s, err := f()
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(s)
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}

// send sends req to the server at url over a new channel of the transport
// and returns the response document, or "" for a notification.
func send(transport, url string, req []byte) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	var ch client.Channel
	switch transport {
	case "http":
		ch = client.HTTP(url, nil)
	case "ws":
		var err error
		if ch, err = ws.Dial(ctx, url, nil); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("unknown transport %q (want http or ws)", transport)
	}
	defer ch.Close()
	if err := ch.Write(ctx, req); err != nil {
		return "", err
	}
	if err := ch.Flush(); err != nil {
		return "", err
	}
	if !expectsResponse(req) {
		return "", nil
	}
	type received struct {
		msg []byte
		err error
	}
	done := make(chan received, 1)
	go func() {
		msg, err := ch.Read()
		done <- received{msg, err}
	}()
	select {
	case r := <-done:
		return string(r.msg), r.err
	case <-ctx.Done():
		return "", errors.New("no response within " + sendTimeout.String())
	}
}

// expectsResponse reports whether a server answers the document req: all
// but a notification (an object with a string method and no id) and a
// batch of notifications. What is not JSON gets a parse error.
func expectsResponse(req []byte) bool {
	var v any
	if json.Unmarshal(req, &v) != nil {
		return true
	}
	if batch, ok := v.([]any); ok {
		for _, r := range batch {
			if !isNotification(r) {
				return true
			}
		}
		return len(batch) == 0 // an empty batch is an invalid request
	}
	return !isNotification(v)
}

func isNotification(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, hasID := obj["id"]
	_, isString := obj["method"].(string)
	return isString && !hasID
}
