package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// noteURI is the one resource: the text the tool note sets.
const noteURI = "note://current"

// notes holds the note, and tells its watchers when it changes.
type notes struct {
	mu      sync.Mutex    // protects the fields below
	text    string        // the note
	changed chan struct{} // closed, and replaced, at each change
}

func newNotes() *notes {
	return &notes{text: "(empty)", changed: make(chan struct{})}
}

// get returns the note and a channel closed at its next change.
func (n *notes) get() (string, <-chan struct{}) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.text, n.changed
}

func (n *notes) set(text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.text = text
	close(n.changed)
	n.changed = make(chan struct{})
}

type (
	resource struct {
		URI         string `json:"uri"`
		Name        string `json:"name"`
		Description string `json:"description"`
		MIMEType    string `json:"mimeType"`
	}
	listResourcesResult struct {
		resultFields
		Resources []resource `json:"resources"`
		cacheFields
	}
	uriParams struct {
		URI *string `json:"uri"`
	}
	resourceContents struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	blobContents struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Blob     string `json:"blob"`
	}
	readResourceResult struct {
		resultFields
		Contents []any `json:"contents"`
		cacheFields
	}
	resourceTemplate struct {
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
		Description string `json:"description"`
		MIMEType    string `json:"mimeType"`
	}
	listTemplatesResult struct {
		resultFields
		ResourceTemplates []resourceTemplate `json:"resourceTemplates"`
		cacheFields
	}
	emptyResult struct{}

	subscriptionFilter struct {
		ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
		PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
		ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
		ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	}
	listenParams struct {
		Notifications *subscriptionFilter `json:"notifications"`
	}
	notificationMeta struct {
		SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
	}
	acknowledgedParams struct {
		Meta          notificationMeta   `json:"_meta"`
		Notifications subscriptionFilter `json:"notifications"`
	}
	updatedParams struct {
		Meta *notificationMeta `json:"_meta,omitempty"`
		URI  string            `json:"uri"`
	}
)

// resources are those of resources/list.
var resources = []resource{
	{URI: noteURI, Name: "note", Description: "The text the tool note sets.", MIMEType: "text/plain"},
	// The conformance suite's.
	{URI: "test://static-text", Name: "static-text", Description: "A text that never changes.", MIMEType: "text/plain"},
	{URI: "test://static-binary", Name: "static-binary", Description: "A PNG image that never changes.", MIMEType: "image/png"},
	{URI: watchedURI, Name: "watched-resource", Description: "A resource to subscribe to.", MIMEType: "text/plain"},
}

// watchedURI is the resource the conformance suite subscribes to.
const watchedURI = "test://watched-resource"

// templates are those of resources/templates/list.
var templates = []resourceTemplate{{URITemplate: "test://template/{id}/data", Name: "template-data", Description: "The data of an id.", MIMEType: "application/json"}}

func (s *server) listTemplates(ctx context.Context, _ struct{}) listTemplatesResult {
	r := requestOf(ctx)
	return listTemplatesResult{resultFields: r.complete(), ResourceTemplates: templates, cacheFields: r.cache(discoverTTL)}
}

// readOther reads the resources other than the note, and reports whether
// uri is one.
func readOther(uri string) (any, bool) {
	switch uri {
	case "test://static-text":
		return resourceContents{URI: uri, MIMEType: "text/plain", Text: "This is the content of the static text resource."}, true
	case "test://static-binary":
		return blobContents{URI: uri, MIMEType: "image/png", Blob: redPixel}, true
	case watchedURI:
		return resourceContents{URI: uri, MIMEType: "text/plain", Text: "A resource to watch."}, true
	}
	if id, ok := strings.CutPrefix(uri, "test://template/"); ok {
		if id, ok := strings.CutSuffix(id, "/data"); ok && id != "" && !strings.Contains(id, "/") {
			b, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return resourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}, true
		}
	}
	return nil, false
}

