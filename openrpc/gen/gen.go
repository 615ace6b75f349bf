package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Config says what Generate writes.
type Config struct {
	// Package is the name of the generated package. Required.
	Package string

	// Name prefixes the names of the client, the server interface and the
	// functions around them: with "Eth", EthClient, NewEthClient,
	// EthServer, RegisterEth, EthInfo. The default, "", gives Client,
	// NewClient, Server, Register, Info.
	Name string

	// Types maps schema components, by their name in the document, to Go
	// types of the user's own, written "import/path.Name": the component is
	// then an alias of that type, which must encode as the schema says (a
	// big quantity in hex, say). nil maps none.
	Types map[string]string

	// Source names the document in the header of the files; "" leaves it
	// out.
	Source string
}

// A File is a generated Go source file.
type File struct {
	Name string // the file's base name
	Data []byte // gofmt-formatted Go source
}

// Generate writes the Go package of the OpenRPC document doc: the types of
// its schemas, its errors, a client and a server interface. It returns the
// files in a fixed order; the same document and Config give the same
// bytes.
func Generate(doc []byte, cfg Config) ([]File, error) {
	if !isIdent(cfg.Package) {
		return nil, fmt.Errorf("gen: package name %q is not a Go identifier", cfg.Package)
	}
	if cfg.Name != "" && !isIdent(cfg.Name) {
		return nil, fmt.Errorf("gen: name %q is not a Go identifier", cfg.Name)
	}
	d, err := parseDocument(doc)
	if err != nil {
		return nil, err
	}
	for comp := range cfg.Types {
		if _, ok := d.Components.Schemas[comp]; !ok {
			return nil, fmt.Errorf("gen: -type %s: the document has no schema %s", comp, comp)
		}
	}
	g := &generator{
		doc:      d,
		cfg:      cfg,
		prefix:   exported(cfg.Name),
		taken:    map[string]bool{},
		comps:    map[string]string{},
		declared: map[string]bool{},
		refTypes: map[string]goType{},
		refBusy:  map[string]bool{},
		imports:  map[string]string{},
	}
	if cfg.Name == "" {
		g.prefix = ""
	}
	return g.generate()
}

// generator holds what generating one package has learnt.
type generator struct {
	doc    *document
	cfg    Config
	prefix string // Config.Name, exported

	taken    map[string]bool   // package-level Go names in use
	comps    map[string]string // schema component → its Go name
	declared map[string]bool   // components declared
	refTypes map[string]goType // types of $refs that are not components
	refBusy  map[string]bool   // $refs being typed
	decls    []string          // the type declarations, in order
	unions   bool              // a union was declared: the helpers are needed
	imports  map[string]string // package name → path, of mapped types

	methods []*plan
	errs    []*errDecl
}

// A plan is how one method is called and served.
type plan struct {
	m         *method
	goName    string
	params    []*param
	result    *goType // nil when the result is null
	byName    bool    // the client sends params by name
	bindAll   bool    // the server takes the params as one struct
	paramsT   string  // the struct of the params, when byName or bindAll
	names     bool    // the server registers with ParamNames
	defaults  []*param
	errs      []*errDecl
	notify    string // the name of the client's notification, or ""
	variadic  *param
	hasOption bool
}

// A param is one param of a method.
type param struct {
	cd       *contentDescriptor
	name     string // the Go param name
	field    string // the field of the params struct
	typ      goType // the type the server gets
	optional bool
	variadic bool
	elem     goType // the element type of a variadic param
}

// An errDecl is an error the document declares: a variable of the
// package.
type errDecl struct {
	name    string
	code    int64
	message string
	methods []string
}

