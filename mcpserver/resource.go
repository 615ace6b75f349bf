package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// A Resource is a resource as resources/list describes it.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
	// TTL is how long a client of 2026-07-28 may keep what
	// resources/read answers (ttlMs); 0 means no time at all.
	TTL time.Duration `json:"-"`
}

// A ResourceTemplate describes resources by a URI template
// (resources/templates/list), whose variables ({id}) each match one
// segment of a URI: a non-empty run of characters without '/'.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// TTL is as Resource's.
	TTL time.Duration `json:"-"`
}

// ErrResourceNotFound is what a resource's read function returns for a
// URI that names none: it is answered -32602 under 2026-07-28, and
// CodeResourceNotFound (-32002) before, with data naming the URI.
var ErrResourceNotFound = errors.New("mcpserver: resource not found")

type (
	resource struct {
		Resource
		read func(ctx context.Context, uri string) ([]ResourceContents, error)
	}
	template struct {
		ResourceTemplate
		pattern *regexp.Regexp // what its URIs match
		names   []string       // its variables, in order
		read    func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error)
	}
)

// AddResource registers the resource r, whose contents read returns,
// for resources/list and resources/read. It panics for a resource without
// a URI or a name, or one registered already.
func (s *Server) AddResource(r Resource, read func(ctx context.Context, uri string) ([]ResourceContents, error)) {
	if r.URI == "" || r.Name == "" || read == nil {
		panic("mcpserver: a resource needs a URI, a name and a read function")
	}
	s.register(func(reg *registry) {
		if reg.resourceIndex[r.URI] != nil {
			panic("mcpserver: the resource " + r.URI + " is registered already")
		}
		rs := &resource{r, read}
		reg.resources = append(reg.resources, rs)
		reg.resourceIndex[r.URI] = rs
	})
}

// AddResourceTemplate registers the template t, for
// resources/templates/list; resources/read of a URI that matches it, and
// names no resource of AddResource, calls read with the URI and the
// values of its variables. It panics for a template without a name, or
// whose braces do not pair.
func (s *Server) AddResourceTemplate(t ResourceTemplate, read func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error)) {
	pattern, names, ok := parseTemplate(t.URITemplate)
	if !ok || t.Name == "" || read == nil {
		panic("mcpserver: the resource template " + t.URITemplate + " needs a name, a read function and paired braces")
	}
	s.register(func(reg *registry) {
		reg.templates = append(reg.templates, &template{t, pattern, names, read})
	})
}

// parseTemplate returns the pattern of a URI template's URIs: its
// literals as they are, each variable a non-empty run without '/'.
func parseTemplate(t string) (*regexp.Regexp, []string, bool) {
	var (
		pat   strings.Builder
		names []string
	)
	pat.WriteString("^")
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			if strings.Contains(t, "}") {
				return nil, nil, false
			}
			pat.WriteString(regexp.QuoteMeta(t) + "$")
			return regexp.MustCompile(pat.String()), names, true
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 2 || strings.Contains(t[:i], "}") {
			return nil, nil, false
		}
		pat.WriteString(regexp.QuoteMeta(t[:i]) + "([^/]+?)")
		names = append(names, t[i+1:i+j])
		t = t[i+j+1:]
	}
}

// match returns the values of the variables of t in uri, when it matches.
func (t *template) match(uri string) (map[string]string, bool) {
	m := t.pattern.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := make(map[string]string, len(t.names))
	for i, n := range t.names {
		vars[n] = m[i+1]
	}
	return vars, true
}

type (
	listResourcesResult struct {
		resultFields
		Resources []*Resource `json:"resources"`
		cacheFields
	}
	listTemplatesResult struct {
		resultFields
		ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
		cacheFields
	}
	uriParams struct {
		URI *string `json:"uri"`
	}
	readResourceResult struct {
		resultFields
		Contents []ResourceContents `json:"contents"`
		cacheFields
	}
	emptyResult struct{}
)

func (s *Server) listResources(ctx context.Context, _ struct{}) listResourcesResult {
	r := RequestOf(ctx)
	reg := s.reg.Load()
	list := make([]*Resource, len(reg.resources))
	for i, rs := range reg.resources {
		list[i] = &rs.Resource
	}
	return listResourcesResult{resultFields: r.complete(), Resources: list, cacheFields: r.cache(s.ttl())}
}

