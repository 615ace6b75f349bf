package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The kinds of finding.
const (
	kindMutex   = "mutex"
	kindAtomic  = "atomic"
	kindPool    = "pool"
	kindSyncMap = "syncmap"
	kindGlobal  = "global"
)

func validKind(k string) bool {
	switch k {
	case kindMutex, kindAtomic, kindPool, kindSyncMap, kindGlobal:
		return true
	}
	return false
}

// A finding is one piece of shared state in a request-path file.
type finding struct {
	file string // slash-separated, relative to the root
	line int
	kind string
	name string // identifier path of the enclosing declaration
}

func (f finding) key() string { return f.file + ":" + f.kind + ":" + f.name }

// goFiles returns the non-test .go files that the path patterns name,
// slash-separated and relative to root, sorted and without duplicates. A
// pattern that names no such file is an error: it is a typo or a package
// that moved.
func goFiles(root string, patterns []string) ([]string, error) {
	var files []string
	for _, pat := range patterns {
		dir, recursive := strings.CutSuffix(pat, "/...")
		if pat == "..." {
			dir, recursive = ".", true
		}
		dir = path.Clean(dir)
		n := len(files)
		full := filepath.Join(root, filepath.FromSlash(dir))
		info, err := os.Stat(full)
		switch {
		case err != nil:
			return nil, fmt.Errorf("path %s: %v", pat, err)
		case !info.IsDir():
			if !recursive && isSource(dir) {
				files = append(files, dir)
			}
		case recursive:
			err = filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					return err
				}
				if p != full && skipDir(p, d.Name()) {
					return filepath.SkipDir
				}
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				files, err = appendDir(files, root, filepath.ToSlash(rel))
				return err
			})
		default:
			files, err = appendDir(files, root, dir)
		}
		if err != nil {
			return nil, fmt.Errorf("path %s: %v", pat, err)
		}
		if len(files) == n {
			return nil, fmt.Errorf("path %s names no non-test .go files", pat)
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// appendDir appends the non-test .go files of the directory dir (relative to
// root) to files.
func appendDir(files []string, root, dir string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !e.IsDir() && isSource(e.Name()) {
			files = append(files, path.Join(dir, e.Name()))
		}
	}
	return files, nil
}

func isSource(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
}

// skipDir reports whether a /... pattern skips the directory p named name,
// as the go command does.
func skipDir(p, name string) bool {
	if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := os.Stat(filepath.Join(p, "go.mod"))
	return err == nil
}

// scan returns the findings in files (relative to root), sorted by file and
// line. Files of package main are skipped.
func scan(root string, files []string) ([]finding, error) {
	fset := token.NewFileSet()
	var all []finding
	for _, rel := range files {
		f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(rel)), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "main" {
			continue
		}
		s := &fileScanner{fset: fset, file: rel, imports: map[string]string{}, seen: map[string]bool{}}
		if err := s.scanFile(f); err != nil {
			return nil, err
		}
		all = append(all, s.findings...)
	}
	slices.SortStableFunc(all, func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})
	return all, nil
}

// A fileScanner collects the findings of one file.
type fileScanner struct {
	fset     *token.FileSet
	file     string
	imports  map[string]string // local name -> "sync" or "sync/atomic"
	seen     map[string]bool   // keys found so far
	findings []finding
}

func (s *fileScanner) scanFile(f *ast.File) error {
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != "sync" && p != "sync/atomic" {
			continue
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			return fmt.Errorf("%s: dot import of %q hides its uses from syncguard; import it by name", s.fset.Position(imp.Pos()), p)
		}
		s.imports[name] = p
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			s.inspect(d, funcName(d), false)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					s.inspect(spec.Type, spec.Name.Name, true)
				case *ast.ValueSpec:
					if d.Tok == token.VAR {
						s.varSpec(spec)
					}
				}
			}
		}
	}
	return nil
}

// varSpec records the findings of a package-level var declaration: the sync
// state its names hold, or else each name as a global.
func (s *fileScanner) varSpec(vs *ast.ValueSpec) {
	for i, id := range vs.Names {
		if id.Name == "_" {
			continue // a compile-time check, not state
		}
		n := len(s.findings)
		if vs.Type != nil {
			s.inspect(vs.Type, id.Name, true)
		}
		if len(vs.Values) == len(vs.Names) {
			s.inspect(vs.Values[i], id.Name, false)
		} else {
			for _, v := range vs.Values { // var a, b = f()
				s.inspect(v, id.Name, false)
			}
		}
		if len(s.findings) == n {
			s.add(kindGlobal, id.Name, id.Pos())
		}
	}
}

// inspect records the sync selectors in n under name. With fields, the
// fields of struct types extend the name (T.mu); otherwise, as in function
// bodies, everything in n counts under name.
func (s *fileScanner) inspect(n ast.Node, name string, fields bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StructType:
			if !fields {
				return true
			}
			for _, f := range n.Fields.List {
				for _, fn := range fieldNames(f) {
					s.inspect(f.Type, name+"."+fn, true)
				}
			}
			return false
		case *ast.SelectorExpr:
			if kind := s.kindOf(n); kind != "" {
				s.add(kind, name, n.Pos())
			}
		}
		return true
	})
}

// kindOf returns the kind of finding that the selector sel is, or "".
func (s *fileScanner) kindOf(sel *ast.SelectorExpr) string {
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	switch s.imports[x.Name] {
	case "sync/atomic":
		return kindAtomic
	case "sync":
		switch sel.Sel.Name {
		case "Mutex", "RWMutex":
			return kindMutex
		case "Pool":
			return kindPool
		case "Map":
			return kindSyncMap
		}
	}
	return ""
}

func (s *fileScanner) add(kind, name string, pos token.Pos) {
	f := finding{file: s.file, line: s.fset.Position(pos).Line, kind: kind, name: name}
	if !s.seen[f.key()] {
		s.seen[f.key()] = true
		s.findings = append(s.findings, f)
	}
}

// fieldNames returns the names of a struct field: its names, or for an
// embedded field its type's name.
func fieldNames(f *ast.Field) []string {
	if len(f.Names) == 0 {
		return []string{typeName(f.Type)}
	}
	names := make([]string, len(f.Names))
	for i, id := range f.Names {
		names[i] = id.Name
	}
	return names
}

// funcName returns F for a function, T.M or (*T).M for a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := ast.Unparen(d.Recv.List[0].Type)
	if star, ok := t.(*ast.StarExpr); ok {
		return "(*" + typeName(star.X) + ")." + d.Name.Name
	}
	return typeName(t) + "." + d.Name.Name
}

// typeName returns the name of the named type in t, without pointers, type
// arguments or package qualifier.
func typeName(t ast.Expr) string {
	for {
		switch e := t.(type) {
		case *ast.Ident:
			return e.Name
		case *ast.SelectorExpr:
			return e.Sel.Name
		case *ast.StarExpr:
			t = e.X
		case *ast.ParenExpr:
			t = e.X
		case *ast.IndexExpr:
			t = e.X
		case *ast.IndexListExpr:
			t = e.X
		default:
			return "?"
		}
	}
}
