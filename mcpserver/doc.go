// Package mcpserver serves the Model Context Protocol from Go functions:
// a function becomes a tool in one line, its input and output schemas
// inferred from its types, and the server speaks both revisions of MCP
// over stdio and Streamable HTTP.
//
//	type addArgs struct {
//		A int `json:"a" description:"The first addend."`
//		B int `json:"b" description:"The second addend."`
//	}
//
//	s := mcpserver.New("calc", "1.0.0", nil)
//	mcpserver.AddTool(s, "add", func(ctx context.Context, in addArgs) (int, error) {
//		return in.A + in.B, nil
//	}, mcpserver.Description("Adds two integers."))
//	http.Handle("/mcp", s.HTTPHandler()) // or s.ServeStdio(ctx)
//
// # Registration
//
// AddTool registers a tool, AddResource a resource, AddResourceTemplate
// the resources of a URI template, AddPrompt a prompt, HandleCompletion
// the completion of their arguments. The rules of a tool:
//
//   - Its input is a struct (or a pointer to one), a map with string
//     keys, or json.RawMessage. Its input schema is inferred from the
//     struct as package openrpc infers a param's (openrpc.SchemaOf, JSON
//     Schema 2020-12): json tags name the properties, a field without
//     omitempty or omitzero is required, a tag description:"..."
//     describes it, named struct types are under $defs. InputSchema gives
//     a schema of one's own, passed through whole.
//   - Its output is a *Result or a Result (said whole), a string (a text),
//     a Content (Text, Image, Audio, Embedded, Link) or a []Content, or
//     any other value: its JSON, as structuredContent when it is an
//     object, with an output schema inferred from its type (OutputSchema
//     gives one), and as a text.
//   - Its options (ToolOption) set its Description, Title, Annotations
//     and schemas. A name is 1 to 128 letters, digits, '_', '-' or '.'.
//
// Registration panics, as init code should, for what cannot be served: a
// name that is not valid or is taken, an input that is not an object.
//
//	func AddTool[In, Out any](s *Server, name string, fn func(context.Context, In) (Out, error), opts ...ToolOption)
//	func (s *Server) AddResource(r Resource, read func(ctx context.Context, uri string) ([]ResourceContents, error))
//	func (s *Server) AddResourceTemplate(t ResourceTemplate, read func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error))
//	func (s *Server) AddPrompt(p Prompt, get func(ctx context.Context, args map[string]string) (*PromptResult, error))
//	func (s *Server) HandleCompletion(f func(ctx context.Context, req *CompleteRequest) (Completion, error))
//
// # Revisions
//
// A Server speaks MCP 2026-07-28, 2025-11-25 and 2025-06-18, and decides
// for each request which one it is served under:
//
//   - A request whose params._meta names its protocol version
//     (io.modelcontextprotocol/protocolVersion) is a request of
//     2026-07-28, stateless: it carries its client's capabilities
//     (io.modelcontextprotocol/clientCapabilities, required) and belongs
//     to no session. Another version is answered with
//     UnsupportedProtocolVersion (CodeUnsupportedVersion, with the
//     versions supported); a malformed _meta with -32602; the methods of
//     the handshake (initialize, ping, resources/subscribe,
//     logging/setLevel) with -32601. Every result carries its resultType
//     and, in its _meta, the server's identity; server/discover, the lists
//     and resources/read carry their caching hints (ttlMs, cacheScope).
//   - Any other request belongs to the revisions of the handshake:
//     initialize negotiates 2025-11-25 or 2025-06-18 for its connection
//     (over stdio, the one connection; over Streamable HTTP, the session
//     that initialize begins), and before it only ping is answered
//     (-32602 for the others). server/discover and subscriptions/listen
//     need the _meta of 2026-07-28.
//
// Over Streamable HTTP, HTTPHandler applies the rules of the transport to
// each request as package streamhttp's MCP profile does: a stateless
// request POSTed alone with its headers mirroring its body, a session
// of 2025-11-25 with its GET stream and resumption.
//
// Under 2026-07-28 every method, the program's own ones registered on
// JSONRPC() included, takes the _meta in its params: the server is a
// jsonrpc.Server with jsonrpc.AllowUnknownFields, so that a method with
// params ignores the members that name none of them, and one without
// params ignores them all. RequestOf(ctx).Meta gives it to any method.
//
// # Contexts
//
// A tool, a resource's read, a prompt's get and a completion are given
// the context of their call, with its Request (RequestOf): the revision,
// the _meta as sent, the client's capabilities. On it:
//
//   - progress.Of(ctx).Report(ctx, mcp.Progress{...}) reports the call's
//     progress, when the client gave a progressToken (package
//     protocol/progress; it reports nothing otherwise);
//   - Log(ctx, level, data) sends a log message (notifications/message),
//     unless the session asked for more severe ones (logging/setLevel),
//     or, to a stateless request, at the level its _meta asks for
//     (io.modelcontextprotocol/logLevel; none without it);
//   - ctx is cancelled when the client cancels the call
//     (notifications/cancelled), after which the call gets no answer,
//     or when the input ends (answered -32603);
//   - ResourceUpdated tells the subscribers of a resource that it changed
//     (resources/subscribe, or 2026-07-28's subscriptions/listen).
//
// # Errors
//
// A tool's error is a result with isError, which the model reads, but for
// an ArgumentError (arguments that do not fit: a protocol error, -32602,
// under 2025-06-18) and a *jsonrpc.Error (a protocol error with its
// code). An unknown tool or prompt is -32602, an unknown resource
// CodeResourceNotFound (-32602 under 2026-07-28; ErrResourceNotFound from
// a read function says so). The library's own refusals (limits, shutdown)
// are answered with MCP's codes for them (package protocol/mcp).
//
// # Concurrency
//
// A Server is safe for concurrent use by multiple goroutines. Tools,
// reads, prompts and completions run each on a goroutine of their own
// (jsonrpc.Blocking), and must be safe for concurrent use themselves.
// Registrations may be made while the Server serves; the lists of a
// client of 2026-07-28 may then be stale for ListTTL.
//
// # Sessions
//
// The state of the handshake (the revision, the client's capabilities,
// the resources it subscribed to, its log level) is its connection's: over
// stdio the one connection, over Streamable HTTP each session's, forgotten
// when it ends. A stateless request has none.
package mcpserver
