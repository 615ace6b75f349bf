package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"slices"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/openrpc"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// mcpVersions are the revisions of MCP that -mcp speaks, newest first:
// those of the handshake and its sessions.
var mcpVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// mcpProfile is the streamhttp profile of -mcp: sessions begun by
// initialize, one message per POST, and a request of 2026-07-28
// answered UnsupportedProtocolVersion with mcpVersions.
func mcpProfile() *streamhttp.MCP {
	return &streamhttp.MCP{Versions: []string{}, Supported: mcpVersions}
}

// A mcpTool is a method of the demo server as an MCP tool: its
// description in tools/list, and how its arguments become its params.
type mcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	byPosition  []string        // the params' names in order, when it takes them only by position
	variadic    bool            // its last param by position is variadic: its array's elements are the params
	takesMeta   bool            // it has a param named _meta
}

// newMCPServer returns the server of -mcp's /mcp: MCP's handshake
// (initialize, notifications/initialized, ping) and each method of srv
// as a tool (tools/list, tools/call), described by the OpenRPC document
// of srv as it is now. A tool's call runs its method on srv with the
// context of the call, so a method that pushes (subscribe) pushes to the
// MCP session. tools/call is Blocking: each call runs on a goroutine of its
// own, so that the session goes on reading while a tool runs, answering
// pings and handing notifications/cancelled to the call it cancels; the
// session's calls run concurrently (peer.Ordered), each answered when it
// ends.
func newMCPServer(srv *jsonrpc.Server) (*jsonrpc.Server, error) {
	doc, err := openrpc.Describe(srv, discoveryInfo)
	if err != nil {
		return nil, err
	}
	var defs json.RawMessage
	if doc.Components != nil {
		if defs, err = json.Marshal(doc.Components.Schemas); err != nil {
			return nil, err
		}
	}
	var tools []mcpTool
	for _, m := range doc.Methods {
		if !validToolName(m.Name) {
			continue
		}
		t, err := toolOf(m, defs)
		if err != nil {
			return nil, fmt.Errorf("method %s: %w", m.Name, err)
		}
		tools = append(tools, t)
	}
	local := client.New(client.Local(srv))
	s := jsonrpc.NewServer(jsonrpc.UseCodes(mcp.Protocol().Codes))
	err = errors.Join(
		s.Register("initialize", func(p struct {
			ProtocolVersion string          `json:"protocolVersion"`
			Capabilities    json.RawMessage `json:"capabilities"`
			ClientInfo      json.RawMessage `json:"clientInfo"`
			Meta            json.RawMessage `json:"_meta"`
		}) (any, error) {
			if p.ProtocolVersion == "" {
				return nil, jsonrpc.ErrInvalidParams.WithData("protocolVersion is missing")
			}
			v := p.ProtocolVersion
			if !slices.Contains(mcpVersions, v) {
				v = mcpVersions[0]
			}
			return map[string]any{
				"protocolVersion": v,
				"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
				"serverInfo":      map[string]any{"name": "jsonrpcd", "version": discoveryInfo.Version},
				"instructions":    "The demo methods of jsonrpcd as tools. subscribe subscribes the session to the feed: what is published reaches it as subscription notifications.",
			}, nil
		}),
		s.Register("notifications/initialized", func() {}),
		s.Register("ping", func() struct{} { return struct{}{} }),
		s.Register("tools/list", func(p struct {
			Cursor *string         `json:"cursor"`
			Meta   json.RawMessage `json:"_meta"`
		}) (any, error) {
			if p.Cursor != nil {
				return nil, jsonrpc.ErrInvalidParams.WithData("no cursor was given: the list is in one page")
			}
			return map[string]any{"tools": tools}, nil
		}),
		s.Register("tools/call", func(ctx context.Context, p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Meta      json.RawMessage `json:"_meta"` // MCP's: progressToken
		}) (any, error) {
			i := slices.IndexFunc(tools, func(t mcpTool) bool { return t.Name == p.Name })
			if i < 0 {
				return nil, jsonrpc.ErrInvalidParams.WithData("no tool is named " + p.Name)
			}
			return callTool(transport.WithTracker(ctx, untracked{}), local, tools[i], withMeta(tools[i], p.Arguments, p.Meta)), nil
		}, jsonrpc.Blocking()),
	)
	return s, err
}