func (g *generator) generate() ([]File, error) {
	names := make([]string, 0, len(g.doc.Components.Schemas))
	for n := range g.doc.Components.Schemas {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, fixed := range []string{"Client", "Conn", "Server", "UnimplementedServer"} {
		g.taken[g.prefix+fixed] = true
	}
	g.taken["New"+g.prefix+"Client"] = true
	g.taken["Register"+g.prefix] = true
	g.taken[g.prefix+"Info"] = true
	if g.prefix == "" {
		g.taken["Register"] = true
	}
	g.taken[g.helper("kindOf")] = true
	g.taken[g.helper("elemKindOf")] = true
	for _, n := range names {
		g.comps[n] = g.newName(exported(n))
	}
	for _, n := range names {
		if _, err := g.component(n); err != nil {
			return nil, fmt.Errorf("gen: %w", err)
		}
	}
	if err := g.planErrors(); err != nil {
		return nil, err
	}
	methodNames := map[string]bool{}
	for _, m := range g.doc.Methods {
		if methodNames[m.Name] {
			return nil, fmt.Errorf("gen: method %s is listed twice", m.Name)
		}
		methodNames[m.Name] = true
		p, err := g.plan(m)
		if err != nil {
			return nil, fmt.Errorf("gen: method %s: %w", m.Name, err)
		}
		g.methods = append(g.methods, p)
	}
	g.planNotifications()
	stem := "openrpc"
	if g.cfg.Name != "" {
		stem = strings.ToLower(g.cfg.Name)
	}
	var files []File
	for _, f := range []struct {
		name string
		body func() string
	}{
		{stem + "_types.go", g.typesFile},
		{stem + "_client.go", g.clientFile},
		{stem + "_server.go", g.serverFile},
	} {
		src, err := g.file(f.name, f.body())
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: f.name, Data: src})
	}
	return files, nil
}

// newName returns name, or name with a number, so that it is a package
// name of its own.
func (g *generator) newName(name string) string {
	return unique(name, g.taken)
}

// planErrors gives each error the methods declare, by code and message, a
// variable.
func (g *generator) planErrors() error {
	byKey := map[string]*errDecl{}
	for _, m := range g.doc.Methods {
		for _, e := range m.Errors {
			key := strconv.FormatInt(e.Code, 10) + " " + strings.ToLower(e.Message)
			d := byKey[key]
			if d == nil {
				d = &errDecl{code: e.Code, message: e.Message}
				byKey[key] = d
				g.errs = append(g.errs, d)
			}
			if !slices.Contains(d.methods, m.Name) {
				d.methods = append(d.methods, m.Name)
			}
		}
	}
	slices.SortStableFunc(g.errs, func(a, b *errDecl) int {
		if a.code != b.code {
			if a.code < b.code {
				return -1
			}
			return 1
		}
		return strings.Compare(a.message, b.message)
	})
	for _, d := range g.errs {
		base := "Err" + exported(words(d.message, 8))
		if base == "ErrX" {
			base = "ErrCode" + strings.ReplaceAll(strconv.FormatInt(d.code, 10), "-", "Minus")
		}
		d.name = g.newName(base)
	}
	return nil
}

