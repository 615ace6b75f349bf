package acp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/acp"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// TestCodes: every code the library chooses under ACP is the profile's,
// and none lies in the range ACP keeps for its own codes (-32099 to
// -32000: AuthRequired, ResourceNotFound, v2's
// UnsupportedProtocolVersion, and those to come) or in JSON-RPC's; a
// cancelled call, and one the library ends itself (a limit, a shutdown, a
// deadline), is ACP's RequestCancelled, a plain error JSON-RPC's Internal
// error, an unknown sequence token Invalid params, a call that needs a
// Principal made by none AuthRequired, each the code of its meaning.
func TestCodes(t *testing.T) {
	p := acp.Protocol()
	cancelled := jsonrpc.Code(-32800)
	peertest.CheckCodes(t, p.Codes, []peertest.Range{
		peertest.JSONRPCPredefined,
		{Lo: -32099, Hi: -32000, Why: "ACP's range, where AuthRequired and ResourceNotFound are"},
		{Lo: -32899, Hi: -32801, Why: "LSP's range, whose RequestCancelled (-32800) ACP shares"},
		{Lo: cancelled, Hi: cancelled, Why: "RequestCancelled"},
	}, map[string]jsonrpc.Code{
		"Cancelled":       cancelled,
		"Limit":           cancelled,
		"Shutdown":        cancelled,
		"Deadline":        cancelled,
		"ServerError":     jsonrpc.CodeInternalError,
		"UnknownToken":    jsonrpc.CodeInvalidParams,
		"Unauthenticated": acp.CodeAuthRequired,
		"Forbidden":       acp.CodeForbidden,
	})
	for _, c := range []jsonrpc.Code{acp.CodeAuthRequired, acp.CodeResourceNotFound, acp.CodeUnsupportedProtocolVersion} {
		if c < -32099 || c > -32000 {
			t.Errorf("ACP's code %d is outside the range it keeps", c)
		}
	}
	peertest.CheckLibraryCodes(t, p)
}

// TestTurn: a prompt turn as ACP runs it, on the wire: the agent streams
// session/update notifications (Update), asks the client for permission
// with an ordinary call on the connection, and answers with its stop
// reason after its updates. The ids are the TypeScript SDK's, from 0.
func TestTurn(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister(acp.MethodSessionPrompt, func(ctx context.Context, p struct {
		SessionID string `json:"sessionId"`
	}) (map[string]acp.StopReason, error) {
		if err := acp.Update(ctx, p.SessionID, acp.AgentThought("asking")); err != nil {
			return nil, err
		}
		var perm struct {
			Outcome struct {
				Outcome  string `json:"outcome"`
				OptionID string `json:"optionId"`
			} `json:"outcome"`
		}
		err := peer.FromContext(ctx).Call(ctx, acp.MethodRequestPermission, map[string]any{
			"sessionId": p.SessionID,
			"toolCall":  map[string]any{"toolCallId": "t1"},
			"options":   []map[string]string{{"optionId": "ok", "name": "Allow", "kind": "allow_once"}},
		}, &perm)
		if err != nil {
			return nil, err
		}
		if err := acp.Update(ctx, p.SessionID, acp.AgentMessage("granted: "+perm.Outcome.OptionID)); err != nil {
			return nil, err
		}
		return map[string]acp.StopReason{"stopReason": acp.StopEndTurn}, nil
	}, jsonrpc.Blocking())
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: acp.Protocol()})

	r.Send(`{"jsonrpc":"2.0","id":0,"method":"session/prompt","params":{"sessionId":"s1","prompt":[],"_meta":{"x":1}}}`)
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"asking"}}}}`,
		`{"jsonrpc":"2.0","method":"session/request_permission","params":{"options":[{"kind":"allow_once","name":"Allow","optionId":"ok"}],"sessionId":"s1","toolCall":{"toolCallId":"t1"}},"id":1}`,
	} {
		if got := r.Recv(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	r.Send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`)
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"granted: ok"}}}}`,
		`{"jsonrpc":"2.0","result":{"stopReason":"end_turn"},"id":0}`,
	} {
		if got := r.Recv(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// TestCancelRequest: "$/cancel_request" cancels a request in either
// direction. The client's cancels a running call, answered at once with
// RequestCancelled (-32800); the call the agent makes under that call's
// context ends with it, and the agent sends "$/cancel_request" for it.
func TestCancelRequest(t *testing.T) {
	srv := jsonrpc.NewServer()
	callErr := make(chan error, 1)
	srv.MustRegister("wait", func(ctx context.Context) error {
		callErr <- peer.FromContext(ctx).Call(ctx, acp.MethodRequestPermission, map[string]any{}, nil)
		return ctx.Err()
	}, jsonrpc.Blocking())
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: acp.Protocol()})

	r.Send(`{"jsonrpc":"2.0","id":"w","method":"wait"}`)
	if got, want := r.Recv(), `{"jsonrpc":"2.0","method":"session/request_permission","params":{},"id":1}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	start := time.Now()
	r.Send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"w"}}`)
	got := map[string]bool{}
	for range 2 {
		got[r.Recv()] = true
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("answered %v after the cancel, want within 100 ms", d)
	}
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":"w"}`,
	} {
		if !got[want] {
			t.Errorf("missing %s; got %v", want, got)
		}
	}
	if err := <-callErr; !errors.Is(err, context.Canceled) {
		t.Errorf("the agent's call: %v, want context.Canceled", err)
	}
	// An id that names no call in flight is no error, and gets no answer.
	r.Send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":42}}`)
	r.ExpectNone(50 * time.Millisecond)
}

// TestUpdateNeedsAConn: Update outside a two-way connection's call says
// so.
func TestUpdateNeedsAConn(t *testing.T) {
	if err := acp.Update(context.Background(), "s", acp.AgentMessage("x")); !errors.Is(err, acp.ErrNoConn) {
		t.Fatalf("Update: %v, want ErrNoConn", err)
	}
}
