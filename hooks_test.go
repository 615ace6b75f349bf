package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
)

// A panicking error hook leaves the error it was given in place, and the
// server keeps serving.
func TestErrorHookPanics(t *testing.T) {
	srv := jsonrpc.NewServer(
		jsonrpc.OnError(func(context.Context, *jsonrpc.Call, error, *jsonrpc.Error) *jsonrpc.Error { panic("hook") }),
		jsonrpc.OnParseError(func([]byte, error, *jsonrpc.Error) *jsonrpc.Error { panic("hook") }),
	)
	srv.MustRegister("fail", func() error { return jsonrpc.NewError(7, "seven") })
	for req, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"fail","id":1}`: `{"jsonrpc":"2.0","error":{"code":7,"message":"seven"},"id":1}`,
		`{`: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`,
	} {
		if got := srv.ProcessString(req); got != want {
			t.Errorf("%s: got %s, want %s", req, got, want)
		}
	}
}

// Error data is written compact, and data that is not JSON as a string.
func TestErrorData(t *testing.T) {
	srv := jsonrpc.NewServer()
	var data json.RawMessage
	srv.MustRegister("fail", func() error { return &jsonrpc.Error{Code: 1, Message: "m", Data: data} })
	for in, want := range map[string]string{
		"{ \"a\" : [1, 2] }\n": `{"a":[1,2]}`,
		`not json`:             `"not json"`,
		"\"\xff\"":             `"\"\ufffd\""`,
	} {
		data = json.RawMessage(in)
		got := srv.ProcessString(`{"jsonrpc":"2.0","method":"fail","id":1}`)
		if want := `{"jsonrpc":"2.0","error":{"code":1,"message":"m","data":` + want + `},"id":1}`; got != want {
			t.Errorf("data %q: got %s, want %s", in, got, want)
		}
	}
}

func TestSkipUnknownMethod(t *testing.T) {
	srv := jsonrpc.NewServer()
	err := srv.RegisterService("", &Inventory{}, jsonrpc.Skip("Nope"))
	if !errors.Is(err, jsonrpc.ErrInvalidMethod) {
		t.Errorf("Skip of a missing method: err = %v", err)
	}
}

// The post-process hook's result cannot grow into the caller's buffer.
func TestPostHookResultCapped(t *testing.T) {
	var kept []byte
	srv := jsonrpc.NewServer(jsonrpc.OnPostProcess(func(_ context.Context, _ *jsonrpc.Call, result json.RawMessage, _ *jsonrpc.Error) error {
		kept = append(result, '\n')
		return nil
	}))
	srv.MustRegister("two", func() int { return 2 })
	out := srv.Process(make([]byte, 0, 256), []byte(`{"jsonrpc":"2.0","method":"two","id":1}`))
	if string(kept) != "2\n" || string(out) != `{"jsonrpc":"2.0","result":2,"id":1}` {
		t.Errorf("kept %q, out %s", kept, out)
	}
}
