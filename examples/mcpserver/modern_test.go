package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// elicits is the capabilities of a client that takes form elicitations.
const elicits = `{"elicitation":{"form":{}}}`

// inputRequired is an InputRequiredResult of confirm.
type inputRequired struct {
	InputRequests map[string]struct {
		Method string
		Params struct {
			Mode            string
			Message         string
			RequestedSchema struct {
				Type       string
				Properties map[string]struct{ Type string }
				Required   []string
			}
		}
	}
	RequestState string
}

// toolText returns the text of a tool result's one text content, and its
// isError.
func toolText(t *testing.T, m msg) (string, bool) {
	t.Helper()
	var r struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	m.result(t, &r)
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("a tool result without one text content: %s", m.line)
	}
	return r.Content[0].Text, r.IsError
}

// TestModernSession drives the built server as a client of MCP 2026-07-28
// does over stdio, with no handshake: server/discover, the lists, a tool
// call with its _meta, progress, the input-required round trip of confirm,
// a resource read. Every result carries resultType and the server's
// identity, the cacheable ones their caching hints. (Run with -v, it logs
// the exchange.)
func TestModernSession(t *testing.T) {
	l := startLines(t, build(t))

	m := l.call(`"discover-1"`, "server/discover", params(`{}`, ""))
	checkModern(t, m, "complete", true)
	var disc struct {
		SupportedVersions []string
		Capabilities      struct {
			Tools     *struct{}
			Resources *struct{ Subscribe bool }
		}
	}
	m.result(t, &disc)
	if !slices.Equal(disc.SupportedVersions, []string{"2026-07-28", "2025-11-25", "2025-06-18"}) || disc.Capabilities.Tools == nil || disc.Capabilities.Resources == nil || !disc.Capabilities.Resources.Subscribe {
		t.Errorf("server/discover answered %s", m.line)
	}

	m = l.call("2", "tools/list", params(`{}`, ""))
	checkModern(t, m, "complete", true)
	var list struct{ Tools []struct{ Name string } }
	m.result(t, &list)
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if len(names) < 4 || !slices.Equal(names[:4], []string{"echo", "sleep", "note", "confirm"}) {
		t.Errorf("tools/list: %v, want echo, sleep, note, confirm first", names)
	}

	m = l.call("3", "tools/call", params(`{}`, `"name":"echo","arguments":{"text":"héllo, 世界"}`))
	checkModern(t, m, "complete", false)
	if txt, isErr := toolText(t, m); txt != "héllo, 世界" || isErr {
		t.Errorf("echo answered %s", m.line)
	}

	// Progress on the token in the same _meta as the protocol's fields.
	l.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"progressToken":"p4","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"sleep","arguments":{"ms":1000}}}`)
	m, notes := l.answer("4")
	checkModern(t, m, "complete", false)
	if len(notes) < 1 || notes[0].Method != "notifications/progress" || !has(notes[0].line, `"progressToken":"p4"`) {
		t.Errorf("sleep 1000 ms sent %d notifications before its answer, want progress", len(notes))
	}

	// confirm: input required, then the retry with the user's answer.
	m = l.call("5", "tools/call", params(elicits, `"name":"confirm","arguments":{"action":"delete the draft"}`))
	checkModern(t, m, "input_required", false)
	var ir inputRequired
	m.result(t, &ir)
	req, ok := ir.InputRequests["confirm"]
	if !ok || req.Method != "elicitation/create" || req.Params.Mode != "form" || !strings.Contains(req.Params.Message, "delete the draft") ||
		req.Params.RequestedSchema.Type != "object" || req.Params.RequestedSchema.Properties["confirmed"].Type != "boolean" || ir.RequestState == "" {
		t.Fatalf("confirm's first answer: %s", m.line)
	}
	state, _ := json.Marshal(ir.RequestState)
	m = l.call("6", "tools/call", params(elicits, `"name":"confirm","arguments":{"action":"delete the draft"},"inputResponses":{"confirm":{"action":"accept","content":{"confirmed":true}}},"requestState":`+string(state)))
	checkModern(t, m, "complete", false)
	if txt, isErr := toolText(t, m); txt != "confirmed: delete the draft" || isErr {
		t.Errorf("confirm's retry answered %s", m.line)
	}

	m = l.call("7", "resources/read", params(`{}`, `"uri":"note://current"`))
	checkModern(t, m, "complete", true)
	var read struct{ Contents []struct{ URI, Text string } }
	m.result(t, &read)
	if len(read.Contents) != 1 || read.Contents[0].URI != "note://current" {
		t.Errorf("resources/read answered %s", m.line)
	}
	m = l.call("8", "resources/list", params(`{}`, ""))
	checkModern(t, m, "complete", true)

	if rest := l.close(); len(rest) > 0 {
		t.Errorf("the server wrote %d lines after its input ended", len(rest))
	}
}

