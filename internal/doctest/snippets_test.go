package doctest

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The snippets' rules, for whoever writes a Go block in README.md or
// docs/*.md (a fence whose info string begins with "go"):
//
//   - A block that begins with a package clause is a whole file, compiled
//     as it is, in a package of its own.
//   - Any other block is a fragment. Declarations (types, funcs, vars)
//     are compiled as a file; statements, as the body of a function that
//     returns an error, where the variables they declare may go unused.
//   - A fragment imports nothing: each package it names (client.New,
//     http.Handle) is imported by its usual name, from the table
//     snippetImports below.
//   - What a fragment takes from the text around it (a srv made above, a
//     type of the reader's) is declared in an HTML comment on the lines
//     just above its fence, invisible once rendered, which begins with
//     "<!-- given:" and holds Go declarations:
//
//     <!-- given: var srv *jsonrpc.Server; type User struct{ Name string } -->
//
// Errors name the document's lines (the code carries //line directives).
// Placeholders are Go: write /* ... */, not a bare "...".

// snippetModule is the module path of the snippets' module. The packages
// that cmd/openrpc-gen writes, which two snippets use, are copied into it
// from openrpc/gen/internal as ethrpc and demorpc.
const snippetModule = "example.com/snippets"

// snippetImports maps the names fragments use to the packages they name.
var snippetImports = map[string]string{
	"atomic":    "sync/atomic",
	"bytes":     "bytes",
	"context":   "context",
	"errors":    "errors",
	"exec":      "os/exec",
	"fmt":       "fmt",
	"io":        "io",
	"iter":      "iter",
	"json":      "encoding/json",
	"log":       "log",
	"net":       "net",
	"http":      "net/http",
	"os":        "os",
	"signal":    "os/signal",
	"slog":      "log/slog",
	"strings":   "strings",
	"sync":      "sync",
	"time":      "time",
	"tls":       "crypto/tls",
	"x509":      "crypto/x509",
	"websocket": "github.com/coder/websocket",
	"redis":     "github.com/redis/go-redis/v9",
	"fasthttp":  "github.com/valyala/fasthttp",

	"jsonrpc":     "github.com/jsonrpc-go/jsonrpc",
	"client":      "github.com/jsonrpc-go/jsonrpc/client",
	"framing":     "github.com/jsonrpc-go/jsonrpc/framing",
	"httprpc":     "github.com/jsonrpc-go/jsonrpc/httprpc",
	"stream":      "github.com/jsonrpc-go/jsonrpc/stream",
	"ws":          "github.com/jsonrpc-go/jsonrpc/ws",
	"peer":        "github.com/jsonrpc-go/jsonrpc/peer",
	"pubsub":      "github.com/jsonrpc-go/jsonrpc/pubsub",
	"streamhttp":  "github.com/jsonrpc-go/jsonrpc/streamhttp",
	"transport":   "github.com/jsonrpc-go/jsonrpc/transport",
	"openrpc":     "github.com/jsonrpc-go/jsonrpc/openrpc",
	"debugvars":   "github.com/jsonrpc-go/jsonrpc/debugvars",
	"ratelog":     "github.com/jsonrpc-go/jsonrpc/ratelog",
	"lsp":         "github.com/jsonrpc-go/jsonrpc/protocol/lsp",
	"mcp":         "github.com/jsonrpc-go/jsonrpc/protocol/mcp",
	"progress":    "github.com/jsonrpc-go/jsonrpc/protocol/progress",
	"enumerator":  "github.com/jsonrpc-go/jsonrpc/protocol/enumerator",
	"acp":         "github.com/jsonrpc-go/jsonrpc/protocol/acp",
	"a2a":         "github.com/jsonrpc-go/jsonrpc/protocol/a2a",
	"jsonv2":      "github.com/jsonrpc-go/jsonrpc/codec/jsonv2",
	"codectest":   "github.com/jsonrpc-go/jsonrpc/codec/codectest",
	"fast":        "github.com/jsonrpc-go/jsonrpc/codec/fast",
	"fasthttprpc": "github.com/jsonrpc-go/jsonrpc/fasthttprpc",
	"otelrpc":     "github.com/jsonrpc-go/jsonrpc/otelrpc",
	"natsrpc":     "github.com/jsonrpc-go/jsonrpc/natsrpc",
	"redisrpc":    "github.com/jsonrpc-go/jsonrpc/redisrpc",
	"oauth":       "github.com/jsonrpc-go/jsonrpc/oauth",
	"jwtauth":     "github.com/jsonrpc-go/jsonrpc/jwtauth",
	"ethrpc":      snippetModule + "/ethrpc",
	"demorpc":     snippetModule + "/demorpc",
}

