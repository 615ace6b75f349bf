package main

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"strings"
)

// An allowlist is a parsed allowlist file.
type allowlist struct {
	file     string            // its name, for messages
	paths    []string          // the request-path patterns
	entries  []entry           // in file order, without duplicates
	byKey    map[string]*entry // entries by key
	problems []string          // malformed lines, as file:line: messages
}

// An entry allows one finding.
type entry struct {
	key    string
	reason string // may be empty or TODO: check reports it
	line   int
}

// readAllowlist reads and parses the allowlist file name. Malformed lines
// are recorded as problems; the error is for a file that cannot be read or
// declares no paths.
func readAllowlist(name string) (*allowlist, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	al := &allowlist{file: name, byKey: map[string]*entry{}}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if msg := al.parseLine(strings.TrimSpace(sc.Text()), n); msg != "" {
			al.problems = append(al.problems, fmt.Sprintf("%s:%d: %s", name, n, msg))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %v", name, err)
	}
	if len(al.paths) == 0 {
		return nil, fmt.Errorf("%s declares no request-path files: add path lines at its top", name)
	}
	for i := range al.entries {
		al.byKey[al.entries[i].key] = &al.entries[i]
	}
	return al, nil
}

// parseLine parses line number n, already trimmed, and returns what is wrong
// with it, or "".
func (al *allowlist) parseLine(line string, n int) string {
	if line == "" || strings.HasPrefix(line, "#") {
		return ""
	}
	key := strings.Fields(line)[0]
	reason := strings.TrimSpace(line[len(key):])
	if key == "path" {
		switch {
		case len(al.entries) > 0:
			return "path line after the entries: declare all paths at the top"
		case reason == "" || strings.ContainsAny(reason, " \t"):
			return "want: path DIR, path DIR/... or path FILE.go"
		case path.IsAbs(reason) || reason == ".." || strings.HasPrefix(reason, "../"):
			return fmt.Sprintf("path %s is not inside the root", reason)
		}
		al.paths = append(al.paths, reason)
		return ""
	}
	if !validKey(key) {
		return fmt.Sprintf("malformed key %q: want file:kind:name with kind one of mutex, atomic, pool, syncmap, global", key)
	}
	for _, e := range al.entries {
		if e.key == key {
			return fmt.Sprintf("duplicate entry %s (first on line %d)", key, e.line)
		}
	}
	al.entries = append(al.entries, entry{key: key, reason: reason, line: n})
	return ""
}

// validKey reports whether key has the form file:kind:name.
func validKey(key string) bool {
	parts := strings.Split(key, ":")
	return len(parts) == 3 && parts[0] != "" && parts[2] != "" && validKind(parts[1])
}

// validReason reports whether reason says something: it is not empty and not
// a TODO placeholder.
func validReason(reason string) bool {
	return reason != "" && !strings.HasPrefix(reason, "TODO")
}