// TestModernRequestMeta: the _meta a request of 2026-07-28 must carry. A
// version other than 2026-07-28 is UnsupportedProtocolVersion (-32022)
// with the supported versions and the one requested; a version that is not
// a string, a missing or malformed clientCapabilities, a malformed
// clientInfo or a _meta that is not an object, -32602; the methods of the
// handshake's era, -32601; and a request without the version in its _meta,
// before any initialize, -32602. Member names with escapes are the same
// names. The server answers each and goes on.
func TestModernRequestMeta(t *testing.T) {
	l := startLines(t, build(t))
	const (
		v    = `"io.modelcontextprotocol/protocolVersion":`
		caps = `"io.modelcontextprotocol/clientCapabilities":{}`
	)
	for i, tc := range []struct {
		name, method, params string
		code                 int
	}{
		{"unknown version", "tools/list", `{"_meta":{` + v + `"1900-01-01",` + caps + `}}`, -32022},
		{"a handshake version", "tools/list", `{"_meta":{` + v + `"2025-11-25",` + caps + `}}`, -32022},
		{"a later version", "server/discover", `{"_meta":{` + v + `"2099-01-01",` + caps + `}}`, -32022},
		{"version not a string", "tools/list", `{"_meta":{` + v + `20260728,` + caps + `}}`, -32602},
		{"version null", "tools/list", `{"_meta":{` + v + `null,` + caps + `}}`, -32602},
		{"no capabilities", "tools/list", `{"_meta":{` + v + `"2026-07-28"}}`, -32602},
		{"capabilities not an object", "tools/list", `{"_meta":{` + v + `"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}`, -32602},
		{"elicitation not an object", "tools/list", `{"_meta":{` + v + `"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":true}}}`, -32602},
		{"clientInfo without a version", "tools/list", `{"_meta":{` + v + `"2026-07-28",` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"x"}}}`, -32602},
		{"clientInfo not an object", "tools/list", `{"_meta":{` + v + `"2026-07-28",` + caps + `,"io.modelcontextprotocol/clientInfo":"x"}}`, -32602},
		{"_meta not an object", "tools/list", `{"_meta":[]}`, -32602},
		{"initialize", "initialize", `{"_meta":{` + v + `"2026-07-28",` + caps + `},"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`, -32601},
		{"ping", "ping", `{"_meta":{` + v + `"2026-07-28",` + caps + `}}`, -32601},
		{"resources/subscribe", "resources/subscribe", `{"_meta":{` + v + `"2026-07-28",` + caps + `},"uri":"note://current"}`, -32601},
		{"no version, before initialize", "tools/list", `{"_meta":{` + caps + `}}`, -32602},
		{"server/discover without _meta", "server/discover", `{}`, -32602},
		{"subscriptions/listen without _meta", "subscriptions/listen", `{"notifications":{}}`, -32602},
		{"unknown method", "nope/nope", `{"_meta":{` + v + `"2026-07-28",` + caps + `}}`, -32601},
		{"unknown tool", "tools/call", `{"_meta":{` + v + `"2026-07-28",` + caps + `},"name":"nope","arguments":{}}`, -32602},
		{"unknown resource", "resources/read", `{"_meta":{` + v + `"2026-07-28",` + caps + `},"uri":"note://other"}`, -32602},
		{"listen without notifications", "subscriptions/listen", `{"_meta":{` + v + `"2026-07-28",` + caps + `}}`, -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := l.call(fmt.Sprint(100+i), tc.method, tc.params)
			if m.code() != tc.code {
				t.Fatalf("answered %s, want the error %d", m.line, tc.code)
			}
			if tc.code == -32022 {
				var data struct {
					Supported []string
					Requested string
				}
				json.Unmarshal(m.Error.Data, &data)
				if !slices.Equal(data.Supported, []string{"2026-07-28", "2025-11-25", "2025-06-18"}) || !strings.Contains(tc.params, `"`+data.Requested+`"`) || m.Error.Message != "Unsupported protocol version" {
					t.Errorf("the error's data %s: want the supported versions and the one requested", m.Error.Data)
				}
			}
		})
	}
	// Escaped names are the names.
	m := l.call("200", "tools/list", `{"_met\u0061":{"io.modelcontextprotocol/protocolVersi\u006fn":"2026-07-28","io.modelcontextprotocol\/clientCapabilities":{}}}`)
	checkModern(t, m, "complete", true)
	m = l.call("201", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-2\u0039","io.modelcontextprotocol/clientCapabilities":{}}}`)
	if m.code() != -32022 {
		t.Errorf("2026-07-29 written with an escape answered %s, want -32022", m.line)
	}
	// The server goes on.
	checkModern(t, l.call("202", "server/discover", params(`{}`, "")), "complete", true)
	l.close()
}

