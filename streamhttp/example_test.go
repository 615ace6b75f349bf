package streamhttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
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
			progress.Of(ctx).Report(ctx, mcp.Progress{Progress: float64(i), Total: float64(p.Files)})
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

// Under the MCP profile, a request of MCP 2026-07-28 carries headers that
// mirror its body; one that does not match is refused before it runs.
func ExampleMCP() {
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("tools/call", func(p struct{ Name string }) string { return "called " + p.Name })
	ts := httptest.NewServer(&streamhttp.Handler{Server: srv, MCP: &streamhttp.MCP{}})
	defer ts.Close()

	for _, name := range []string{"get_weather", "delete_everything"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, string(body))
	}
	// Output:
	// 200 {"jsonrpc":"2.0","result":"called get_weather","id":1}
	// 400 {"jsonrpc":"2.0","error":{"code":-32020,"message":"Header mismatch: Mcp-Name header value 'delete_everything' does not match body value of params.name"},"id":1}
}