// untracked is the transport.Tracker of the call a tool makes on the
// demo server: none. The call's context is the tools/call's, which
// carries the session connection's own Tracker; a Blocking method of the
// demo server would report to it from the tool's goroutine, as if the
// session had read the call, and race with the session's reading. Under
// untracked the method runs with the tools/call's context as it is, so
// that notifications/cancelled of the tools/call cancels it, and its
// pushes and progress reports go to the session as the tools/call's.
type untracked struct{}

func (untracked) Begin(ctx context.Context, _ []byte) (context.Context, func()) { return ctx, nil }

var _ transport.Tracker = untracked{}

// withMeta returns the arguments of a call of t, with the _meta of the
// tools/call (its progressToken) as the argument _meta when t takes one
// (progress does) and args set none, so that the method reports its
// progress on the token the client gave.
func withMeta(t mcpTool, args, meta json.RawMessage) json.RawMessage {
	if len(meta) == 0 || string(meta) == "null" || !t.takesMeta {
		return args
	}
	var named map[string]json.RawMessage
	if len(args) > 0 && string(args) != "null" {
		if json.Unmarshal(args, &named) != nil {
			return args // callTool says what is wrong with them
		}
	}
	if _, ok := named["_meta"]; ok {
		return args
	}
	if named == nil {
		named = map[string]json.RawMessage{}
	}
	named["_meta"] = meta
	b, err := json.Marshal(named)
	if err != nil {
		return args
	}
	return b
}

// validToolName reports whether name is a tool name MCP 2025-11-25 asks
// for: 1 to 128 letters, digits, '_', '-' or '.'.
func validToolName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// toolOf describes method m as a tool: its input schema is an object
// with a property for each param, the document's components in $defs.
func toolOf(m openrpc.Method, defs json.RawMessage) (mcpTool, error) {
	schema := map[string]any{"type": "object"}
	props := map[string]*openrpc.Schema{}
	var required []string
	var names []string
	takesMeta := false
	for _, p := range m.Params {
		props[p.Name] = p.Schema
		names = append(names, p.Name)
		takesMeta = takesMeta || p.Name == "_meta"
		if p.Required {
			required = append(required, p.Name)
		}
	}
	schema["properties"] = props
	if required != nil {
		schema["required"] = required
	}
	if defs != nil {
		schema["$defs"] = defs
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return mcpTool{}, err
	}
	// The document's references point into its components.
	b = []byte(strings.ReplaceAll(string(b), `"#/components/schemas/`, `"#/$defs/`))
	t := mcpTool{Name: m.Name, Description: strings.TrimSpace(m.Summary + " " + m.Description), InputSchema: b, takesMeta: takesMeta}
	if m.ParamStructure == openrpc.ByPosition {
		t.byPosition = names
		t.variadic = len(m.Params) > 0 && m.Params[len(m.Params)-1].Variadic
	}
	return t, nil
}

// callTool runs t's method with args through c and returns the
// CallToolResult: the result's JSON as text, and as structuredContent
// when it is an object; an error of the method is a result with isError
// set, as MCP asks, so that the model sees it.
func callTool(ctx context.Context, c *client.Client, t mcpTool, args json.RawMessage) map[string]any {
	var params any
	if len(args) > 0 && string(args) != "null" {
		params = args
		if t.byPosition != nil {
			var named map[string]json.RawMessage
			if err := json.Unmarshal(args, &named); err != nil {
				return toolError("the arguments are not an object: " + err.Error())
			}
			var list []json.RawMessage
			for i, n := range t.byPosition {
				v, ok := named[n]
				if !ok {
					break
				}
				if t.variadic && i == len(t.byPosition)-1 {
					var rest []json.RawMessage
					if err := json.Unmarshal(v, &rest); err != nil {
						return toolError(n + " is not an array: " + err.Error())
					}
					list = append(list, rest...)
					break
				}
				list = append(list, v)
			}
			params = list
		}
	}
	res, err := c.CallRaw(ctx, t.Name, params)
	if err != nil {
		var e *jsonrpc.Error
		if errors.As(err, &e) {
			msg := fmt.Sprintf("%s (%d)", e.Message, e.Code)
			if len(e.Data) > 0 {
				msg += ": " + string(e.Data)
			}
			return toolError(msg)
		}
		return toolError(err.Error())
	}
	out := map[string]any{"content": []map[string]any{{"type": "text", "text": string(res)}}}
	if len(res) > 0 && res[0] == '{' {
		out["structuredContent"] = res
	}
	return out
}

func toolError(msg string) map[string]any {
	return map[string]any{"content": []map[string]any{{"type": "text", "text": msg}}, "isError": true}
}