// TestConfirmRoundTrip: the input-required round trip's rules. A client
// that did not declare form elicitation gets MissingRequiredClientCapability
// (-32021) naming it; a requestState that was tampered with, made for
// another action or by another process is refused (-32602); a retry
// without the answer, or with an accepted form that lacks the field, is
// asked again; an answer that is no ElicitResult is refused (-32602); a
// declined or cancelled form is a result that says so.
func TestConfirmRoundTrip(t *testing.T) {
	bin := build(t)
	l := startLines(t, bin)
	const args = `"name":"confirm","arguments":{"action":"ship it"}`
	first := func(id string) string {
		t.Helper()
		m := l.call(id, "tools/call", params(elicits, args))
		checkModern(t, m, "input_required", false)
		var ir inputRequired
		m.result(t, &ir)
		s, _ := json.Marshal(ir.RequestState)
		return string(s)
	}
	retry := func(id, caps, arguments, rest string) msg {
		t.Helper()
		return l.call(id, "tools/call", params(caps, `"name":"confirm","arguments":`+arguments+`,`+rest))
	}

	for i, caps := range []string{`{}`, `{"elicitation":{"url":{}}}`} {
		m := l.call(fmt.Sprint(1+i), "tools/call", params(caps, args))
		if m.code() != -32021 || !has(string(m.Error.Data), `"requiredCapabilities":{"elicitation":{"form":{}}}`) {
			t.Errorf("confirm with capabilities %s answered %s, want -32021 naming elicitation", caps, m.line)
		}
	}
	// elicitation {} is form mode.
	checkModern(t, l.call("3", "tools/call", params(`{"elicitation":{}}`, args)), "input_required", false)

	state := first("10")
	accept := `"inputResponses":{"confirm":{"action":"accept","content":{"confirmed":true}}}`
	tampered := strings.Replace(state, ".", "x.", 1)
	for i, tc := range []struct {
		name, arguments, rest string
		code                  int
		resultType, text      string
	}{
		{"tampered state", `{"action":"ship it"}`, accept + `,"requestState":` + tampered, -32602, "", ""},
		{"state of another action", `{"action":"ship something else"}`, accept + `,"requestState":` + state, -32602, "", ""},
		{"state not a string", `{"action":"ship it"}`, accept + `,"requestState":17`, -32602, "", ""},
		{"no answer", `{"action":"ship it"}`, `"requestState":` + state, 0, "input_required", ""},
		{"answer without state", `{"action":"ship it"}`, accept, 0, "input_required", ""},
		{"accepted without the field", `{"action":"ship it"}`, `"inputResponses":{"confirm":{"action":"accept","content":{}}},"requestState":` + state, 0, "input_required", ""},
		{"not an ElicitResult", `{"action":"ship it"}`, `"inputResponses":{"confirm":"yes"},"requestState":` + state, -32602, "", ""},
		{"an unknown action", `{"action":"ship it"}`, `"inputResponses":{"confirm":{"action":"maybe"}},"requestState":` + state, -32602, "", ""},
		{"confirmed not a boolean", `{"action":"ship it"}`, `"inputResponses":{"confirm":{"action":"accept","content":{"confirmed":"yes"}}},"requestState":` + state, -32602, "", ""},
		{"declined", `{"action":"ship it"}`, `"inputResponses":{"confirm":{"action":"decline"}},"requestState":` + state, 0, "complete", "declined: ship it"},
		{"cancelled", `{"action":"ship it"}`, `"inputResponses":{"confirm":{"action":"cancel"}},"requestState":` + state, 0, "complete", "cancelled: ship it"},
		{"not confirmed", `{"action":"ship it"}`, `"inputResponses":{"confirm":{"action":"accept","content":{"confirmed":false}}},"requestState":` + state, 0, "complete", "not confirmed: ship it"},
		{"unknown members ignored", `{"action":"ship it"}`, `"inputResponses":{"confirm":{"action":"accept","content":{"confirmed":true}},"other":{"x":1}},"requestState":` + state, 0, "complete", "confirmed: ship it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := retry(fmt.Sprint(20+i), elicits, tc.arguments, tc.rest)
			if tc.code != 0 {
				if m.code() != tc.code {
					t.Errorf("answered %s, want the error %d", m.line, tc.code)
				}
				return
			}
			checkModern(t, m, tc.resultType, false)
			if tc.text != "" {
				if txt, _ := toolText(t, m); txt != tc.text {
					t.Errorf("answered %q, want %q", txt, tc.text)
				}
			}
		})
	}

	// A state from another process does not verify here.
	other := startLines(t, bin)
	m := other.call("1", "tools/call", params(elicits, `"name":"confirm","arguments":{"action":"ship it"},`+accept+`,"requestState":`+state))
	if m.code() != -32602 {
		t.Errorf("another process took the state: %s", m.line)
	}
	other.close()
	l.close()
}