// snippetWorkspace lists the modules of the repository that snippets may
// import, beside the snippets' own.
var snippetWorkspace = []string{".", "codec/fast", "fasthttprpc", "jwtauth", "natsrpc", "otelrpc", "redisrpc"}

// snippetDocs returns the documents whose Go blocks are checked, relative
// to the repository's root: README.md and docs/*.md.
func snippetDocs(t *testing.T, dir string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"README.md"}
	for _, d := range docs {
		names = append(names, filepath.ToSlash(strings.TrimPrefix(d, dir+string(filepath.Separator))))
	}
	return names
}

// A block is a fenced code block of a document.
type block struct {
	doc     string // the document, relative to the repository's root
	heading string // the last heading above it ("### A server")
	line    int    // the line of its first line of code
	info    string // the fence's info string ("go", "sh", "")
	code    string // its lines, unindented
	given   string // the declarations of a "<!-- given:" comment above it
	gline   int    // the line where given begins
}

// blocks returns the fenced code blocks of the document doc (its text).
func blocks(doc string, text []byte) ([]block, error) {
	var (
		out     []block
		cur     *block   // the block being read
		indent  string   // its fence's indentation
		fence   string   // its fence's backticks
		code    []string // its lines so far
		comment []string // the HTML comment being read, or the last one
		cstart  int      // the line where comment begins
		cend    int      // the line where comment ended, 0 while it is open
		heading string   // the last heading
	)
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur != nil && strings.TrimSpace(trimmed) == fence:
			cur.code = strings.Join(code, "\n") + "\n"
			out = append(out, *cur)
			cur, code = nil, nil
		case cur != nil:
			code = append(code, strings.TrimPrefix(line, indent))
		case comment != nil && cend == 0:
			comment = append(comment, line)
			if strings.Contains(line, "-->") {
				cend = n
			}
		case strings.HasPrefix(line, "#"):
			heading = line
		case strings.HasPrefix(trimmed, "<!--"):
			comment, cstart, cend = []string{line}, n, 0
			if strings.Contains(line, "-->") {
				cend = n
			}
		case strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
			cur = &block{doc: doc, heading: heading, line: n + 1, info: strings.TrimSpace(trimmed[len(fence):])}
			if comment != nil && cend == n-1 {
				c := strings.TrimSpace(strings.Join(comment, "\n"))
				c = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(c, "<!--"), "-->"))
				if g, ok := strings.CutPrefix(c, "given:"); ok {
					cur.given, cur.gline = g, cstart
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: a code block that does not end", doc, cur.line-1)
	}
	return out, nil
}

// isGo reports whether b is a Go block: its info string's first word is go.
func (b block) isGo() bool {
	f := strings.Fields(b.info)
	return len(f) > 0 && f[0] == "go"
}

