package mcpserver_test

import (
	"context"
	"os"
	"strings"

	"github.com/jsonrpc-go/jsonrpc/mcpserver"
)

type weatherArgs struct {
	City string `json:"city" description:"The city to report on."`
}

type weather struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}

// A tool in one line: its input schema from weatherArgs, its output schema
// from weather, its result structured content. Served here over a stream
// of lines, as ServeStdio serves an agent, with a client of 2026-07-28
// and one of 2025-11-25.
func ExampleAddTool() {
	s := mcpserver.New("weather", "1.0.0", nil)
	mcpserver.AddTool(s, "forecast", func(ctx context.Context, in weatherArgs) (weather, error) {
		return weather{City: in.City, Celsius: 21.5}, nil
	}, mcpserver.Description("Tomorrow's temperature in a city."))

	input := strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"agent","version":"1"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/list"}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"forecast","arguments":{"city":"Lyon"}}}
`)
	s.ServeStream(context.Background(), input, os.Stdout)
	// Output:
	// {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"weather","version":"1.0.0"}},"id":2}
	// {"jsonrpc":"2.0","result":{"tools":[{"name":"forecast","description":"Tomorrow's temperature in a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"The city to report on."}},"required":["city"]},"outputSchema":{"type":"object","properties":{"celsius":{"type":"number"},"city":{"type":"string"}},"required":["city","celsius"]}}]},"id":3}
	// {"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}},"content":[{"type":"text","text":"{\"city\":\"Lyon\",\"celsius\":21.5}"}],"resultType":"complete","structuredContent":{"city":"Lyon","celsius":21.5}},"id":1}
}
