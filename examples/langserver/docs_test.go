package main

import (
	"context"
	"testing"
)

// TestDocumentBounds: the server keeps at most maxDocs documents and
// maxBytes of their text; one past them is not kept, and closing or
// shrinking a document makes room (issue 34: 200 documents of 4 MiB held
// 1,192 MiB).
func TestDocumentBounds(t *testing.T) {
	ls := newServer()
	ls.maxDocs, ls.maxBytes = 2, 10
	ctx := context.Background()
	open := func(uri, text string) {
		var p didOpenParams
		p.TextDocument.URI, p.TextDocument.Text = uri, text
		ls.didOpen(ctx, p)
	}
	kept := func(uri string) bool {
		ls.mu.Lock()
		defer ls.mu.Unlock()
		_, ok := ls.docs[uri]
		return ok
	}
	open("a", "12345")
	open("b", "12345")
	open("c", "1")
	if !kept("a") || !kept("b") || kept("c") {
		t.Errorf("a third document past maxDocs: kept a %v, b %v, c %v", kept("a"), kept("b"), kept("c"))
	}
	ls.didClose(didCloseParams{TextDocument: textDocumentIdentifier{URI: "b"}})
	open("c", "123456")
	if kept("c") {
		t.Error("a document past maxBytes was kept")
	}
	open("c", "12345")
	if !kept("c") {
		t.Error("a document within the bounds, after a close, was not kept")
	}
	var ch didChangeParams
	ch.TextDocument.URI = "a"
	ch.ContentChanges = append(ch.ContentChanges, struct {
		Text string `json:"text"`
	}{"123456"})
	ls.didChange(ctx, ch)
	if kept("a") {
		t.Error("a change past maxBytes was kept")
	}
	if ls.docBytes != 5 {
		t.Errorf("docBytes %d, want 5", ls.docBytes)
	}
}