func (s *Server) listTemplates(ctx context.Context, _ struct{}) listTemplatesResult {
	r := RequestOf(ctx)
	reg := s.reg.Load()
	list := make([]*ResourceTemplate, len(reg.templates))
	for i, t := range reg.templates {
		list[i] = &t.ResourceTemplate
	}
	return listTemplatesResult{resultFields: r.complete(), ResourceTemplates: list, cacheFields: r.cache(s.ttl())}
}

// notFound is the answer to an unknown resource: -32602 under
// 2026-07-28, -32002 before.
func notFound(r *Request, uri string) *jsonrpc.Error {
	code := CodeResourceNotFound
	if r.Stateless {
		code = jsonrpc.CodeInvalidParams
	}
	return jsonrpc.NewError(code, "Resource not found").WithData(map[string]string{"uri": uri})
}

func (s *Server) readResource(ctx context.Context, p uriParams) (*readResourceResult, error) {
	r := RequestOf(ctx)
	if p.URI == nil {
		return nil, invalidParams("resources/read: uri is required")
	}
	uri := *p.URI
	reg := s.reg.Load()
	var (
		contents []ResourceContents
		err      error
		ttl      time.Duration
	)
	if rs := reg.resourceIndex[uri]; rs != nil {
		contents, err = rs.read(ctx, uri)
		ttl = rs.TTL
	} else {
		found := false
		for _, t := range reg.templates {
			if vars, ok := t.match(uri); ok {
				contents, err = t.read(ctx, uri, vars)
				ttl, found = t.TTL, true
				break
			}
		}
		if !found {
			return nil, notFound(r, uri)
		}
	}
	if errors.Is(err, ErrResourceNotFound) {
		return nil, notFound(r, uri)
	}
	if err != nil {
		return nil, err
	}
	if contents == nil {
		contents = []ResourceContents{}
	}
	return &readResourceResult{resultFields: r.complete(), Contents: contents, cacheFields: r.cache(ttl.Milliseconds())}, nil
}

// known reports whether uri names a resource, or matches a template.
func (reg *registry) known(uri string) bool {
	if reg.resourceIndex[uri] != nil {
		return true
	}
	for _, t := range reg.templates {
		if _, ok := t.match(uri); ok {
			return true
		}
	}
	return false
}

// subscribe is resources/subscribe, before 2026-07-28: the connection is
// told of each change of the resource (ResourceUpdated).
func (s *Server) subscribe(ctx context.Context, p uriParams) (emptyResult, error) {
	r := RequestOf(ctx)
	if p.URI == nil {
		return emptyResult{}, invalidParams("resources/subscribe: uri is required")
	}
	if !s.reg.Load().known(*p.URI) {
		return emptyResult{}, notFound(r, *p.URI)
	}
	ss := s.sessionOf(ctx, true)
	ss.mu.Lock()
	if ss.subs == nil {
		ss.subs = map[string]bool{}
	}
	ss.subs[*p.URI] = true
	ss.mu.Unlock()
	return emptyResult{}, nil
}

func (s *Server) unsubscribe(ctx context.Context, p uriParams) (emptyResult, error) {
	if p.URI == nil {
		return emptyResult{}, invalidParams("resources/unsubscribe: uri is required")
	}
	if ss := s.sessionOf(ctx, false); ss != nil {
		ss.mu.Lock()
		delete(ss.subs, *p.URI)
		ss.mu.Unlock()
	}
	return emptyResult{}, nil
}

type (
	notificationMeta struct {
		SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
	}
	updatedParams struct {
		Meta *notificationMeta `json:"_meta,omitempty"`
		URI  string            `json:"uri"`
	}
)

