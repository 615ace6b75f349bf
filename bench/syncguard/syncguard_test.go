package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTree writes files (slash-separated path -> content) under a new
// temporary directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// runIn runs the command against root with the allowlist text allow and
// returns its exit status and output.
func runIn(t *testing.T, root, allow string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	al := filepath.Join(root, ".ci", "request-path.allowlist")
	if err := os.MkdirAll(filepath.Dir(al), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(al, []byte(allow), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code = run(append([]string{"-root", root}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// findKeys returns the keys of the findings in the files under root that
// the path patterns name.
func findKeys(t *testing.T, root string, patterns ...string) []string {
	t.Helper()
	files, err := goFiles(root, patterns)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := scan(root, files)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range fs {
		keys = append(keys, f.key())
	}
	return keys
}

const kindsSrc = `package p

import (
	"io"
	"sync"
	"sync/atomic"
)

type T struct {
	mu    sync.Mutex
	rw    *sync.RWMutex
	sync.Mutex
	n     atomic.Int64
	ptr   atomic.Pointer[T]
	pool  sync.Pool
	m     sync.Map
	inner struct{ mu sync.RWMutex }
	plain int
}

type counters [4]atomic.Uint64

var _ io.Reader = (*T)(nil)

const limit = 10

var (
	table   = map[string]int{"a": 1}
	bufPool = sync.Pool{New: func() any { return new([]byte) }}
	hits    atomic.Uint64
	state   struct {
		mu sync.Mutex
		n  int
	}
	a, b = 1, 2
)

var errStatic = io.EOF

func (t *T) Read(p []byte) (int, error) {
	t.n.Add(1)
	var n int64
	atomic.AddInt64(&n, 1)
	atomic.AddInt64(&n, 1)
	return int(n), nil
}

func lockLocal() {
	var mu sync.Mutex
	mu.Lock()
	defer mu.Unlock()
}

func (T) load(p *int32) int32 { return atomic.LoadInt32(p) }
`

func TestFindingKinds(t *testing.T) {
	root := writeTree(t, map[string]string{"p/p.go": kindsSrc})
	got := findKeys(t, root, "p")
	want := []string{
		"p/p.go:mutex:T.mu",
		"p/p.go:mutex:T.rw",
		"p/p.go:mutex:T.Mutex",
		"p/p.go:atomic:T.n",
		"p/p.go:atomic:T.ptr",
		"p/p.go:pool:T.pool",
		"p/p.go:syncmap:T.m",
		"p/p.go:mutex:T.inner.mu",
		"p/p.go:atomic:counters",
		"p/p.go:global:table",
		"p/p.go:pool:bufPool",
		"p/p.go:atomic:hits",
		"p/p.go:mutex:state.mu",
		"p/p.go:global:a",
		"p/p.go:global:b",
		"p/p.go:global:errStatic",
		"p/p.go:atomic:(*T).Read",
		"p/p.go:mutex:lockLocal",
		"p/p.go:atomic:T.load",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAliasedAtomicImport(t *testing.T) {
	root := writeTree(t, map[string]string{"p/p.go": `package p

import (
	at "sync/atomic"
	s "sync"
)

type T struct {
	n  at.Int32
	mu s.RWMutex
}

// atomic here is not the package: it is not imported under that name.
type atomic struct{ Int64 int }

var x atomic

func f() int { return x.Int64 }
`})
	got := findKeys(t, root, "p")
	want := []string{"p/p.go:atomic:T.n", "p/p.go:mutex:T.mu", "p/p.go:global:x"}
	if !slices.Equal(got, want) {
		t.Errorf("findings = %q, want %q", got, want)
	}
}

func TestDotImportRejected(t *testing.T) {
	root := writeTree(t, map[string]string{"p/p.go": "package p\n\nimport . \"sync/atomic\"\n\nvar n Int64\n"})
	code, _, stderr := runIn(t, root, "path p\n")
	if code != 2 || !strings.Contains(stderr, "dot import") {
		t.Errorf("exit %d, stderr %q; want 2 and a dot import error", code, stderr)
	}
}

func TestSkippedFiles(t *testing.T) {
	root := writeTree(t, map[string]string{
		"lib.go":                  "package lib\n\nvar kept = 1\n",
		"lib_test.go":             "package lib\n\nimport \"sync\"\n\nvar testMu sync.Mutex\n",
		"gen.go":                  "//go:build ignore\n\npackage main\n\nvar genState = 1\n",
		"sub/sub.go":              "package sub\n\nvar subState = 1\n",
		"sub/tool/main.go":        "package main\n\nvar toolState = 1\n",
		"sub/testdata/x.go":       "package x\n\nvar fixture = 1\n",
		"sub/.hidden/h.go":        "package h\n\nvar hidden = 1\n",
		"sub/nested/go.mod":       "module nested\n",
		"sub/nested/n.go":         "package nested\n\nvar otherModule = 1\n",
		"notlisted/notlisted.go":  "package notlisted\n\nvar elsewhere = 1\n",
		"sub/deeper/deeper.go":    "package deeper\n\nvar deep = 1\n",
		"sub/deeper/deep_test.go": "package deeper\n\nvar deepTest = 1\n",
	})
	got := findKeys(t, root, ".", "sub/...", "lib.go")
	want := []string{"lib.go:global:kept", "sub/deeper/deeper.go:global:deep", "sub/sub.go:global:subState"}
	if !slices.Equal(got, want) {
		t.Errorf("findings = %q, want %q", got, want)
	}
}

func TestPathErrors(t *testing.T) {
	root := writeTree(t, map[string]string{
		"p/p.go":      "package p\n",
		"q/q_test.go": "package q\n",
	})
	for _, allow := range []string{
		"path missing\n",      // no such directory
		"path q\n",            // only test files
		"# no paths at all\n", // nothing declared
	} {
		if code, _, stderr := runIn(t, root, allow); code != 2 {
			t.Errorf("allowlist %q: exit %d, want 2; stderr:\n%s", allow, code, stderr)
		}
	}
}

// src has one finding of each kind the checks below use.
const src = `package p

import "sync"

var mu sync.Mutex

var table = map[string]int{}
`

func TestCheck(t *testing.T) {
	root := writeTree(t, map[string]string{"p/p.go": src, "p/p_test.go": "package p\n\nvar testOnly = 1\n"})
	const head = "# request-path files\npath p\n\n"
	tests := []struct {
		name  string
		allow string
		code  int
		want  []string // substrings of the output
	}{{
		name:  "all allowed",
		allow: head + "p/p.go:mutex:mu  guards table; init only\np/p.go:global:table\tread-only after init\n",
		code:  0,
		want:  []string{"2 findings in 1 request-path files, all allowed"},
	}, {
		name:  "missing",
		allow: head + "p/p.go:mutex:mu  guards table\n",
		code:  1,
		want:  []string{filepath.Join(root, "p", "p.go") + ":7: global table is not in the allowlist", "\tp/p.go:global:table  TODO"},
	}, {
		name:  "stale",
		allow: head + "p/p.go:mutex:mu  guards table\np/p.go:global:table  read-only\np/p.go:global:gone  was removed\n",
		code:  1,
		want:  []string{"request-path.allowlist:6: stale entry p/p.go:global:gone"},
	}, {
		name:  "test file entry is stale",
		allow: head + "p/p.go:mutex:mu  guards table\np/p.go:global:table  read-only\np/p_test.go:global:testOnly  test\n",
		code:  1,
		want:  []string{"stale entry p/p_test.go:global:testOnly"},
	}, {
		name:  "no reason",
		allow: head + "p/p.go:mutex:mu\np/p.go:global:table  read-only\n",
		code:  1,
		want:  []string{"request-path.allowlist:4: entry p/p.go:mutex:mu has no reason"},
	}, {
		name:  "TODO reason",
		allow: head + "p/p.go:mutex:mu  TODO\np/p.go:global:table  read-only\n",
		code:  1,
		want:  []string{"entry p/p.go:mutex:mu has no reason"},
	}, {
		name:  "malformed and duplicate",
		allow: head + "p/p.go:lock:mu  x\np/p.go:mutex:mu  a\np/p.go:mutex:mu  b\np/p.go:global:table  c\n",
		code:  1,
		want:  []string{`malformed key "p/p.go:lock:mu"`, "duplicate entry p/p.go:mutex:mu (first on line 5)"},
	}, {
		name:  "path after entries",
		allow: head + "p/p.go:mutex:mu  a\np/p.go:global:table  b\npath q\n",
		code:  1,
		want:  []string{"path line after the entries"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runIn(t, root, tt.allow)
			out := stdout + stderr
			if code != tt.code {
				t.Errorf("exit %d, want %d; output:\n%s", code, tt.code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestList(t *testing.T) {
	root := writeTree(t, map[string]string{"p/p.go": src})
	code, stdout, stderr := runIn(t, root, "path p\np/p.go:global:table  read-only after init\n", "-list")
	want := "p/p.go:mutex:mu  TODO\np/p.go:global:table  read-only after init\n"
	if code != 0 || stdout != want {
		t.Errorf("-list: exit %d, stdout:\n%s\nstderr:\n%s\nwant stdout:\n%s", code, stdout, stderr, want)
	}
}
