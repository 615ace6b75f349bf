package main

import (
	"bufio"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// hostingDoc is the guide whose commands TestHostingCommands runs.
const hostingDoc = "../../docs/HOSTING.md"

// A command is one "$ " line of a block of commands in a document (with
// the lines its trailing backslashes join), and the lines of output the
// document shows after it.
type command struct {
	line int
	text string
	want []string
}

// commandBlocks returns the sh blocks of a document that hold "$ "
// commands, each as its commands.
func commandBlocks(t *testing.T, doc string) [][]command {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out     [][]command
		cur     []command
		inBlock bool
		cont    bool // the command goes on on the next line
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case !inBlock && line == "```sh":
			inBlock, cur = true, nil
		case !inBlock:
		case line == "```":
			inBlock = false
			if len(cur) > 0 {
				out = append(out, cur)
			}
		case cont:
			c := &cur[len(cur)-1]
			c.text += " " + strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "\\"))
			cont = strings.HasSuffix(line, "\\")
		case strings.HasPrefix(line, "$ "):
			cur = append(cur, command{line: n, text: strings.TrimSpace(strings.TrimSuffix(line[2:], "\\"))})
			cont = strings.HasSuffix(line, "\\")
		case line != "" && len(cur) > 0:
			c := &cur[len(cur)-1]
			c.want = append(c.want, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// elided matches what a document's output leaves out: "…" or "...", with
// the letters and digits just before it ("5b0c…", an id's beginning).
var elided = regexp.MustCompile(`[0-9A-Za-z]*(…|\.\.\.)`)

// outputPattern returns a regular expression of a line of output as a
// document shows it, each elision any text, and the elided tokens in order.
func outputPattern(line string) (*regexp.Regexp, []string) {
	var (
		b      strings.Builder
		tokens []string
		last   int
	)
	b.WriteString("^")
	for _, m := range elided.FindAllStringIndex(line, -1) {
		b.WriteString(regexp.QuoteMeta(line[last:m[0]]))
		b.WriteString("(.*?)")
		tokens = append(tokens, line[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(line[last:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String()), tokens
}

// TestHostingCommands runs the commands of jsonrpcd that docs/HOSTING.md
// shows, as written but for its ports: each block's `go run ./cmd/jsonrpcd
// FLAGS` starts jsonrpcd with FLAGS on ephemeral ports (the addresses in the
// block's other commands changed to match), its output is compared with
// what the document shows, and each curl command runs in the shell with
// its output compared likewise, an elided token ("5b0c…") matching any text
// and standing, in the commands after it, for what it matched. A command
// the document shows no output of must not fail within a second (a GET
// stream does not end). The files the TLS commands name (ca.crt,
// server.crt, client.key, ...) are made for the test, in the directory the
// commands run in. The commands of cmd/openrpc-gen are run by its own
// tests (TestFromFile, TestFromLiveServerOverHTTP).
func TestHostingCommands(t *testing.T) {
	testutil.SkipOnWasm(t, "runs curl, and a WebAssembly program cannot start a process")
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl:", err)
	}
	blocks := commandBlocks(t, hostingDoc)
	if len(blocks) == 0 {
		t.Fatalf("%s: no block of commands", hostingDoc)
	}
	ran := 0
	for _, b := range blocks {
		first := b[0].text
		switch {
		case strings.HasPrefix(first, "go run ./cmd/openrpc-gen "):
			continue
		case strings.Contains(first, "| go run ./cmd/jsonrpcd -stdio"):
			runStdioCommand(t, b)
		case strings.HasPrefix(first, "go run ./cmd/jsonrpcd"), strings.HasPrefix(first, "curl "):
			t.Run(fmt.Sprintf("line %d", b[0].line), func(t *testing.T) { runHostingBlock(t, b) })
		default:
			t.Errorf("%s:%d: a block of commands this test does not know how to run: %s", hostingDoc, b[0].line, first)
		}
		ran++
	}
	if ran == 0 {
		t.Errorf("%s: no command of jsonrpcd run", hostingDoc)
	}
}

// runStdioCommand runs `echo REQUEST | go run ./cmd/jsonrpcd -stdio` in the
// test's process and compares its output.
func runStdioCommand(t *testing.T, b []command) {
	t.Helper()
	c := b[0]
	m := regexp.MustCompile(`^echo '([^']*)' \| go run ./cmd/jsonrpcd (.*)$`).FindStringSubmatch(c.text)
	if m == nil {
		t.Errorf("%s:%d: not of the form echo '...' | go run ./cmd/jsonrpcd FLAGS: %s", hostingDoc, c.line, c.text)
		return
	}
	var stdout, stderr testutil.Buffer
	if code := run(context.Background(), strings.Fields(m[2]), strings.NewReader(m[1]+"\n"), &stdout, &stderr); code != 0 {
		t.Errorf("%s:%d: status %d; stderr:\n%s", hostingDoc, c.line, code, stderr.String())
	}
	compareOutput(t, c, stdout.String(), map[string]string{})
}

// runHostingBlock starts jsonrpcd as the block's first command asks (or
// with no flags, for a block of curl commands alone), then runs the rest.
func runHostingBlock(t *testing.T, b []command) {
	var flags []string
	if strings.HasPrefix(b[0].text, "go run ./cmd/jsonrpcd") {
		flags = strings.Fields(strings.TrimPrefix(b[0].text, "go run ./cmd/jsonrpcd"))
	}
	addrs := map[string]string{} // the document's address: the one jsonrpcd listens on
	dir := pkiFiles(t)           // the commands' directory, with the files of TLS
	for i, f := range flags {
		switch {
		case f == "-metrics" && i+1 < len(flags):
			addrs[flags[i+1]], flags[i+1] = "", "127.0.0.1:0"
		case strings.HasPrefix(f, "-tls-") && i+1 < len(flags):
			flags[i+1] = filepath.Join(dir, flags[i+1])
		}
	}
	// startRun leaves out WebSocket, which the document's jsonrpcd serves.
	r := startRun(t, append([]string{"-ws=true"}, flags...)...)
	u, err := url.Parse(r.addr["http"])
	if err != nil {
		t.Fatal(err)
	}
	subst := map[string]string{"127.0.0.1:8080": u.Host, "127.0.0.1:9090": r.addr["tcp"]}
	for doc := range addrs {
		m, err := url.Parse(r.addr["metrics"])
		if err != nil {
			t.Fatal(err)
		}
		subst[doc] = m.Host
	}
	if strings.HasPrefix(b[0].text, "go run ./cmd/jsonrpcd") {
		compareOutput(t, b[0], r.stdout.String(), subst)
		b = b[1:]
	}
	for _, c := range b {
		text := c.text
		for from, to := range subst {
			text = strings.ReplaceAll(text, from, to)
		}
		if !strings.HasPrefix(text, "curl ") {
			t.Errorf("%s:%d: not a curl command: %s", hostingDoc, c.line, c.text)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if len(c.want) == 0 {
			ctx, cancel = context.WithTimeout(context.Background(), time.Second)
		}
		cmd := shellCommand(ctx, text)
		cmd.Dir = dir
		out, err := cmd.Output()
		cancel()
		switch {
		case len(c.want) == 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
			// still running, as a stream does
		case err != nil:
			t.Errorf("%s:%d: %s: %v\n%s", hostingDoc, c.line, text, err, out)
		default:
			compareOutput(t, c, string(out), subst)
		}
	}
}

// pkiFiles writes, into a temporary directory it returns, the files the
// document's TLS commands name: a certificate authority (ca.crt), the
// server's certificate for 127.0.0.1 and its key (server.crt, server.key),
// and a client's (client.crt, client.key).
func pkiFiles(t *testing.T) string {
	t.Helper()
	pki := testutil.NewPKI(t)
	certFile, _, _ := pki.WriteFiles(t)
	dir := filepath.Dir(certFile)
	client := pki.Client(t, "docs")
	key, err := x509.MarshalPKCS8PrivateKey(client.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*pem.Block{
		"client.crt": {Type: "CERTIFICATE", Bytes: client.Certificate[0]},
		"client.key": {Type: "PRIVATE KEY", Bytes: key},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// compareOutput compares got with the output c shows, line by line, in
// order: each line c shows (its addresses changed by subst, its elided
// tokens as any text) must match a line of got after the one the line
// before it matched. The text each elided token matched goes into subst.
func compareOutput(t *testing.T, c command, got string, subst map[string]string) {
	t.Helper()
	lines := strings.Split(strings.ReplaceAll(got, "\r", ""), "\n")
	next := 0
	for _, want := range c.want {
		for from, to := range subst {
			want = strings.ReplaceAll(want, from, to)
		}
		re, tokens := outputPattern(want)
		found := false
		for ; next < len(lines); next++ {
			m := re.FindStringSubmatch(lines[next])
			if m == nil {
				continue
			}
			for i, tok := range tokens {
				if tok != "…" && tok != "..." { // an id's beginning, which later commands use
					subst[tok] = m[i+1]
				}
			}
			found, next = true, next+1
			break
		}
		if !found {
			t.Errorf("%s:%d: %s\nprinted:\n%s\nwhich lacks, in order, the line\n%s", hostingDoc, c.line, c.text, got, want)
			return
		}
	}
}

// TestOutputPattern: an elided token matches any text, and names it.
func TestOutputPattern(t *testing.T) {
	re, tokens := outputPattern(`Mcp-Session-Id: 5b0c…`)
	if m := re.FindStringSubmatch("Mcp-Session-Id: 9f3e01"); m == nil || m[1] != "9f3e01" || len(tokens) != 1 || tokens[0] != "5b0c…" {
		t.Errorf("%v, %q", m, tokens)
	}
	re, _ = outputPattern(`{"a":1,…,"b":{"c":"d",…}}`)
	if !re.MatchString(`{"a":1,"x":[1,2],"b":{"c":"d","e":2}}`) || re.MatchString(`{"a":2}`) {
		t.Error("elisions in JSON")
	}
	re, _ = outputPattern(`{"title":"jsonrpcd demo services",...`)
	if !re.MatchString(`{"title":"jsonrpcd demo services","version":"1"}}`) {
		t.Error("a line cut short")
	}
}