// source returns the Go file of b: the block as it is when it begins with
// a package clause, else the fragment with what it is given, wrapped as
// the rules above say, importing the packages it names.
func (b block) source() ([]byte, error) {
	fset := token.NewFileSet()
	if f, err := parser.ParseFile(fset, "", b.code, parser.PackageClauseOnly); err == nil && f.Name != nil {
		return fmt.Appendf(nil, "//line %s:%d\n%s", b.doc, b.line, b.code), nil
	}
	given := ""
	if b.given != "" {
		given = fmt.Sprintf("//line %s:%d\n%s\n", b.doc, b.gline, b.given)
	}
	// Declarations first; statements otherwise.
	src := fmt.Sprintf("package snippet\n\n%s//line %s:%d\n%s", given, b.doc, b.line, b.code)
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		src = fmt.Sprintf("package snippet\n\n%sfunc _() error {\n//line %s:%d\n%s\treturn nil\n}\n", given, b.doc, b.line, b.code)
		f, err = parser.ParseFile(fset, "", src, 0)
		if err != nil {
			return nil, err
		}
		// The variables the statements declare may go unused: use each.
		body := f.Decls[len(f.Decls)-1].(*ast.FuncDecl).Body
		var names []string
		for _, s := range body.List {
			switch s := s.(type) {
			case *ast.AssignStmt:
				if s.Tok == token.DEFINE {
					for _, l := range s.Lhs {
						if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
							names = append(names, id.Name)
						}
					}
				}
			case *ast.DeclStmt:
				if g, ok := s.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, sp := range g.Specs {
						for _, id := range sp.(*ast.ValueSpec).Names {
							if id.Name != "_" {
								names = append(names, id.Name)
							}
						}
					}
				}
			}
		}
		if len(names) > 0 {
			slices.Sort(names)
			names = slices.Compact(names)
			src = strings.TrimSuffix(src, "\treturn nil\n}\n") + fmt.Sprintf("\t%s = %s\n\treturn nil\n}\n", strings.Join(blanks(len(names)), ", "), strings.Join(names, ", "))
		}
	}
	// The packages it names.
	f, err = parser.ParseFile(fset, "", src, 0)
	if err != nil {
		return nil, err
	}
	var imports []string
	for _, id := range f.Unresolved {
		if p, ok := snippetImports[id.Name]; ok {
			imports = append(imports, fmt.Sprintf("\t%s %q\n", id.Name, p))
		}
	}
	sort.Strings(imports)
	imports = slices.Compact(imports)
	if len(imports) > 0 {
		src = strings.Replace(src, "package snippet\n", "package snippet\n\nimport (\n"+strings.Join(imports, "")+")\n", 1)
	}
	return []byte(src), nil
}

// blanks returns n blank identifiers.
func blanks(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = "_"
	}
	return s
}

// writeSnippetModule writes the Go blocks of docs (of the repository at
// dir) into a module in a temporary directory, a package per block, beside
// a workspace that holds it and the repository's modules, and returns the
// module's directory and the workspace file.
func writeSnippetModule(t *testing.T, dir string, docs []string) (mod, work string, n int) {
	t.Helper()
	tmp := t.TempDir()
	mod = filepath.Join(tmp, "snippets")
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(mod, "go.mod"), []byte("module "+snippetModule+"\n\ngo 1.26.0\n"))
	for _, doc := range docs {
		text, err := os.ReadFile(filepath.Join(dir, doc))
		if err != nil {
			t.Fatal(err)
		}
		bs, err := blocks(doc, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if !b.isGo() {
				continue
			}
			src, err := b.source()
			if err != nil {
				t.Errorf("%s:%d: the Go block does not parse, whole or as a fragment: %v", b.doc, b.line, err)
				continue
			}
			n++
			write(filepath.Join(mod, fmt.Sprintf("s%03d", n), "snippet.go"), src)
		}
	}
	// What cmd/openrpc-gen writes, for the snippets that use its output:
	// the checked-in packages, under the module's own import paths.
	for _, pkg := range []string{"ethrpc", "demorpc", "hexutil"} {
		files, err := filepath.Glob(filepath.Join(dir, "openrpc", "gen", "internal", pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src = bytes.ReplaceAll(src, []byte("github.com/jsonrpc-go/jsonrpc/openrpc/gen/internal/"), []byte(snippetModule+"/"))
			write(filepath.Join(mod, pkg, filepath.Base(f)), src)
		}
	}
	var ws strings.Builder
	ws.WriteString("go 1.26.0\n\nuse (\n\t./snippets\n")
	for _, m := range snippetWorkspace {
		fmt.Fprintf(&ws, "\t%s\n", filepath.Join(dir, m))
	}
	ws.WriteString(")\n")
	work = filepath.Join(tmp, "go.work")
	write(work, []byte(ws.String()))
	if sum, err := os.ReadFile(filepath.Join(dir, "go.work.sum")); err == nil {
		write(filepath.Join(tmp, "go.work.sum"), sum)
	}
	return mod, work, n
}

