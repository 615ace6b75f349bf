// Command syncguard enforces the request-path rule of this repository:
//
//	Every sync.Mutex/RWMutex, sync/atomic use, sync.Pool, and writable
//	package-level variable in the request-path files is listed in an
//	allowlist file with a one-line reason.
//
// Run it from the repository root:
//
//	go run ./bench/syncguard
//
// It exits 0 and prints a summary when every finding is allowed, 1 when a
// finding is missing from the allowlist or an entry is stale, has no reason
// or is malformed, and 2 when it cannot do its job (an unreadable file, a
// path that matches nothing, Go that does not parse).
//
// # Findings
//
// The request-path files are the non-test .go files, outside package main,
// that the allowlist's path lines name. Detection is syntactic: a selector
// X.Sel counts when X is the name under which the file imports "sync" or
// "sync/atomic" (so an aliased import is still caught; dot imports are
// rejected). Each finding has one of these kinds:
//
//	mutex    sync.Mutex or sync.RWMutex (values, pointers, fields, embedded)
//	atomic   any use of sync/atomic: types such as atomic.Pointer[T], calls
//	pool     sync.Pool
//	syncmap  sync.Map
//	global   a package-level var whose declaration has none of the above
//
// A package-level var whose declaration uses one of the sync kinds is
// reported under that kind only. Blank vars (var _ I = (*T)(nil)) are
// compile-time checks, not state, and are not reported; constants neither.
//
// Detection sees only what the file spells out: state hidden inside another
// package's types (a field of a type that embeds a mutex), sync.Once,
// sync.WaitGroup and channels are not findings, and a local name that
// shadows an import of sync or sync/atomic is taken for the package.
//
// A finding's key is file:kind:name. file is slash-separated and relative to
// the root. name is the identifier path of the enclosing declaration: a type
// and its struct fields (Server.mu, an embedded sync.Mutex is Server.Mutex), a
// package-level var (scratchPool, or state.mu for a field of a var's struct
// type), or a function or method ((*Server).handle) for any use inside a
// function, one key per function and kind.
//
// # Allowlist file format
//
// The allowlist (by default .ci/request-path.allowlist) is line-oriented.
// Blank lines and lines starting with # are ignored. It starts with the path
// lines, the one place where the request-path files are declared:
//
//	path .                 the root package's files
//	path internal/wire     one directory, not its subdirectories
//	path transport/...     a directory and everything below it
//	path internal/x/y.go   one file
//
// Paths are slash-separated and relative to the root; the /... form skips
// testdata, vendor, directories starting with . or _, and nested modules.
// Then come the entries, one per finding: the key, white space, and a
// non-empty one-line reason saying why the state is safe on the request
// path:
//
//	server.go:mutex:Server.mu  registration only; never taken by requests
//
// A reason starting with TODO does not count. The -list flag prints every
// finding as an entry line, with its listed reason or TODO, for bootstrapping
// the file when a path is added.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its arguments and output streams; it returns the
// exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("syncguard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "repository root `dir`ectory; paths and keys are relative to it")
	file := fs.String("allowlist", ".ci/request-path.allowlist", "allowlist `file`, relative to -root unless absolute")
	list := fs.Bool("list", false, "print every finding as an allowlist entry (reason TODO unless listed) and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: syncguard [-root dir] [-allowlist file] [-list]\n")
		fs.PrintDefaults()
	}
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	alPath := *file
	if !filepath.IsAbs(alPath) {
		alPath = filepath.Join(*root, alPath)
	}

	al, err := readAllowlist(alPath)
	if err != nil {
		fmt.Fprintf(stderr, "syncguard: %v\n", err)
		return 2
	}
	files, err := goFiles(*root, al.paths)
	if err != nil {
		fmt.Fprintf(stderr, "syncguard: %v\n", err)
		return 2
	}
	findings, err := scan(*root, files)
	if err != nil {
		fmt.Fprintf(stderr, "syncguard: %v\n", err)
		return 2
	}

	if *list {
		for _, f := range findings {
			reason := "TODO"
			if e, ok := al.byKey[f.key()]; ok && validReason(e.reason) {
				reason = e.reason
			}
			fmt.Fprintf(stdout, "%s  %s\n", f.key(), reason)
		}
		return 0
	}

	problems := check(al, findings, *root)
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "syncguard: %d problem(s) with %s; the rule and file format are in bench/syncguard\n", len(problems), alPath)
		return 1
	}
	fmt.Fprintf(stdout, "syncguard: %d findings in %d request-path files, all allowed\n", len(findings), len(files))
	return 0
}

// check returns the problems, in order: allowlist lines that are not well
// formed, findings missing from the allowlist, and entries that match no
// finding or lack a reason.
func check(al *allowlist, findings []finding, root string) []string {
	problems := al.problems
	found := make(map[string]bool, len(findings))
	for _, f := range findings {
		found[f.key()] = true
		if _, ok := al.byKey[f.key()]; !ok {
			problems = append(problems, fmt.Sprintf(
				"%s:%d: %s %s is not in the allowlist; add a line with a one-line reason:\n\t%s  TODO",
				filepath.Join(root, filepath.FromSlash(f.file)), f.line, f.kind, f.name, f.key()))
		}
	}
	for _, e := range al.entries {
		switch {
		case !found[e.key]:
			problems = append(problems, fmt.Sprintf("%s:%d: stale entry %s matches no finding; remove it", al.file, e.line, e.key))
		case !validReason(e.reason):
			problems = append(problems, fmt.Sprintf("%s:%d: entry %s has no reason", al.file, e.line, e.key))
		}
	}
	return problems
}