// TestSubscriptions: subscriptions/listen, on the one stream of stdio. The
// acknowledgment comes first for each subscription, with the filter the
// server honors and the listen request's id as its subscription id (a
// string or a number, as sent); each change of the note comes to each
// subscription with its id; one cancelled gets no answer and no more
// notifications; a subscription to nothing honored is answered at once;
// when the input ends the subscriptions still open are answered, with their
// ids.
func TestSubscriptions(t *testing.T) {
	l := startLines(t, build(t))
	listen := func(id, filter string) {
		l.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":` + params(`{}`, `"notifications":`+filter) + `}`)
	}
	ack := func(id, want string) {
		t.Helper()
		m, ok := l.next()
		if !ok || m.Method != "notifications/subscriptions/acknowledged" || !has(m.line, `"_meta":{"io.modelcontextprotocol/subscriptionId":`+id+`}`, `"notifications":`+want) {
			t.Fatalf("want the acknowledgment of %s with %s, got %s", id, want, m.line)
		}
	}
	listen(`"listen:1"`, `{"resourceSubscriptions":["note://current","note://other"],"toolsListChanged":true,"promptsListChanged":true}`)
	ack(`"listen:1"`, `{"resourceSubscriptions":["note://current"]}`)
	listen(`7`, `{"resourceSubscriptions":["note://current","note://current"]}`)
	ack(`7`, `{"resourceSubscriptions":["note://current"]}`)

	// A subscription to nothing the server honors ends at once.
	listen(`8`, `{"toolsListChanged":true,"resourcesListChanged":true}`)
	ack(`8`, `{}`)
	m, _ := l.answer("8")
	r := checkModern(t, m, "complete", false)
	if string(r.Meta.SubscriptionID) != "8" {
		t.Errorf("the end of subscription 8: %s", m.line)
	}

	// A change: one notification for each subscription, with its id.
	updates := func(after []msg) map[string]int {
		got := map[string]int{}
		for _, n := range after {
			if n.Method != "notifications/resources/updated" || !has(n.line, `"uri":"note://current"`) {
				t.Errorf("a notification that is not the note's update: %s", n.line)
				continue
			}
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			json.Unmarshal(n.Params, &p)
			got[string(p.Meta["io.modelcontextprotocol/subscriptionId"])]++
		}
		return got
	}
	l.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":` + params(`{}`, `"name":"note","arguments":{"text":"one"}`) + `}`)
	var seen []msg
	m, before := l.answer("9")
	checkModern(t, m, "complete", false)
	seen = append(seen, before...)
	for len(seen) < 2 {
		n, ok := l.next()
		if !ok {
			t.Fatal("the output ended")
		}
		seen = append(seen, n)
	}
	if got := updates(seen); got[`"listen:1"`] != 1 || got["7"] != 1 || len(got) != 2 {
		t.Errorf("updates by subscription id %v, want one each for \"listen:1\" and 7", got)
	}
	var read struct{ Contents []struct{ Text string } }
	l.call("10", "resources/read", params(`{}`, `"uri":"note://current"`)).result(t, &read)
	if len(read.Contents) != 1 || read.Contents[0].Text != "one" {
		t.Errorf("the note after the change: %+v", read)
	}

	// Cancel subscription 7: no answer for it, no more notifications.
	l.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"done with it"}}`)
	// A call after the cancel: its answer comes after the cancel was read,
	// whatever the order of the goroutines.
	l.call("11", "tools/list", params(`{}`, ""))
	l.send(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":` + params(`{}`, `"name":"note","arguments":{"text":"two"}`) + `}`)
	m, seen = l.answer("12")
	checkModern(t, m, "complete", false)
	for len(seen) < 1 {
		n, _ := l.next()
		seen = append(seen, n)
	}
	if got := updates(seen); got[`"listen:1"`] != 1 || len(got) != 1 {
		t.Errorf("updates after the cancel of 7 %v, want one for \"listen:1\" alone", got)
	}

	// The end of the input ends subscription "listen:1" with its result.
	rest := l.close()
	if len(rest) != 1 || string(rest[0].ID) != `"listen:1"` {
		t.Fatalf("after the input ended: %d lines, want the answer to \"listen:1\"", len(rest))
	}
	if r := checkModern(t, rest[0], "complete", false); string(r.Meta.SubscriptionID) != `"listen:1"` {
		t.Errorf("the end of subscription \"listen:1\": %s", rest[0].line)
	}
	for _, s := range l.seen {
		if has(s, `"id":7`) {
			t.Errorf("the cancelled subscription 7 was answered: %s", s)
		}
	}
}