// TestSnippets compiles every Go block of README.md and docs/*.md, in a
// module of its own whose workspace holds the repository's modules, so
// that a snippet that no longer fits the API fails here, at its line.
func TestSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles every snippet of the documents")
	}
	goTool(t)
	dir := root(t)
	mod, work, n := writeSnippetModule(t, dir, snippetDocs(t, dir))
	if n == 0 {
		t.Fatal("no Go block in the documents")
	}
	cmd := goCmd(t, mod, []string{"GOWORK=" + work}, "build", "./...")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the documents' Go snippets do not compile: %v\n%s", err, out)
	}
	t.Logf("%d Go snippets compile", n)
}

// TestBlocks: the blocks of a document, their lines, and the declarations
// a "given" comment right above a fence gives; a comment with a blank line
// before the fence gives nothing.
func TestBlocks(t *testing.T) {
	doc := "# t\n" + // 1
		"<!-- given: var srv *jsonrpc.Server -->\n" + // 2
		"```go\n" + // 3
		"srv.MustRegister(\"add\", add)\n" + // 4
		"```\n" + // 5
		"<!-- given:\n" + // 6
		"type T int\n" + // 7
		"-->\n" + // 8
		"\n" + // 9
		"- a list item:\n" + // 10
		"  ```sh\n" + // 11
		"  go run .\n" + // 12
		"  ```\n" + // 13
		"````go\n" + // 14
		"package main\n" + // 15
		"```\n" + // 16
		"````\n" // 17
	bs, err := blocks("t.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []block{
		{doc: "t.md", heading: "# t", line: 4, info: "go", code: "srv.MustRegister(\"add\", add)\n", given: " var srv *jsonrpc.Server", gline: 2},
		{doc: "t.md", heading: "# t", line: 12, info: "sh", code: "go run .\n"},
		{doc: "t.md", heading: "# t", line: 15, info: "go", code: "package main\n```\n"},
	}
	if !slices.Equal(bs, want) {
		t.Errorf("blocks:\n%+v\nwant\n%+v", bs, want)
	}
	if _, err := blocks("t.md", []byte("```go\nx\n")); err == nil {
		t.Error("a block that does not end: no error")
	}
}

// TestSource: a whole file stays as it is; declarations are a file;
// statements are a function's body, their variables used; the packages
// named are imported.
func TestSource(t *testing.T) {
	for _, tc := range []struct {
		name, code, given string
		want              []string
	}{
		{"file", "package main\n\nfunc main() {}\n", "",
			[]string{"//line t.md:7\npackage main\n\nfunc main() {}\n"}},
		{"declarations", "type T struct{ C *client.Client }\n", "",
			[]string{"package snippet\n\nimport (\n\tclient \"github.com/jsonrpc-go/jsonrpc/client\"\n)\n", "//line t.md:7\ntype T"}},
		{"statements", "c := client.New(client.Local(srv))\nx, y := 1, 2\n", "var srv *jsonrpc.Server",
			[]string{"\tclient \"github.com/jsonrpc-go/jsonrpc/client\"\n\tjsonrpc \"github.com/jsonrpc-go/jsonrpc\"\n",
				"//line t.md:3\nvar srv", "func _() error {\n//line t.md:7\nc := ", "\t_, _, _ = c, x, y\n\treturn nil\n}\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := block{doc: "t.md", line: 7, info: "go", code: tc.code, given: tc.given, gline: 3}
			src, err := b.source()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(src), w) {
					t.Errorf("source lacks %q:\n%s", w, src)
				}
			}
		})
	}
	if _, err := (block{doc: "t.md", line: 1, code: "if x { ... }\n"}).source(); err == nil {
		t.Error("a block with a bare ... parsed")
	}
}

// TestSnippetsFormatted: every Go block of the documents is as gofmt
// writes it, a whole file or a fragment.
func TestSnippetsFormatted(t *testing.T) {
	dir := root(t)
	for _, doc := range snippetDocs(t, dir) {
		text, err := os.ReadFile(filepath.Join(dir, doc))
		if err != nil {
			t.Fatal(err)
		}
		bs, err := blocks(doc, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if !b.isGo() {
				continue
			}
			got, err := format.Source([]byte(b.code))
			if err != nil {
				t.Errorf("%s:%d: %v", b.doc, b.line, err)
				continue
			}
			if string(got) != b.code {
				t.Errorf("%s:%d: the Go block is not as gofmt writes it:\n%s", b.doc, b.line, got)
			}
		}
	}
}
