// Command langserver is a small language server: it speaks the Language
// Server Protocol over standard input and output, with Content-Length
// framing, as an editor starts it.
//
//	$ go build -o langserver ./examples/langserver
//
// and configure the editor to run ./langserver for plain text files. It
// keeps the text of the documents the editor opens (full sync) and answers:
//
//   - initialize, with its capabilities and serverInfo; initialized.
//   - textDocument/didOpen and textDocument/didChange.
//   - textDocument/hover: the word under the cursor, positions counted in
//     UTF-16 code units, as LSP counts them.
//   - workspace/symbol: every word of the open documents that holds the
//     query (any case), as a SymbolInformation, documents by URI and
//     words in order; its items are a sequence (iter.Seq), sent as they
//     are found: as partial results ($/progress on the call's
//     partialResultToken, then an empty answer) when the editor asks for
//     them, and otherwise in the pull of the enumerator protocol.
//   - workspace/executeCommand with the command "wait" and the arguments
//     [ms]: it waits ms milliseconds, reporting work-done progress (begin,
//     a report every 50 ms, end) on the call's workDoneToken, and stops
//     when the editor cancels it with $/cancelRequest, which is answered
//     with RequestCancelled (-32800).
//   - shutdown, then exit: the process exits with status 0 after shutdown
//     and 1 without it, once it has written the answers to everything
//     before exit, however it came (an editor may send initialize,
//     shutdown and exit at once). Requests after shutdown are answered
//     with InvalidRequest, and requests before initialize with
//     ServerNotInitialized (-32002).
//
// It holds each open document once: a hover costs the size of its word,
// so that memory follows the documents open. It keeps at most
// maxDocuments documents and maxDocBytes of their text: a document opened
// or changed past them is not kept (a hover on it is answered "document
// not open"), and the editor is told so with window/showMessage.
//
// It is built on package stream (with framing.Header) and package peer
// (lsp.Protocol() cancellation and progress).
package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr))
}

// Error codes of LSP's own.
const (
	codeServerNotInitialized jsonrpc.Code = -32002
)

// progressEvery is how often a running command reports its progress.
const progressEvery = 50 * time.Millisecond

// exitTimeout bounds the wait after exit for the connection to end and
// its answers to be written.
const exitTimeout = 5 * time.Second

// run serves the editor on r and w until it sends exit or its input ends,
// and returns the exit status.
func run(r io.Reader, w io.Writer, stderr io.Writer) int {
	ls := newServer()
	s := &stream.Server{
		Server:   ls.srv,
		Framing:  framing.Header,
		Protocol: lsp.Protocol(),
		Limits: transport.Limits{
			IdleTimeout: -1, // an editor may stay idle as long as it likes
			ReadTimeout: -1,
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.ServeConn(ctx, stream.ReadWriteCloser(exitReader{r, ls}, w)) }()
	select {
	case code := <-ls.exit:
		// The answers to what came before exit may still be in the
		// writer's buffer. Past exit the input ends (exitReader), and
		// the connection ends as at the end of its input: the answers
		// are written, then the output closed. A read of the input
		// already waiting (exit ran after a call it waited for) cannot
		// be interrupted: exitTimeout bounds the wait.
		t := time.NewTimer(exitTimeout)
		defer t.Stop()
		select {
		case <-served:
		case <-t.C:
		}
		return code
	case err := <-served:
		if err != nil {
			fmt.Fprintln(stderr, "langserver:", err)
		}
		// The input ended without exit: LSP's status for an exit is
		// still the rule.
		if ls.isShutDown() {
			return 0
		}
		return 1
	}
}

// A server is the state of one editor's session.
type server struct {
	srv  *jsonrpc.Server
	exit chan int // the status asked for by exit

	mu          sync.Mutex
	initialized bool
	shutDown    bool
	exited      bool              // exit came: the input ends
	docs        map[string]string // the text of each open document, by URI
	docBytes    int               // of the texts in docs
	maxDocs     int               // documents kept at most: maxDocuments
	maxBytes    int               // bytes of their texts at most: maxDocBytes
}

// The bounds of the documents a server keeps.
const (
	maxDocuments = 1000
	maxDocBytes  = 64 << 20
)

func newServer() *server {
	ls := &server{exit: make(chan int, 1), docs: map[string]string{}, maxDocs: maxDocuments, maxBytes: maxDocBytes}
	ls.srv = jsonrpc.NewServer(
		// Editors send many fields this server does not model.
		jsonrpc.AllowUnknownFields(),
		jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
			if err := ls.gate(ctx, c); err != nil {
				return err // refused: the method does not run
			}
			return next(ctx)
		}),
	)
	ls.srv.MustRegister("initialize", ls.initialize)
	ls.srv.MustRegister("initialized", func(struct{}) {})
	ls.srv.MustRegister("textDocument/didOpen", ls.didOpen)
	ls.srv.MustRegister("textDocument/didChange", ls.didChange)
	ls.srv.MustRegister("textDocument/didClose", ls.didClose)
	ls.srv.MustRegister("textDocument/hover", ls.hover)
	ls.srv.MustRegister("workspace/symbol", ls.workspaceSymbol)
	ls.srv.MustRegister("workspace/executeCommand", ls.executeCommand, jsonrpc.Blocking())
	ls.srv.MustRegister("shutdown", ls.shutdown)
	ls.srv.MustRegister("exit", ls.exitNow)
	return ls
}

