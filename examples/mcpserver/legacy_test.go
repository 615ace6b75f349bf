package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// initialize sends initialize for version v with the capabilities caps,
// and notifications/initialized, and checks the version answered.
func (l *lines) initialize(v, caps, want string) {
	l.t.Helper()
	m := l.call("0", "initialize", `{"protocolVersion":"`+v+`","capabilities":`+caps+`,"clientInfo":{"name":"test-agent","version":"1.0.0"}}`)
	var r struct{ ProtocolVersion string }
	m.result(l.t, &r)
	if r.ProtocolVersion != want {
		l.t.Fatalf("initialize for %s answered %s, want %s", v, m.line, want)
	}
	l.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// Test20251125 drives the built server as a client of 2025-11-25 does:
// the handshake; no resultType on its results; arguments that do not fit
// a tool are a tool execution error (isError), an unknown tool a protocol
// error; an unknown resource is -32002; resources/subscribe brings
// notifications/resources/updated, without a subscription id; confirm
// sends the client an elicitation/create request (form mode) and answers
// with what it said. A request of 2026-07-28 on the same connection is
// served as such.
func Test20251125(t *testing.T) {
	bin := build(t)
	l := startLines(t, bin)
	l.initialize("2025-11-25", `{"elicitation":{"form":{}}}`, "2025-11-25")

	m := l.call("1", "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`)
	if txt, isErr := toolText(t, m); txt != "hi" || isErr || strings.Contains(m.line, "resultType") || strings.Contains(m.line, "_meta") {
		t.Errorf("echo answered %s, want the text without the fields of 2026-07-28", m.line)
	}
	for _, args := range []string{`{"txt":"x"}`, `{"text":5}`} {
		m = l.call("2", "tools/call", `{"name":"echo","arguments":`+args+`}`)
		if txt, isErr := toolText(t, m); !isErr || !strings.Contains(txt, "echo: invalid arguments") {
			t.Errorf("echo %s answered %s, want a tool execution error", args, m.line)
		}
	}
	if m = l.call("3", "tools/call", `{"name":"nope","arguments":{}}`); m.code() != -32602 {
		t.Errorf("an unknown tool answered %s, want -32602", m.line)
	}
	if m = l.call("4", "resources/read", `{"uri":"note://other"}`); m.code() != -32002 || !strings.Contains(string(m.Error.Data), "note://other") {
		t.Errorf("an unknown resource answered %s, want -32002", m.line)
	}
	if m = l.call("5", "ping", `{}`); string(m.Result) != "{}" {
		t.Errorf("ping answered %s", m.line)
	}

	// resources/subscribe, then a change: the notification comes before
	// the answer of the call that made the change.
	if m = l.call("6", "resources/subscribe", `{"uri":"note://current"}`); string(m.Result) != "{}" {
		t.Fatalf("resources/subscribe answered %s", m.line)
	}
	l.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"note","arguments":{"text":"hello"}}}`)
	m, notes := l.answer("7")
	if len(notes) != 1 || notes[0].Method != "notifications/resources/updated" || string(notes[0].Params) != `{"uri":"note://current"}` {
		t.Errorf("the change of the note sent %d notifications before its answer %s, want its update", len(notes), m.line)
	}
	l.call("8", "resources/unsubscribe", `{"uri":"note://current"}`)
	l.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"note","arguments":{"text":"again"}}}`)
	if _, notes = l.answer("9"); len(notes) != 0 {
		t.Errorf("%d notifications after resources/unsubscribe, want none", len(notes))
	}

	// confirm: the server asks the client, which answers.
	l.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"confirm","arguments":{"action":"merge"}}}`)
	ask, ok := l.next()
	if !ok || ask.Method != "elicitation/create" || ask.ID == nil {
		t.Fatalf("confirm sent %s, want an elicitation/create request", ask.line)
	}
	var p struct {
		Mode, Message   string
		RequestedSchema json.RawMessage
	}
	json.Unmarshal(ask.Params, &p)
	if p.Mode != "form" || !strings.Contains(p.Message, "merge") || len(p.RequestedSchema) == 0 {
		t.Errorf("the elicitation: %s", ask.line)
	}
	l.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"confirmed":true}}}`)
	m, _ = l.answer("10")
	if txt, isErr := toolText(t, m); txt != "confirmed: merge" || isErr {
		t.Errorf("confirm answered %s", m.line)
	}
	// The client answers the elicitation with an error: a tool error.
	l.send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"confirm","arguments":{"action":"merge"}}}`)
	ask, _ = l.next()
	l.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"error":{"code":-32603,"message":"no user here"}}`)
	m, _ = l.answer("11")
	if txt, isErr := toolText(t, m); !isErr || !strings.Contains(txt, "no user here") {
		t.Errorf("confirm with a failed elicitation answered %s", m.line)
	}

	// Both eras on one connection: a request of 2026-07-28 is served on
	// its own.
	checkModern(t, l.call("12", "tools/call", params(`{}`, `"name":"echo","arguments":{"text":"hi"}`)), "complete", false)
	if m = l.call("13", "tools/call", params(`{}`, `"name":"echo","arguments":{"txt":"x"}`)); !strings.Contains(m.line, `"isError":true`) {
		t.Errorf("2026-07-28: arguments that do not fit answered %s, want a tool execution error", m.line)
	}
	l.close()

	// A client without the elicitation capability: confirm is a tool
	// error, and no request goes to the client.
	l = startLines(t, bin)
	l.initialize("2025-11-25", `{}`, "2025-11-25")
	m = l.call("1", "tools/call", `{"name":"confirm","arguments":{"action":"merge"}}`)
	if txt, isErr := toolText(t, m); !isErr || !strings.Contains(txt, "elicitation") {
		t.Errorf("confirm without the capability answered %s", m.line)
	}
	if rest := l.close(); len(rest) != 0 {
		t.Errorf("%d more lines", len(rest))
	}
}

// Test20250618Elicitation: under 2025-06-18 the elicitation request has no
// mode (form mode is all there is), and {"elicitation": {}} declares it.
func Test20250618Elicitation(t *testing.T) {
	l := startLines(t, build(t))
	l.initialize("2025-06-18", `{"elicitation":{}}`, "2025-06-18")
	l.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{"action":"merge"}}}`)
	ask, _ := l.next()
	if ask.Method != "elicitation/create" || strings.Contains(string(ask.Params), `"mode"`) {
		t.Fatalf("confirm under 2025-06-18 sent %s, want elicitation/create without mode", ask.line)
	}
	l.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"decline"}}`)
	m, _ := l.answer("1")
	if txt, _ := toolText(t, m); txt != "declined: merge" {
		t.Errorf("confirm answered %s", m.line)
	}
	l.close()
}
