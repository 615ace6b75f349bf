package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// An Implementation names a program and its version (serverInfo).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Options configure a Server. The zero Options, or nil, are the defaults.
type Options struct {
	// Title is the server's name for people (serverInfo.title).
	Title string
	// Instructions tell the client how to use the server, for its model
	// (initialize's and server/discover's instructions); "" sends none.
	Instructions string
	// ListTTL is how long a client of 2026-07-28 may keep what
	// server/discover and the lists answer (ttlMs); 0 means no time at
	// all. The lists of a Server whose registrations are all made before
	// it serves do not change.
	ListTTL time.Duration
	// RPC are options of the jsonrpc.Server the Server is served by,
	// after its own (jsonrpc.AllowUnknownFields, jsonrpc.UseCodes with
	// MCP's codes, and an interceptor that reads each request's _meta):
	// its limits, its logger, interceptors of the program's own.
	RPC []jsonrpc.Option
}

// A Server is an MCP server: the tools, resources, prompts and
// completions registered on it, served over stdio (ServeStdio,
// ServeStream) and Streamable HTTP (HTTPHandler), both revisions of MCP
// on each, decided for each request (see the package documentation).
//
// Its methods are safe for concurrent use by multiple goroutines, and
// registrations may be made while it serves: a request sees those made
// before it began.
type Server struct {
	info Implementation
	opts Options
	rpc  *jsonrpc.Server
	reg  atomic.Pointer[registry] // replaced whole at each registration

	mu sync.Mutex // held while a registration replaces reg

	smu      sync.Mutex // protects the field below
	sessions map[*peer.Conn]*session

	lmu       sync.Mutex // protects the field below
	listeners map[*listener]struct{}
}

// A registry is what is registered: immutable once published.
type registry struct {
	tools         []*tool
	toolIndex     map[string]*tool
	resources     []*resource
	resourceIndex map[string]*resource
	templates     []*template
	prompts       []*prompt
	promptIndex   map[string]*prompt
	complete      func(ctx context.Context, req *CompleteRequest) (Completion, error)
}

// register publishes a copy of the registry that f changes.
func (s *Server) register(f func(*registry)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.reg.Load()
	reg := *old
	reg.tools = append([]*tool(nil), old.tools...)
	reg.toolIndex = maps.Clone(old.toolIndex)
	reg.resources = append([]*resource(nil), old.resources...)
	reg.resourceIndex = maps.Clone(old.resourceIndex)
	reg.templates = append([]*template(nil), old.templates...)
	reg.prompts = append([]*prompt(nil), old.prompts...)
	reg.promptIndex = maps.Clone(old.promptIndex)
	f(&reg)
	s.reg.Store(&reg)
}

// New returns a Server that names itself name and version (serverInfo),
// with opts (nil for the defaults). It serves nothing until a tool, a
// resource or a prompt is registered, but MCP's own methods (initialize,
// server/discover, ping, logging/setLevel).
func New(name, version string, opts *Options) *Server {
	s := &Server{
		info:      Implementation{Name: name, Version: version},
		sessions:  map[*peer.Conn]*session{},
		listeners: map[*listener]struct{}{},
	}
	if opts != nil {
		s.opts = *opts
		s.opts.RPC = append([]jsonrpc.Option(nil), opts.RPC...)
	}
	s.info.Title = s.opts.Title
	s.reg.Store(&registry{toolIndex: map[string]*tool{}, resourceIndex: map[string]*resource{}, promptIndex: map[string]*prompt{}})
	// Clients send fields this server does not model (those of later
	// revisions, and _meta, which intercept reads).
	rpcOpts := append([]jsonrpc.Option{jsonrpc.AllowUnknownFields(), jsonrpc.UseCodes(mcp.Protocol().Codes), jsonrpc.Intercept(s.intercept)}, s.opts.RPC...)
	s.rpc = jsonrpc.NewServer(rpcOpts...)
	s.rpc.MustRegister("server/discover", s.discover)
	s.rpc.MustRegister("initialize", s.initialize)
	s.rpc.MustRegister("notifications/initialized", func() {})
	s.rpc.MustRegister("ping", func() struct{} { return struct{}{} })
	s.rpc.MustRegister("logging/setLevel", s.setLevel)
	// Blocking: a tool may wait, on a goroutine of its own, and see its
	// context cancelled by notifications/cancelled.
	s.rpc.MustRegister("tools/list", s.listTools)
	s.rpc.MustRegister("tools/call", s.callTool, jsonrpc.Blocking())
	s.rpc.MustRegister("resources/list", s.listResources)
	s.rpc.MustRegister("resources/read", s.readResource, jsonrpc.Blocking())
	s.rpc.MustRegister("resources/templates/list", s.listTemplates)
	s.rpc.MustRegister("resources/subscribe", s.subscribe)
	s.rpc.MustRegister("resources/unsubscribe", s.unsubscribe)
	s.rpc.MustRegister("prompts/list", s.listPrompts)
	s.rpc.MustRegister("prompts/get", s.getPrompt, jsonrpc.Blocking())
	s.rpc.MustRegister("completion/complete", s.complete, jsonrpc.Blocking())
	// Blocking: a subscription lasts until it is cancelled.
	s.rpc.MustRegister("subscriptions/listen", s.listen, jsonrpc.Blocking())
	return s
}