// gate answers requests before initialize with ServerNotInitialized, and
// after shutdown with InvalidRequest, as LSP asks. Notifications other
// than exit are dropped then.
func (ls *server) gate(ctx context.Context, c *jsonrpc.Call) error {
	ls.mu.Lock()
	initialized, shutDown := ls.initialized, ls.shutDown
	ls.mu.Unlock()
	switch m := c.Method(); {
	case m == "exit":
		return nil
	case !initialized && m != "initialize":
		return jsonrpc.NewError(codeServerNotInitialized, "server not initialized")
	case shutDown:
		return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "server is shut down")
	}
	return nil
}

// exitReader is the editor's input until exit, and then its end, so that
// the connection ends as at the end of its input, having written every
// answer, instead of the process exiting with answers in its buffer.
type exitReader struct {
	r  io.Reader
	ls *server
}

func (e exitReader) Read(p []byte) (int, error) {
	if e.ls.hasExited() {
		return 0, io.EOF
	}
	return e.r.Read(p)
}

func (ls *server) hasExited() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.exited
}

func (ls *server) isShutDown() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.shutDown
}

// The messages of LSP that this server reads and writes, with only the
// fields it uses.
type (
	initializeResult struct {
		Capabilities serverCapabilities `json:"capabilities"`
		ServerInfo   serverInfo         `json:"serverInfo"`
	}
	serverCapabilities struct {
		TextDocumentSync        textDocumentSyncOptions `json:"textDocumentSync"`
		HoverProvider           bool                    `json:"hoverProvider"`
		WorkspaceSymbolProvider bool                    `json:"workspaceSymbolProvider"`
		ExecuteCommandProvider  executeCommandOptions   `json:"executeCommandProvider"`
	}
	textDocumentSyncOptions struct {
		OpenClose bool `json:"openClose"`
		Change    int  `json:"change"` // 1: the whole text on each change
	}
	executeCommandOptions struct {
		Commands []string `json:"commands"`
	}
	serverInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}

	textDocumentItem struct {
		URI     string `json:"uri"`
		Version int    `json:"version"`
		Text    string `json:"text"`
	}
	textDocumentIdentifier struct {
		URI string `json:"uri"`
	}
	didOpenParams struct {
		TextDocument textDocumentItem `json:"textDocument"`
	}
	didChangeParams struct {
		TextDocument   textDocumentIdentifier `json:"textDocument"`
		ContentChanges []struct {
			Text string `json:"text"`
		} `json:"contentChanges"`
	}
	didCloseParams struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
	}

	position struct {
		Line      int `json:"line"`
		Character int `json:"character"` // in UTF-16 code units
	}
	rangeLSP struct {
		Start position `json:"start"`
		End   position `json:"end"`
	}
	hoverParams struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
		Position     position               `json:"position"`
	}
	markupContent struct {
		Kind  string `json:"kind"`
		Value string `json:"value"`
	}
	hoverResult struct {
		Contents markupContent `json:"contents"`
		Range    rangeLSP      `json:"range"`
	}

	workspaceSymbolParams struct {
		Query string `json:"query"`
	}
	location struct {
		URI   string   `json:"uri"`
		Range rangeLSP `json:"range"`
	}
	symbolInformation struct {
		Name     string   `json:"name"`
		Kind     int      `json:"kind"` // 13: Variable
		Location location `json:"location"`
	}

	executeCommandParams struct {
		Command   string `json:"command"`
		Arguments []any  `json:"arguments"`
	}
	// workDoneProgress is the value of a $/progress notification: kind
	// "begin", "report" or "end".
	workDoneProgress struct {
		Kind        string `json:"kind"`
		Title       string `json:"title,omitempty"`
		Cancellable bool   `json:"cancellable,omitempty"`
		Message     string `json:"message,omitempty"`
		Percentage  *int   `json:"percentage,omitempty"`
	}
)