// TestLimitCode: a message over the stream's limit (4 MiB) is answered
// with MCP's limit code, -31005, and its id, and the server goes on.
func TestLimitCode(t *testing.T) {
	l := startLines(t, build(t))
	l.send(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":` + params(`{}`, `"name":"echo","arguments":{"text":"`+strings.Repeat("x", 5<<20)+`"}`) + `}`)
	m, _ := l.answer(`"big"`)
	if m.code() != -31005 || m.Error.Message != "Limit exceeded" || !has(string(m.Error.Data), "message exceeds the limit") {
		t.Errorf("a message of 5 MiB answered %s, want -31005", m.line)
	}
	checkModern(t, l.call("2", "server/discover", params(`{}`, "")), "complete", true)
	l.close()
}

// TestInputEndsDuringCall: a call still running when the input ends is
// answered with -32603, not with -32800, the library's answer to a
// context error, which is a code of LSP's; the server exits with status 0.
func TestInputEndsDuringCall(t *testing.T) {
	l := startLines(t, build(t))
	l.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"sleep","arguments":{"ms":600000}}}`)
	if m, _ := l.next(); m.Method != "notifications/progress" {
		t.Fatalf("want the progress of the sleep, got %s", m.line)
	}
	var answers []msg
	for _, m := range l.close() {
		if m.ID != nil {
			answers = append(answers, m)
		}
	}
	if len(answers) != 1 || string(answers[0].ID) != "2" || answers[0].code() != -32603 {
		t.Errorf("after the input ended: %d answers, want the sleep's, -32603", len(answers))
		for _, a := range answers {
			t.Log(a.line)
		}
	}
}

// TestStateExpiry: a requestState past its expiry is refused, as is one
// of another tool, though signed by this process; a fresh one for the
// same action verifies. (In the process, since the key is its own.)
func TestStateExpiry(t *testing.T) {
	s := newSigner()
	now := time.Now()
	for _, tc := range []struct {
		name string
		st   state
		want string // "" for no error
	}{
		{"fresh", state{Tool: "confirm", Action: "go", Expires: now.Add(time.Minute).Unix()}, ""},
		{"expired", state{Tool: "confirm", Action: "go", Expires: now.Add(-time.Second).Unix()}, "expired"},
		{"another tool", state{Tool: "note", Action: "go", Expires: now.Add(time.Minute).Unix()}, "made for another call"},
		{"another action", state{Tool: "confirm", Action: "stop", Expires: now.Add(time.Minute).Unix()}, "made for another call"},
	} {
		err := s.verify(s.sign(tc.st), "go")
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, bad := range []string{"", ".", "x", "eyJ9.", strings.Repeat("A", 40) + "." + strings.Repeat("B", 43)} {
		if s.verify(bad, "go") == nil {
			t.Errorf("the state %q verified", bad)
		}
	}
	if newSigner().verify(s.sign(state{Tool: "confirm", Action: "go", Expires: now.Add(time.Minute).Unix()}), "go") == nil {
		t.Error("another signer's state verified")
	}
}
