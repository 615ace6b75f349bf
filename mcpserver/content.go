package mcpserver

import (
	"encoding/json"
	"errors"
)

// A Content is one item of a tool's result or of a prompt's message: a
// text, an image, a sound, an embedded resource, or a link to a resource.
// Make one with Text, Image, Audio, Embedded or Link; the zero Content is
// not valid.
type Content struct {
	// Type is "text", "image", "audio", "resource" or "resource_link".
	Type string
	// Text is the text of a "text" content.
	Text string
	// Data and MIMEType are the bytes of an "image" or "audio" content
	// (sent in Base64) and their media type.
	Data     []byte
	MIMEType string
	// Resource is the resource a "resource" content embeds.
	Resource *ResourceContents
	// Link is the resource a "resource_link" content points to.
	Link *Resource
	// Meta is the content's _meta, when not nil.
	Meta map[string]any
}

// Text returns a text content.
func Text(text string) Content { return Content{Type: "text", Text: text} }

// Image returns an image content: data of the media type mimeType
// ("image/png").
func Image(data []byte, mimeType string) Content {
	return Content{Type: "image", Data: data, MIMEType: mimeType}
}

// Audio returns an audio content: data of the media type mimeType
// ("audio/wav").
func Audio(data []byte, mimeType string) Content {
	return Content{Type: "audio", Data: data, MIMEType: mimeType}
}

// Embedded returns a content that embeds a resource's contents.
func Embedded(rc ResourceContents) Content { return Content{Type: "resource", Resource: &rc} }

// Link returns a content that points to a resource, which the client may
// read with resources/read.
func Link(r Resource) Content { return Content{Type: "resource_link", Link: &r} }

var errContent = errors.New("mcpserver: a Content of an unknown type")

// MarshalJSON writes the members of c's Type.
func (c Content) MarshalJSON() ([]byte, error) {
	var v any
	switch c.Type {
	case "text":
		v = struct {
			Type string         `json:"type"`
			Text string         `json:"text"`
			Meta map[string]any `json:"_meta,omitempty"`
		}{c.Type, c.Text, c.Meta}
	case "image", "audio":
		v = struct {
			Type     string         `json:"type"`
			Data     []byte         `json:"data"`
			MIMEType string         `json:"mimeType"`
			Meta     map[string]any `json:"_meta,omitempty"`
		}{c.Type, c.Data, c.MIMEType, c.Meta}
	case "resource":
		if c.Resource == nil {
			return nil, errContent
		}
		v = struct {
			Type     string            `json:"type"`
			Resource *ResourceContents `json:"resource"`
			Meta     map[string]any    `json:"_meta,omitempty"`
		}{c.Type, c.Resource, c.Meta}
	case "resource_link":
		if c.Link == nil {
			return nil, errContent
		}
		v = struct {
			Type string `json:"type"`
			*Resource
			Meta map[string]any `json:"_meta,omitempty"`
		}{c.Type, c.Link, c.Meta}
	default:
		return nil, errContent
	}
	return json.Marshal(v)
}

// ResourceContents are the contents of a resource: a text, or bytes
// (Blob, sent in Base64) when Blob is not nil.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	Meta     map[string]any
}

// MarshalJSON writes text contents, or blob contents when Blob is not nil.
func (rc ResourceContents) MarshalJSON() ([]byte, error) {
	if rc.Blob != nil {
		return json.Marshal(struct {
			URI      string         `json:"uri"`
			MIMEType string         `json:"mimeType,omitempty"`
			Blob     []byte         `json:"blob"`
			Meta     map[string]any `json:"_meta,omitempty"`
		}{rc.URI, rc.MIMEType, rc.Blob, rc.Meta})
	}
	return json.Marshal(struct {
		URI      string         `json:"uri"`
		MIMEType string         `json:"mimeType,omitempty"`
		Text     string         `json:"text"`
		Meta     map[string]any `json:"_meta,omitempty"`
	}{rc.URI, rc.MIMEType, rc.Text, rc.Meta})
}

// A Result is the result of a tool's call (CallToolResult). A tool
// returns one to say all of it; a tool that returns another type has its
// result made for it (see AddTool).
type Result struct {
	// Content is what the model reads: texts, images, sounds, resources.
	Content []Content
	// StructuredContent, when not nil, is the result as a JSON object,
	// which a tool with an output schema must give.
	StructuredContent any
	// IsError reports the tool's failure, told to the model so that it
	// may correct itself, as opposed to a protocol error.
	IsError bool
	// Meta is the result's _meta, when not nil; under 2026-07-28 the
	// server's identity is added to it.
	Meta map[string]any
	// ResultType is the result's resultType under 2026-07-28; "" means
	// "complete". A result of another type ("input_required") has no
	// content, and says what it is with Extra.
	ResultType string
	// Extra are members added to the result object, for what this
	// package does not model (2026-07-28's inputRequests and
	// requestState).
	Extra map[string]any
}

// encode returns the JSON of res as the answer to r.
func (res *Result) encode(r *Request) (json.RawMessage, error) {
	m := map[string]any{}
	for k, v := range res.Extra {
		m[k] = v
	}
	rt := res.ResultType
	if rt == "" {
		rt = "complete"
	}
	if rt == "complete" {
		content := res.Content
		if content == nil {
			content = []Content{}
		}
		m["content"] = content
		if res.StructuredContent != nil {
			m["structuredContent"] = res.StructuredContent
		}
		if res.IsError {
			m["isError"] = true
		}
	}
	meta := res.Meta
	if r.Stateless {
		m["resultType"] = rt
		meta = map[string]any{}
		for k, v := range res.Meta {
			meta[k] = v
		}
		meta["io.modelcontextprotocol/serverInfo"] = &r.srv.info
	}
	if meta != nil {
		m["_meta"] = meta
	}
	return json.Marshal(m)
}