func (ls *server) initialize(struct{}) initializeResult {
	ls.mu.Lock()
	ls.initialized = true
	ls.mu.Unlock()
	return initializeResult{
		Capabilities: serverCapabilities{
			TextDocumentSync:        textDocumentSyncOptions{OpenClose: true, Change: 1},
			HoverProvider:           true,
			WorkspaceSymbolProvider: true,
			ExecuteCommandProvider:  executeCommandOptions{Commands: []string{"wait"}},
		},
		ServerInfo: serverInfo{Name: "langserver", Version: "1.0.0"},
	}
}

func (ls *server) didOpen(ctx context.Context, p didOpenParams) {
	ls.keep(ctx, p.TextDocument.URI, p.TextDocument.Text)
}

func (ls *server) didChange(ctx context.Context, p didChangeParams) {
	if len(p.ContentChanges) == 0 {
		return
	}
	// Full sync: each change is the whole text; the last one wins.
	ls.keep(ctx, p.TextDocument.URI, p.ContentChanges[len(p.ContentChanges)-1].Text)
}

func (ls *server) didClose(p didCloseParams) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.forgetLocked(p.TextDocument.URI)
}

// keep keeps text as the document uri's, within the bounds of the
// documents kept; past them it forgets the document and tells the editor
// (window/showMessage, a warning).
func (ls *server) keep(ctx context.Context, uri, text string) {
	ls.mu.Lock()
	ls.forgetLocked(uri)
	fits := len(ls.docs) < ls.maxDocs && ls.docBytes+len(text) <= ls.maxBytes
	if fits {
		ls.docs[uri] = text
		ls.docBytes += len(text)
	}
	ls.mu.Unlock()
	if !fits {
		if c := peer.FromContext(ctx); c != nil {
			c.Notify(ctx, "window/showMessage", showMessageParams{Type: 2, Message: fmt.Sprintf(
				"langserver keeps at most %d documents and %d MiB of text: %s is not kept", ls.maxDocs, ls.maxBytes>>20, uri)})
		}
	}
}

// forgetLocked forgets the document uri; ls.mu is held.
func (ls *server) forgetLocked(uri string) {
	if old, ok := ls.docs[uri]; ok {
		ls.docBytes -= len(old)
		delete(ls.docs, uri)
	}
}

// showMessageParams are the params of window/showMessage; Type 2 is a
// warning.
type showMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// hover answers the word at the position, or null when there is none.
func (ls *server) hover(p hoverParams) (*hoverResult, error) {
	ls.mu.Lock()
	text, ok := ls.docs[p.TextDocument.URI]
	ls.mu.Unlock()
	if !ok {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "document not open: "+p.TextDocument.URI)
	}
	word, start, end, ok := wordAt(text, p.Position.Line, p.Position.Character)
	if !ok {
		return nil, nil
	}
	return &hoverResult{
		Contents: markupContent{Kind: "plaintext", Value: word},
		Range: rangeLSP{
			Start: position{p.Position.Line, start},
			End:   position{p.Position.Line, end},
		},
	}, nil
}