// errorsOf returns the variables of m's errors.
func (g *generator) errorsOf(m *method) []*errDecl {
	var out []*errDecl
	for _, e := range m.Errors {
		for _, d := range g.errs {
			if d.code == e.Code && strings.EqualFold(d.message, e.Message) && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// plan decides how method m is called and served.
func (g *generator) plan(m *method) (*plan, error) {
	p := &plan{m: m, goName: exported(m.Name), errs: g.errorsOf(m)}
	p.byName = m.ParamStructure == "by-name"
	taken := map[string]bool{}
	for _, reserved := range []string{"ctx", "c", "params", "n", "p", "err", "impl", "srv", "result",
		"context", "json", "jsonrpc", "client", "openrpc", "fmt", "errors", "time"} {
		taken[reserved] = true
	}
	fields := map[string]bool{}
	for i, cd := range m.Params {
		pp := &param{cd: cd, name: unique(unexported(cd.Name), taken), field: unique(exported(cd.Name), fields)}
		t, err := g.typeOf(cd.Schema, p.goName+exported(cd.Name))
		if err != nil {
			return nil, fmt.Errorf("param %s: %w", cd.Name, err)
		}
		pp.typ = t
		last := i == len(m.Params)-1
		if cd.Variadic && last {
			if shape, _ := g.shape(cd.Schema); shape == shapeArray {
				pp.variadic = true
				items := g.arrayItems(cd.Schema)
				if pp.elem, err = g.typeOf(items, p.goName+exported(cd.Name)+"Item"); err != nil {
					return nil, err
				}
				p.variadic = pp
			}
		}
		pp.optional = !cd.Required && !pp.variadic
		p.params = append(p.params, pp)
	}
	// The server takes the params as one struct when Register could not
	// say them otherwise: an optional param without a default, or before
	// a required one, or one param that is itself a struct (which
	// Register would take field by field).
	seenOptional := false
	for _, pp := range p.params {
		switch {
		case pp.optional && len(pp.cd.Schema.Default) == 0:
			p.bindAll = true
		case pp.optional:
			seenOptional = true
		case seenOptional && !pp.variadic:
			p.bindAll = true
		}
	}
	if len(p.params) == 1 && !p.params[0].variadic && p.params[0].typ.object {
		p.bindAll = true
	}
	if p.bindAll || p.byName {
		p.paramsT = g.newName(p.goName + "Params")
	}
	if !p.bindAll {
		for _, pp := range p.params {
			if pp.optional {
				p.defaults = append(p.defaults, pp)
			}
		}
		p.names = len(p.params) > 0 && (m.ParamStructure != "by-position" || !positionalNames(m.Params))
	}
	if m.Result != nil {
		if shape, _ := g.shape(m.Result.Schema); shape != shapeNull {
			t, err := g.typeOf(m.Result.Schema, p.goName+"Result")
			if err != nil {
				return nil, fmt.Errorf("result: %w", err)
			}
			p.result = &t
		}
	}
	return p, nil
}

// positionalNames reports whether params are named param0, param1, ...,
// as Describe names params registered without names.
func positionalNames(params []*contentDescriptor) bool {
	for i, p := range params {
		if p.Name != "param"+strconv.Itoa(i) {
			return false
		}
	}
	return true
}

// planNotifications names the notification of each method that returns
// nothing: Notify and its name, unless that is another method's.
func (g *generator) planNotifications() {
	used := map[string]bool{}
	for _, p := range g.methods {
		used[p.goName] = true
	}
	for _, p := range g.methods {
		if p.result == nil && !used["Notify"+p.goName] {
			p.notify = "Notify" + p.goName
			used[p.notify] = true
		}
	}
}

// file puts the package clause, the header and the imports the body uses
// before body, and formats it.
func (g *generator) file(name, body string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by openrpc-gen")
	if g.cfg.Source != "" {
		b.WriteString(" from " + g.cfg.Source)
	}
	b.WriteString("; DO NOT EDIT.\n\n")
	if strings.HasSuffix(name, "_types.go") {
		b.WriteString(comment("Package "+g.cfg.Package+" calls and serves "+titleOf(g.doc)+", from its OpenRPC document: the Go types of its schemas, the errors it declares, a client and a server interface.",
			"", "") + "")
	}
	b.WriteString("package " + g.cfg.Package + "\n\n")
	used, err := usedPackages(body)
	if err != nil {
		return nil, fmt.Errorf("gen: %s: %w\n%s", name, err, body)
	}
	known := map[string]string{
		"context": "context",
		"json":    "encoding/json",
		"errors":  "errors",
		"fmt":     "fmt",
		"time":    "time",
		"jsonrpc": "github.com/jsonrpc-go/jsonrpc",
		"client":  "github.com/jsonrpc-go/jsonrpc/client",
		"openrpc": "github.com/jsonrpc-go/jsonrpc/openrpc",
	}
	for pkg, path := range g.imports {
		known[pkg] = path
	}
	var paths []string
	for pkg := range used {
		if path, ok := known[pkg]; ok {
			paths = append(paths, path)
		}
	}
	slices.Sort(paths)
	if len(paths) > 0 {
		b.WriteString("import (\n")
		std := true
		for _, p := range paths {
			if std && strings.Contains(p, ".") {
				if p != paths[0] {
					b.WriteString("\n")
				}
				std = false
			}
			b.WriteString(strconv.Quote(p) + "\n")
		}
		b.WriteString(")\n\n")
	}
	b.WriteString(body)
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gen: %s does not parse: %w\n%s", name, err, b.Bytes())
	}
	return src, nil
}

// usedPackages returns the names that body uses as packages (x in x.Y)
// without declaring them.
func usedPackages(body string) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n\n"+body, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used, nil
}

func titleOf(d *document) string {
	t := d.Info.Title
	if t == "" {
		t = "the API"
	}
	if d.Info.Version != "" {
		t += " " + d.Info.Version
	}
	return t
}

// typesFile is the body of the file of types and errors.
func (g *generator) typesFile() string {
	var b strings.Builder
	for _, d := range g.decls {
		if d != "" {
			b.WriteString(d + "\n")
		}
	}
	for _, p := range g.methods {
		if p.paramsT == "" {
			continue
		}
		fmt.Fprintf(&b, "// %s are the params of %s", p.paramsT, p.m.Name)
		if p.byName {
			b.WriteString(", which it takes by name")
		}
		b.WriteString(".\ntype " + p.paramsT + " struct {\n")
		for _, pp := range p.params {
			t, tag := pp.typ, pp.cd.Name
			if pp.optional {
				t, tag = t.orNull(), tag+",omitempty"
			}
			if c := descriptorComment(pp.cd); c != "" {
				b.WriteString(c)
			}
			fmt.Fprintf(&b, "%s %s `json:%s`\n", pp.field, t.expr, strconv.Quote(tag))
		}
		b.WriteString("}\n\n")
	}
	if len(g.errs) > 0 {
		b.WriteString("// The errors the methods declare. A *jsonrpc.Error matches one with\n// errors.Is when their codes are equal, whatever the message.\nvar (\n")
		for _, d := range g.errs {
			b.WriteString(comment(fmt.Sprintf("%s is the error %d, %q, of %s.", d.name, d.code, d.message, strings.Join(d.methods, ", ")), "", ""))
			fmt.Fprintf(&b, "%s = jsonrpc.NewError(%d, %s)\n", d.name, d.code, strconv.Quote(d.message))
		}
		b.WriteString(")\n\n")
	}
	if g.unions {
		b.WriteString(g.helpersDecl())
	}
	return b.String()
}

// sig writes the params of p's Go methods after ctx: each param, optional
// ones (on the client) as pointers, a variadic one as ...T; or the params
// struct, on the server when it takes one.
func (p *plan) sig(server bool) string {
	var b strings.Builder
	b.WriteString("ctx context.Context")
	if server && p.bindAll {
		return b.String() + ", p " + p.paramsT
	}
	for _, pp := range p.params {
		t := pp.typ
		switch {
		case pp.variadic:
			fmt.Fprintf(&b, ", %s ...%s", pp.name, pp.elem.expr)
			continue
		case pp.optional && !server:
			t = t.orNull()
		}
		fmt.Fprintf(&b, ", %s %s", pp.name, t.expr)
	}
	return b.String()
}

// results writes the results of p's Go methods.
func (p *plan) results() string {
	if p.result == nil {
		return "error"
	}
	return "(" + p.result.expr + ", error)"
}

// methodComment is the doc comment of the Go method that calls or serves
// p's method.
func (g *generator) methodComment(p *plan, verb string) string {
	first := p.goName + " " + verb + " " + p.m.Name
	if p.m.Summary != "" {
		first += ": " + strings.TrimSpace(p.m.Summary)
	} else {
		first += "."
	}
	c := comment(first, "", p.m.Description)
	var more []string
	for _, pp := range p.params {
		if s := strings.TrimSpace(firstLine(pp.cd.Summary + " " + pp.cd.Description)); s != "" {
			more = append(more, pp.name+": "+s)
		} else if s := strings.TrimSpace(pp.cd.Schema.Title); s != "" {
			more = append(more, pp.name+": "+s)
		}
	}
	if len(p.errs) > 0 {
		var names []string
		for _, d := range p.errs {
			names = append(names, d.name)
		}
		more = append(more, "It declares the errors "+strings.Join(names, ", ")+".")
	}
	if p.m.Deprecated {
		more = append(more, "Deprecated: the document marks "+p.m.Name+" deprecated.")
	}
	for _, s := range more {
		c += "//\n" + comment(s, "", "")
	}
	return c
}

// comment writes first, then title and description, as a doc comment.
func comment(first, title, description string) string {
	var b strings.Builder
	text := strings.TrimSpace(first)
	if t := strings.TrimSpace(title); t != "" {
		text = strings.TrimSuffix(text, ".") + ": " + t
	}
	if !strings.HasSuffix(text, ".") && !strings.HasSuffix(text, ":") {
		text += "."
	}
	writeWrapped(&b, text)
	for _, para := range paragraphs(description) {
		b.WriteString("//\n")
		writeWrapped(&b, para)
	}
	return b.String()
}

// paragraphs returns the paragraphs of a description as plain sentences,
// which gofmt leaves as they are whatever its release: each paragraph on
// one line, without the marks that would make it a heading, a list or
// code, ended by punctuation.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		p = strings.Join(strings.Fields(p), " ")
		p = strings.TrimLeft(p, "#-*+> ")
		if p == "" {
			continue
		}
		if !strings.ContainsAny(p[len(p)-1:], ".:!?") {
			p += "."
		}
		out = append(out, p)
	}
	return out
}