// ResourceUpdated tells the clients subscribed to the resource uri that
// it changed (notifications/resources/updated): the sessions that asked
// with resources/subscribe, and the subscriptions of 2026-07-28
// (subscriptions/listen) that name it. When ctx is the context of a call
// of a session subscribed to it, that session is told as part of the call
// (over Streamable HTTP, on the call's stream, before its answer), and
// the others outside any call. It is safe for concurrent use, and sends
// without waiting for slow clients' subscriptions.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) {
	caller := peer.FromContext(ctx)
	s.eachSession(func(ss *session) {
		ss.mu.Lock()
		subscribed := ss.subs[uri]
		ss.mu.Unlock()
		if !subscribed || ss.conn == nil {
			return
		}
		nctx := context.Background()
		if ss.conn == caller {
			nctx = context.WithoutCancel(ctx)
		}
		ss.conn.Notify(nctx, "notifications/resources/updated", updatedParams{URI: uri})
	})
	s.lmu.Lock()
	for l := range s.listeners {
		if l.uris[uri] {
			l.add(uri)
		}
	}
	s.lmu.Unlock()
}

// A listener is a subscription of 2026-07-28: the URIs it watches, and
// those updated since it last sent.
type listener struct {
	uris   map[string]bool
	signal chan struct{} // one token: pending has URIs

	mu      sync.Mutex // protects the field below
	pending []string
}

func (l *listener) add(uri string) {
	l.mu.Lock()
	if !slices.Contains(l.pending, uri) {
		l.pending = append(l.pending, uri)
	}
	l.mu.Unlock()
	select {
	case l.signal <- struct{}{}:
	default:
	}
}

func (l *listener) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.pending
	l.pending = nil
	return p
}

type (
	subscriptionFilter struct {
		ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
		PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
		ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
		ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	}
	listenParams struct {
		Notifications *subscriptionFilter `json:"notifications"`
	}
	acknowledgedParams struct {
		Meta          notificationMeta   `json:"_meta"`
		Notifications subscriptionFilter `json:"notifications"`
	}
	listenResult struct {
		resultFields
	}
)

// listen is subscriptions/listen (2026-07-28). It acknowledges the
// subscription with the filter it honors (the resources it names that
// AddResource registered: the lists do not change), then sends
// notifications/resources/updated at each ResourceUpdated of one of them,
// each with the listen request's id as its subscription id, until the
// client cancels it (no answer then) or the input ends: then the server
// ends it, with the listen request's result. A subscription to nothing the
// server honors is answered at once.
func (s *Server) listen(ctx context.Context, p listenParams) (*listenResult, error) {
	r := RequestOf(ctx)
	if p.Notifications == nil {
		return nil, invalidParams("subscriptions/listen: notifications is required")
	}
	id := json.RawMessage(jsonrpc.CallOf(ctx).ID())
	reg := s.reg.Load()
	var agreed subscriptionFilter
	l := &listener{uris: map[string]bool{}, signal: make(chan struct{}, 1)}
	for _, uri := range p.Notifications.ResourceSubscriptions {
		if reg.resourceIndex[uri] != nil && !l.uris[uri] {
			l.uris[uri] = true
			agreed.ResourceSubscriptions = append(agreed.ResourceSubscriptions, uri)
		}
	}
	end := func() *listenResult {
		f := r.complete()
		f.Meta.SubscriptionID = id
		return &listenResult{f}
	}
	// The notifications are written whatever becomes of ctx meanwhile.
	conn, bg := peer.FromContext(ctx), context.WithoutCancel(ctx)
	meta := &notificationMeta{SubscriptionID: id}
	if len(agreed.ResourceSubscriptions) > 0 {
		// Before the acknowledgment: no change is missed.
		s.lmu.Lock()
		s.listeners[l] = struct{}{}
		s.lmu.Unlock()
		defer func() {
			s.lmu.Lock()
			delete(s.listeners, l)
			s.lmu.Unlock()
		}()
	}
	if err := conn.Notify(bg, "notifications/subscriptions/acknowledged", acknowledgedParams{Meta: *meta, Notifications: agreed}); err != nil {
		return nil, err
	}
	if len(agreed.ResourceSubscriptions) == 0 {
		return end(), nil
	}
	for {
		select {
		case <-l.signal:
		case <-ctx.Done():
		}
		if ctx.Err() != nil { // also when a change came with it: nothing more for it
			select {
			case <-conn.Done(): // the input ended: the server ends the subscription
				return end(), nil
			default: // cancelled by the client: no answer
				return nil, ctx.Err()
			}
		}
		for _, uri := range l.take() {
			if err := conn.Notify(bg, "notifications/resources/updated", updatedParams{Meta: meta, URI: uri}); err != nil {
				return nil, err
			}
		}
	}
}
