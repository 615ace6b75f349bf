package interop

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestJSONRPC2NPM runs jsonrpcjs/client.mjs, which drives cmd/jsonrpcd
// with the npm package json-rpc-2.0 (npm ci in jsonrpcjs/): its
// JSONRPCClient over HTTP with fetch (calls by position and by name, an
// unknown method, a batch with a notification and an error in it, a
// notification answered 204), then its two-way JSONRPCServerAndClient
// over TCP, one message a line: the feed's notification reaches its
// subscription method, and jsonrpcd's callback calls a method of the
// Node program and answers with its result.
func TestJSONRPC2NPM(t *testing.T) {
	node, dir := needNode(t, "jsonrpcjs", "json-rpc-2.0")
	bin := buildJsonrpcd(t)
	tcp, printed := startAnnounced(t, bin, "jsonrpcd: TCP (newline-delimited) on ", "-http", "127.0.0.1:0", "-tcp", "127.0.0.1:0")
	var httpURL string
	for line := range strings.Lines(printed) {
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "jsonrpcd: HTTP on "); ok {
			httpURL = u
		}
	}
	if httpURL == "" {
		t.Fatalf("jsonrpcd did not say where HTTP listens: %q", printed)
	}

	steps, order := runSteps(t, node, filepath.Join(dir, "client.mjs"), httpURL, tcp)
	if want := []string{"add", "subtract", "nope", "batch", "notify", "subscription", "callback", "unsubscribe"}; !slices.Equal(order, want) {
		t.Fatalf("steps %v, want %v", order, want)
	}
	for name, want := range map[string]string{
		"add":      `{"step":"add","result":3}`,
		"subtract": `{"step":"subtract","result":19}`,
		"nope":     `{"step":"nope","error":{"code":-32601,"message":"Method not found","data":"nope"}}`,
		"batch": `{"step":"batch","responses":[{"jsonrpc":"2.0","result":4,"id":10},` +
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"param \"subtrahend\": missing required param"},"id":11}]}`,
		"notify":      `{"step":"notify","status":204,"body":""}`,
		"callback":    `{"step":"callback","result":{"echoed":{"x":[1,2]}}}`,
		"unsubscribe": `{"step":"unsubscribe","result":true}`,
	} {
		if got := string(steps[name]); got != want {
			t.Errorf("step %s:\n got %s\nwant %s", name, got, want)
		}
	}
	var sub struct {
		ID     string
		Queued int
		Pushed []struct{ Subscription, Result string }
	}
	step(t, steps, "subscription", &sub)
	if sub.ID == "" || sub.Queued != 1 || len(sub.Pushed) != 1 || sub.Pushed[0].Subscription != sub.ID || sub.Pushed[0].Result != "héllohéllo" {
		t.Errorf("subscription: %s, want one notification of héllohéllo for its id", steps["subscription"])
	}
}