// wordAt returns the word (letters, digits and underscores) that holds the
// character at UTF-16 offset char of line, with its start and end as UTF-16
// offsets. ok is false when no word is there. It walks the text in place,
// allocating nothing: a hover costs the size of its word, not of the
// document (splitting the document into lines and the line into a slice of
// its runes made a hover on a 4 MiB document peak at 583 MiB).
func wordAt(text string, line, char int) (word string, start, end int, ok bool) {
	if line < 0 || char < 0 {
		return "", 0, 0, false
	}
	l := text
	for range line {
		i := strings.IndexByte(l, '\n')
		if i < 0 {
			return "", 0, 0, false
		}
		l = l[i+1:]
	}
	if i := strings.IndexByte(l, '\n'); i >= 0 {
		l = l[:i]
	}
	l = strings.TrimSuffix(l, "\r")
	// The rune whose UTF-16 span holds char; a char in the middle of a
	// surrogate pair points at the pair's rune.
	at, u := -1, 0 // its byte offset and UTF-16 offset
	var r rune
	for i, ru := range l {
		if n := utf16.RuneLen(ru); char < u+n {
			at, r = i, ru
			break
		} else {
			u += n
		}
	}
	if at < 0 || !isWord(r) {
		return "", 0, 0, false
	}
	startByte, start := at, u
	for startByte > 0 {
		ru, size := utf8.DecodeLastRuneInString(l[:startByte])
		if !isWord(ru) {
			break
		}
		startByte -= size
		start -= utf16.RuneLen(ru)
	}
	endByte, end := at, u
	for endByte < len(l) {
		ru, size := utf8.DecodeRuneInString(l[endByte:])
		if !isWord(ru) {
			break
		}
		endByte += size
		end += utf16.RuneLen(ru)
	}
	return l[startByte:endByte], start, end, true
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// workspaceSymbol yields each word of the open documents that holds the
// query, ignoring case, with its range in UTF-16 offsets. It reads each
// document as its turn comes, so that the editor gets the first symbols
// before the last document is read, and stops when the editor stops
// taking them (its context ends: a cancel, or the connection's end).
func (ls *server) workspaceSymbol(ctx context.Context, p workspaceSymbolParams) iter.Seq[symbolInformation] {
	ls.mu.Lock()
	uris := slices.Sorted(maps.Keys(ls.docs))
	ls.mu.Unlock()
	query := strings.ToLower(p.Query)
	return func(yield func(symbolInformation) bool) {
		for _, uri := range uris {
			ls.mu.Lock()
			text, ok := ls.docs[uri]
			ls.mu.Unlock()
			if !ok {
				continue // closed meanwhile
			}
			line := -1
			for l := range strings.SplitSeq(text, "\n") {
				line++
				u, start, inWord := 0, 0, false
				var word strings.Builder
				emit := func() bool {
					w := word.String()
					word.Reset()
					inWord = false
					if !strings.Contains(strings.ToLower(w), query) || ctx.Err() != nil {
						return ctx.Err() == nil
					}
					return yield(symbolInformation{Name: w, Kind: 13, Location: location{URI: uri, Range: rangeLSP{
						Start: position{line, start}, End: position{line, u},
					}}})
				}
				for _, r := range strings.TrimSuffix(l, "\r") {
					switch {
					case isWord(r) && !inWord:
						inWord, start = true, u
						word.WriteRune(r)
					case isWord(r):
						word.WriteRune(r)
					case inWord && !emit():
						return
					}
					u += utf16.RuneLen(r)
				}
				if inWord && !emit() {
					return
				}
			}
		}
	}
}

// executeCommand runs the command "wait" with the arguments [ms]. It is
// registered Blocking: it runs on a goroutine of its own, and sees its
// context cancelled when the editor sends $/cancelRequest.
func (ls *server) executeCommand(ctx context.Context, p executeCommandParams) (any, error) {
	if p.Command != "wait" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown command: "+p.Command)
	}
	if len(p.Arguments) != 1 {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "wait takes one argument, the milliseconds to wait")
	}
	ms, ok := p.Arguments[0].(float64)
	if !ok || ms < 0 || ms > 10*60*1000 {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "wait: the argument must be a number of milliseconds from 0 to 600000")
	}
	total := time.Duration(ms * float64(time.Millisecond))
	if err := wait(ctx, total); err != nil {
		return nil, err
	}
	return map[string]any{"waited": ms}, nil
}

// wait waits for d, reporting work-done progress to the caller when it
// asked for it (peer.ProgressOf), and returns ctx's error when ctx ends
// first.
func wait(ctx context.Context, d time.Duration) error {
	p := progress.Of(ctx) // nil, reporting nothing, without a workDoneToken
	pct := func(n int) *int { return &n }
	p.Report(ctx, workDoneProgress{Kind: "begin", Title: "wait", Cancellable: true, Percentage: pct(0)})
	start := time.Now()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	done := time.NewTimer(d)
	defer done.Stop()
	for {
		select {
		case <-ctx.Done():
			p.Report(ctx, workDoneProgress{Kind: "end", Message: "cancelled"})
			return ctx.Err()
		case <-done.C:
			p.Report(ctx, workDoneProgress{Kind: "end", Message: "done"})
			return nil
		case <-tick.C:
			elapsed := time.Since(start)
			p.Report(ctx, workDoneProgress{
				Kind:       "report",
				Message:    fmt.Sprintf("%d ms of %d", elapsed.Milliseconds(), d.Milliseconds()),
				Percentage: pct(min(99, int(100*elapsed/max(d, 1)))),
			})
		}
	}
}

func (ls *server) shutdown() error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.shutDown = true
	return nil
}

// exitNow ends the input and asks run to return: 0 after shutdown, 1
// otherwise.
func (ls *server) exitNow() {
	ls.mu.Lock()
	ls.exited = true
	code := 1
	if ls.shutDown {
		code = 0
	}
	ls.mu.Unlock()
	select {
	case ls.exit <- code:
	default:
	}
}