// JSONRPC returns the jsonrpc.Server the Server is served by, for methods
// of the program's own beside MCP's (they take the _meta of 2026-07-28,
// see the package documentation), or to serve it on a host of the
// program's choosing with mcp.Protocol().
func (s *Server) JSONRPC() *jsonrpc.Server { return s.rpc }

// ttl is ListTTL in milliseconds.
func (s *Server) ttl() int64 { return s.opts.ListTTL.Milliseconds() }

// ServeStdio serves one client on standard input and output, one JSON
// message per line, as an agent starts a local server, until the input
// ends or ctx is done: ServeStream on os.Stdin and os.Stdout.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.ServeStream(ctx, os.Stdin, os.Stdout)
}

// ServeStream serves one client that writes to r and reads w, one JSON
// message per line (package stream with framing.Line and mcp.Protocol()),
// without idle or read timeouts, until r ends or ctx is done; the calls
// still running then are answered -32603. It returns nil when the input
// ended.
func (s *Server) ServeStream(ctx context.Context, r io.Reader, w io.Writer) error {
	srv := &stream.Server{
		Server:   s.rpc,
		Framing:  framing.Line,
		Protocol: mcp.Protocol(),
		Limits: transport.Limits{
			IdleTimeout: -1, // an agent may stay idle as long as it likes
			ReadTimeout: -1,
		},
	}
	return srv.ServeConn(ctx, stream.ReadWriteCloser(r, w))
}

// HTTPHandler returns a new Streamable HTTP handler of the Server (MCP's
// profile of package streamhttp): both revisions on one endpoint,
// 2025-11-25's sessions begun by initialize and 2026-07-28's stateless
// requests, their headers checked against their bodies. Its fields may be
// set before it serves (Logger, Limits, Replica, SessionStore, ...).
func (s *Server) HTTPHandler() *streamhttp.Handler {
	return &streamhttp.Handler{
		Server:   s.rpc,
		Protocol: mcp.Protocol(),
		MCP:      &streamhttp.MCP{Versions: []string{Version20260728}, Supported: supported},
	}
}

type (
	toolsCapability     struct{}
	resourcesCapability struct {
		Subscribe bool `json:"subscribe"`
	}
	serverCapabilities struct {
		Tools       *toolsCapability     `json:"tools,omitempty"`
		Resources   *resourcesCapability `json:"resources,omitempty"`
		Prompts     *struct{}            `json:"prompts,omitempty"`
		Logging     struct{}             `json:"logging"`
		Completions *struct{}            `json:"completions,omitempty"`
	}
	discoverResult struct {
		resultFields
		SupportedVersions []string           `json:"supportedVersions"`
		Capabilities      serverCapabilities `json:"capabilities"`
		Instructions      string             `json:"instructions,omitempty"`
		cacheFields
	}
	initializeParams struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      json.RawMessage `json:"clientInfo"`
	}
	initializeResult struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    serverCapabilities `json:"capabilities"`
		ServerInfo      Implementation     `json:"serverInfo"`
		Instructions    string             `json:"instructions,omitempty"`
	}
)

// capabilities are what is registered: tools, resources (which may be
// subscribed to), prompts, completions; and logging, always.
func (s *Server) capabilities() serverCapabilities {
	reg := s.reg.Load()
	var c serverCapabilities
	if len(reg.tools) > 0 {
		c.Tools = &toolsCapability{}
	}
	if len(reg.resources) > 0 || len(reg.templates) > 0 {
		c.Resources = &resourcesCapability{Subscribe: true}
	}
	if len(reg.prompts) > 0 {
		c.Prompts = &struct{}{}
	}
	if reg.complete != nil {
		c.Completions = &struct{}{}
	}
	return c
}

func (s *Server) discover(ctx context.Context, _ struct{}) discoverResult {
	r := RequestOf(ctx)
	return discoverResult{
		resultFields:      r.complete(),
		SupportedVersions: supported,
		Capabilities:      s.capabilities(),
		Instructions:      s.opts.Instructions,
		cacheFields:       r.cache(s.ttl()),
	}
}

// initialize negotiates the version of the connection's requests that do
// not carry their own: the one the client asked for when the server
// speaks it, and 2025-11-25 otherwise, as MCP's version negotiation says;
// the client then decides whether it can go on.
func (s *Server) initialize(ctx context.Context, p initializeParams) (initializeResult, error) {
	if p.ProtocolVersion == "" {
		return initializeResult{}, invalidParams("initialize: protocolVersion is required")
	}
	caps, ok := parseCapabilities(p.Capabilities)
	if !ok {
		return initializeResult{}, invalidParams("initialize: capabilities must be an object")
	}
	v := negotiate(p.ProtocolVersion)
	ss := s.sessionOf(ctx, true)
	ss.mu.Lock()
	ss.version, ss.caps = v, caps
	ss.mu.Unlock()
	return initializeResult{ProtocolVersion: v, Capabilities: s.capabilities(), ServerInfo: s.info, Instructions: s.opts.Instructions}, nil
}