func (s *server) listResources(ctx context.Context, _ struct{}) listResourcesResult {
	r := requestOf(ctx)
	return listResourcesResult{resultFields: r.complete(), Resources: resources, cacheFields: r.cache(discoverTTL)}
}

// notFound is the answer to an unknown resource: -32602 under 2026-07-28,
// -32002 before.
func notFound(r *request, uri string) *jsonrpc.Error {
	code := codeResourceNotFound
	if r.modern {
		code = jsonrpc.CodeInvalidParams
	}
	return jsonrpc.NewError(code, "Resource not found").WithData(map[string]string{"uri": uri})
}

func (s *server) readResource(ctx context.Context, p uriParams) (*readResourceResult, error) {
	r := requestOf(ctx)
	if p.URI == nil {
		return nil, invalidParams("resources/read: uri is required")
	}
	if c, ok := readOther(*p.URI); ok {
		return &readResourceResult{resultFields: r.complete(), Contents: []any{c}, cacheFields: r.cache(discoverTTL)}, nil
	}
	if *p.URI != noteURI {
		return nil, notFound(r, *p.URI)
	}
	text, _ := s.notes.get()
	return &readResourceResult{
		resultFields: r.complete(),
		Contents:     []any{resourceContents{URI: noteURI, MIMEType: "text/plain", Text: text}},
		cacheFields:  r.cache(0), // it may change at any time: stale at once
	}, nil
}

// subscribe is resources/subscribe, before 2026-07-28: the connection is
// told of each change of the resource.
func (s *server) subscribe(ctx context.Context, p uriParams) (emptyResult, error) {
	r := requestOf(ctx)
	if p.URI == nil {
		return emptyResult{}, invalidParams("resources/subscribe: uri is required")
	}
	if *p.URI != noteURI && *p.URI != watchedURI {
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

func (s *server) unsubscribe(ctx context.Context, p uriParams) (emptyResult, error) {
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

// updated tells every session that subscribed to uri with
// resources/subscribe that it changed: the session of the call that
// changed it as part of that call (over Streamable HTTP, on the call's
// stream, before its answer), the others outside any call (on their GET
// stream). (Subscriptions of 2026-07-28 watch the notes themselves, in
// listen.)
func (s *server) updated(ctx context.Context, uri string) {
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
}

// listenResult ends a subscription: the answer to subscriptions/listen.
type listenResult struct {
	resultFields
}

// listen is subscriptions/listen (2026-07-28). It acknowledges the
// subscription with the filter it honors, then sends
// notifications/resources/updated at each change of a resource subscribed
// to, each with the listen request's id as its subscription id, until the
// client cancels it (no answer then) or the input ends: then the server
// ends it gracefully, with the listen request's result, as the
// subscriptions page asks. (The cancellation page asks for a
// notifications/cancelled instead; a connection whose input has ended
// sends no more notifications, only the answers of the calls in flight.)
// A subscription to nothing the server honors is answered at once.
func (s *server) listen(ctx context.Context, p listenParams) (*listenResult, error) {
	r := requestOf(ctx)
	if p.Notifications == nil {
		return nil, invalidParams("subscriptions/listen: notifications is required")
	}
	id := json.RawMessage(jsonrpc.CallOf(ctx).ID())
	var agreed subscriptionFilter // the lists never change: only resources
	for _, uri := range p.Notifications.ResourceSubscriptions {
		if uri == noteURI && !slices.Contains(agreed.ResourceSubscriptions, uri) {
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
	_, changed := s.notes.get() // before the acknowledgment: no change is missed
	if err := conn.Notify(bg, "notifications/subscriptions/acknowledged", acknowledgedParams{Meta: *meta, Notifications: agreed}); err != nil {
		return nil, err
	}
	if len(agreed.ResourceSubscriptions) == 0 {
		return end(), nil
	}
	for {
		select {
		case <-changed:
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
		_, changed = s.notes.get()
		if err := conn.Notify(bg, "notifications/resources/updated", updatedParams{Meta: meta, URI: noteURI}); err != nil {
			return nil, err
		}
	}
}