// fieldComment is the comment of a struct field of schema s, the member
// name, or "".
func fieldComment(name string, s *schema) string {
	if s == nil {
		return ""
	}
	text := strings.TrimSpace(s.Title)
	if strings.EqualFold(strings.ReplaceAll(text, " ", ""), name) {
		text = ""
	}
	if d := strings.TrimSpace(firstLine(s.Description)); d != "" {
		if text != "" {
			text += ": "
		}
		text += d
	}
	if text == "" {
		return ""
	}
	var b strings.Builder
	writeWrapped(&b, text)
	return b.String()
}

func descriptorComment(cd *contentDescriptor) string {
	text := strings.TrimSpace(firstLine(cd.Summary + " " + cd.Description))
	if text == "" {
		return fieldComment(cd.Name, cd.Schema)
	}
	var b strings.Builder
	writeWrapped(&b, text)
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// writeWrapped writes text as comment lines of at most about 76 columns.
func writeWrapped(b *strings.Builder, text string) {
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > 76 {
			b.WriteString("// " + line + "\n")
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	b.WriteString(strings.TrimRight("// "+line, " ") + "\n")
}

// words returns the first n words of s.
func words(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// exported turns s into an exported Go identifier: its letters and
// digits, each word capitalized ("eth_getBlockByNumber" is
// EthGetBlockByNumber, "INVALID_BLOCK_HASH" InvalidBlockHash).
func exported(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if isUpper(w) && utf8.RuneCountInString(w) > 1 {
			w = strings.ToLower(w)
		}
		r, size := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[size:])
	}
	out := b.String()
	if out == "" {
		return "X"
	}
	if r, _ := utf8.DecodeRuneInString(out); unicode.IsDigit(r) {
		return "X" + out
	}
	return out
}

// unexported turns s into an unexported Go identifier.
func unexported(s string) string {
	return lowerFirst(exported(s))
}

// lowerFirst lowers the leading capitals of s: "Block" is block, "URLPath"
// urlPath.
func lowerFirst(s string) string {
	rs := []rune(s)
	n := 0
	for n < len(rs) && unicode.IsUpper(rs[n]) {
		n++
	}
	switch {
	case n == 0:
		return s
	case n > 1 && n < len(rs) && unicode.IsLower(rs[n]):
		n-- // the last capital starts the next word
	}
	for i := range n {
		rs[i] = unicode.ToLower(rs[i])
	}
	out := string(rs)
	if token.IsKeyword(out) {
		out += "_"
	}
	return out
}

func isUpper(s string) bool {
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// unique returns name, or name with the first number from 2 that makes it
// new in taken, and takes it.
func unique(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n] || token.IsKeyword(n); i++ {
		n = name + strconv.Itoa(i)
	}
	taken[n] = true
	return n
}

func isIdent(s string) bool {
	return token.IsIdentifier(s)
}

// goString writes s as a Go string literal.
func goString(s string) string {
	if !strings.Contains(s, "`") && strings.Contains(s, "\"") && utf8.ValidString(s) && !strings.ContainsAny(s, "\r") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// compactJSON returns b without insignificant space.
func compactJSON(b json.RawMessage) string {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return string(b)
	}
	return out.String()
}
