package streamhttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// A method that reports progress answers with an event stream: the
// progress notifications, then the answer. A call that sends nothing
// before its answer gets it as one JSON document.
func ExampleHandler() {
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("index", func(ctx context.Context, p struct {
		Files int `json:"files"`
	}) (string, error) {
		for i := 1; i <= p.Files; i++ {
			peer.ProgressOf(ctx).Report(ctx, peer.MCPProgress{Progress: float64(i), Total: float64(p.Files)})
		}
		return "indexed", nil
	}, jsonrpc.Blocking())
	ts := httptest.NewServer(&streamhttp.Handler{Server: srv})
	defer ts.Close()

	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(
		`{"jsonrpc":"2.0","method":"index","params":{"files":2,"_meta":{"progressToken":"t"}},"id":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Header.Get("Content-Type"))
	fmt.Print(string(body))
	// Output:
	// text/event-stream
	// event: message
	// data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"t","total":2}}
	//
	// event: message
	// data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2,"progressToken":"t","total":2}}
	//
	// event: message
	// data: {"jsonrpc":"2.0","result":"indexed","id":1}
}
