package doctest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// maxReadmeLines bounds the README: a front page, whose details are in the
// guides of docs/.
const maxReadmeLines = 450

var (
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`^\[[^\]]+\]:\s*(\S+)`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
)

// links returns the targets of the links of a Markdown text, outside code
// blocks, with their lines.
func links(text string) (targets []string, lines []int) {
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.TrimSpace(t) == fence {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") {
			fence = t[:len(t)-len(strings.TrimLeft(t, "`"))]
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets, lines = append(targets, m[1]), append(lines, i+1)
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			targets, lines = append(targets, m[1]), append(lines, i+1)
		}
	}
	return targets, lines
}

// anchors returns the anchors GitHub gives the headings of a Markdown text:
// lower case, punctuation dropped, spaces as hyphens, "-1" and on for
// repeats.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.TrimSpace(t) == fence {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") {
			fence = t[:len(t)-len(strings.TrimLeft(t, "`"))]
			continue
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestLinks: every link of README.md and docs/*.md to a file of the
// repository names one that exists, and every anchor a heading of its
// document, so that what moved between the README and the guides is still
// found.
func TestLinks(t *testing.T) {
	dir := root(t)
	docs := snippetDocs(t, dir)
	texts := map[string]string{}
	read := func(name string) (string, bool) {
		if s, ok := texts[name]; ok {
			return s, true
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", false
		}
		texts[name] = string(b)
		return string(b), true
	}
	n := 0
	for _, doc := range docs {
		text, ok := read(doc)
		if !ok {
			t.Fatalf("%s: cannot read", doc)
		}
		targets, lines := links(text)
		for i, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			path, anchor, _ := strings.Cut(target, "#")
			name := doc
			if path != "" {
				name = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(doc), path)))
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("%s:%d: link to %s: no such file or directory", doc, lines[i], target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(name, ".md") {
				continue
			}
			linked, _ := read(name)
			if !anchors(linked)[anchor] {
				t.Errorf("%s:%d: link to %s: %s has no heading with the anchor #%s", doc, lines[i], target, name, anchor)
			}
		}
	}
	if n == 0 {
		t.Fatal("no link found")
	}
}

// TestReadmeFrontPage: the README stays a front page, under
// maxReadmeLines lines, and links every guide of docs/.
func TestReadmeFrontPage(t *testing.T) {
	dir := root(t)
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n >= maxReadmeLines {
		t.Errorf("README.md has %d lines, want fewer than %d: move details into a guide of docs/", n, maxReadmeLines)
	}
	targets, _ := links(readme)
	linked := map[string]bool{}
	for _, target := range targets {
		path, _, _ := strings.Cut(target, "#")
		linked[path] = true
	}
	for _, doc := range snippetDocs(t, dir)[1:] {
		if !linked[doc] {
			t.Errorf("README.md does not link the guide %s", doc)
		}
	}
}

// TestAnchors: the anchors of headings, as GitHub makes them.
func TestAnchors(t *testing.T) {
	got := anchors("# jsonrpc-go\n## jsonrpcd, the demo server\n```\n# not a heading\n```\n### `Process` and `iter.Seq`\n## Limits\n## Limits\n")
	for _, a := range []string{"jsonrpc-go", "jsonrpcd-the-demo-server", "process-and-iterseq", "limits", "limits-1"} {
		if !got[a] {
			t.Errorf("no anchor %q in %v", a, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a line of a code block made an anchor")
	}
}
