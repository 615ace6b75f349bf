package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// TestWorkDone: under LSP a method begins progress of its own: it asks
// its client for a token (window/workDoneProgress/create), reports begin,
// report and end on it with $/progress, and sees its WorkDone's context end
// when the client sends window/workDoneProgress/cancel with the token
// (its name escaped here); under MCP there is no such thing.
func TestWorkDone(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("index", func(ctx context.Context) (string, error) {
		w, err := lsp.BeginWorkDone(ctx, "Indexing", true)
		if err != nil {
			return "", err
		}
		if err := w.Report("half", 50); err != nil {
			return "", err
		}
		<-w.Context().Done()
		return "stopped", w.End("cancelled")
	}, jsonrpc.Blocking())
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: lsp.Protocol()})
	r.Send(`{"jsonrpc":"2.0","method":"index","id":"i"}`)
	var create struct {
		Method string
		Params struct{ Token json.RawMessage }
		ID     json.RawMessage
	}
	if err := json.Unmarshal([]byte(r.Recv()), &create); err != nil || create.Method != "window/workDoneProgress/create" || len(create.Params.Token) == 0 {
		t.Fatalf("want a create request: %+v, %v", create, err)
	}
	tok := string(create.Params.Token)
	r.Send(`{"jsonrpc":"2.0","result":null,"id":` + string(create.ID) + `}`)
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":` + tok + `,"value":{"kind":"begin","title":"Indexing","cancellable":true}}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":` + tok + `,"value":{"kind":"report","message":"half","percentage":50}}}`,
	} {
		if got := r.Recv(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	r.Send(`{"jsonrpc":"2.0","method":"window\/workDoneProgress\/cancel","params":{"token":` + tok + `}}`)
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":` + tok + `,"value":{"kind":"end","message":"cancelled"}}}`,
		`{"jsonrpc":"2.0","result":"stopped","id":"i"}`,
	} {
		if got := r.Recv(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}

	msrv := jsonrpc.NewServer()
	msrv.MustRegister("index", func(ctx context.Context) (bool, error) {
		_, err := lsp.BeginWorkDone(ctx, "x", false)
		return errors.Is(err, lsp.ErrNoWorkDone), nil
	}, jsonrpc.Blocking())
	m := peertest.NewRaw(t, &stream.Server{Server: msrv, Protocol: mcp.Protocol()})
	m.Send(`{"jsonrpc":"2.0","method":"index","id":1}`)
	if got := m.Recv(); got != `{"jsonrpc":"2.0","result":true,"id":1}` {
		t.Errorf("MCP: %s", got)
	}
}
