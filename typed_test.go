package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

type typedAddress struct {
	City string `json:"city"`
	Zip  int    `json:"zip"`
}

type typedUser struct {
	ID      int64        `json:"id"`
	Name    string       `json:"name"`
	Age     int          `json:"age"`
	Admin   bool         `json:"admin"`
	Tags    []string     `json:"tags"`
	Address typedAddress `json:"address"`
	Created time.Time    `json:"created"`
	Nick    *string      `json:"nick"`
}

func createTypedUser(ctx context.Context, u typedUser) (typedUser, error) {
	if u.Name == "" {
		return typedUser{}, jsonrpc.ErrInvalidParams.WithData("name is required")
	}
	if jsonrpc.CallOf(ctx) == nil {
		return typedUser{}, errors.New("no call in the context")
	}
	u.ID = 7
	return u, nil
}

func TestTyped(t *testing.T) {
	t.Parallel()
	s := jsonrpc.NewServer()
	s.MustRegister("createUser", jsonrpc.Typed(createTypedUser))
	s.MustRegister("double", jsonrpc.TypedNoContext(func(x int) (int, error) { return 2 * x, nil }))
	s.MustRegister("greet", jsonrpc.Typed(func(_ context.Context, name string) (string, error) { return "hello " + name, nil }), jsonrpc.ParamNames("name"))
	s.MustRegister("neg", jsonrpc.TypedNoContext(func(x float64) (float64, error) { return -x, nil }), jsonrpc.Defaults(1.5))
	s.MustRegister("ptr", jsonrpc.TypedNoContext(func(u *typedUser) (string, error) { return u.Name, nil }))
	s.MustRegister("len", jsonrpc.TypedNoContext(func(xs []int) (int, error) { return len(xs), nil }))
	s.MustRegister("raw", jsonrpc.TypedNoContext(func(v json.RawMessage) (json.RawMessage, error) { return v, nil }))
	s.MustRegister("any", jsonrpc.TypedNoContext(func(n int) (any, error) { return map[string]int{"n": n}, nil }))
	s.MustRegister("sum", jsonrpc.TypedNoContext(func(xs []int) (int, error) {
		n := 0
		for _, x := range xs {
			n += x
		}
		return n*100 + len(xs), nil
	}))
	const user = `{"id":7,"name":"Ada","age":36,"admin":true,"tags":["a","b"],"address":{"city":"London","zip":1},"created":"2025-11-27T10:15:00Z","nick":null}`
	for _, tt := range []struct{ method, params, want string }{
		{"createUser", `{"name":"Ada","age":36,"admin":true,"tags":["a","b"],"address":{"city":"London","zip":1},"created":"2025-11-27T10:15:00Z"}`, `"result":` + user},
		{"createUser", `[0,"Ada",36,true,["a","b"],{"city":"London","zip":1},"2025-11-27T10:15:00Z"]`, `"result":` + user},
		{"createUser", `[{"name":"Ada","age":36,"admin":true,"tags":["a","b"],"address":{"city":"London","zip":1},"created":"2025-11-27T10:15:00Z"}]`, `"result":` + user},
		// Names match as encoding/json matches them; null leaves a field as it is; the last of a repeated member wins.
		{"createUser", `{"NAME":"Ada","age":null,"Age":36,"admin":true,"tags":["a","b"],"address":{"city":"London","zip":1},"created":"2025-11-27T10:15:00Z","nick":null}`, `"result":` + user},
		{"createUser", `{"name":"x","name":"Ada","age":36,"admin":true,"tags":["a","b"],"address":{"city":"London","zip":1},"created":"2025-11-27T10:15:00Z"}`, `"result":` + user},
		{"createUser", `{"name":"Ada","nick":"ad"}`, `"nick":"ad"}`},
		{"createUser", `{"name":""}`, `"data":"name is required"`},
		{"createUser", `{"name":"Ada","nickname":"b"}`, `"code":-32602,"message":"Invalid params","data":"unknown param \"nickname\""`},
		{"createUser", `{"name":"Ada","age":"old"}`, `"data":"param \"age\": want an integer"`},
		{"createUser", `{"address":{"city":"x","county":"y"}}`, `county`},
		{"createUser", `{"address":{"zip":"SW1"}}`, `zip`},
		{"double", `[21]`, `"result":42`},
		{"double", `[21,1]`, `"code":-32602`},
		{"double", `["x"]`, `"code":-32602`},
		{"greet", `{"name":"Ada"}`, `"result":"hello Ada"`},
		{"greet", `["Ada"]`, `"result":"hello Ada"`},
		{"neg", `[2]`, `"result":-2`},
		{"neg", `[]`, `"result":-1.5`},
		{"ptr", `{"name":"Ada"}`, `"result":"Ada"`},
		{"len", `[[1,2,3]]`, `"result":3`},
		{"raw", `[{"a" : [1, "x y"]}]`, `"result":{"a":[1,"x y"]}`},
		{"any", `[3]`, `"result":{"n":3}`},
		{"sum", `[[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,null]]`, `"result":21021`},
		{"sum", `[[]]`, `"result":0`},
		{"sum", `[null]`, `"result":0`},
	} {
		got := s.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"`+tt.method+`","params":`+tt.params+`,"id":1}`)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s(%s) = %s, want it to contain %s", tt.method, tt.params, got, tt.want)
		}
	}
}

func TestTypedRefused(t *testing.T) {
	t.Parallel()
	s := jsonrpc.NewServer()
	for name, m := range map[string]jsonrpc.TypedMethod{
		"nil":      jsonrpc.Typed[int, int](nil),
		"nilFunc":  jsonrpc.TypedNoContext[int, int](nil),
		"chan":     jsonrpc.TypedNoContext(func(chan int) (int, error) { return 0, nil }),
		"result":   jsonrpc.TypedNoContext(func(int) (func(), error) { return nil, nil }),
		"zero":     {},
		"defaults": jsonrpc.TypedNoContext(func(int) (int, error) { return 0, nil }),
	} {
		var opts []jsonrpc.MethodOption
		if name == "defaults" {
			opts = append(opts, jsonrpc.Defaults("x"))
		}
		if err := s.Register(name, m, opts...); !errors.Is(err, jsonrpc.ErrInvalidMethod) {
			t.Errorf("Register(%s) = %v, want ErrInvalidMethod", name, err)
		}
	}
}

// A json.RawMessage param is the span as sent, and a json.RawMessage
// result is sent without the codec, compacted, once checked.
func TestRawMessage(t *testing.T) {
	t.Parallel()
	s := jsonrpc.NewServer()
	s.MustRegister("echo", func(v json.RawMessage) json.RawMessage { return v })
	s.MustRegister("echoDefault", func(v json.RawMessage) json.RawMessage { return v }, jsonrpc.Defaults(json.RawMessage(`{"a":`)))
	s.MustRegister("echoTyped", jsonrpc.TypedNoContext(func(v json.RawMessage) (json.RawMessage, error) { return v, nil }), jsonrpc.Defaults(json.RawMessage(`{"a":`)))
	s.MustRegister("give", func(s string) json.RawMessage {
		if s == "nil" {
			return nil
		}
		return json.RawMessage(s)
	})
	for _, tt := range []struct{ method, params, want string }{
		{"echo", `[ {"a" : [1, "x y"], "b":"<&>"} ]`, `"result":{"a":[1,"x y"],"b":"<&>"}`},
		{"echo", `[null]`, `"result":null`},
		{"echoTyped", `[ {"a" : [1, "x y"]} ]`, `"result":{"a":[1,"x y"]}`},
		{"echoDefault", `[]`, `"code":-32603`},
		{"echoTyped", `[]`, `"code":-32603`},
		{"give", `["nil"]`, `"result":null`},
		{"give", `[" {\n\"a\":\t1 } "]`, `"result":{"a":1}`},
		{"give", `["{\"a\":"]`, `"code":-32603`},
		{"give", `["1 2"]`, `"code":-32603`},
	} {
		got := s.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"`+tt.method+`","params":`+tt.params+`,"id":1}`)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s(%s) = %s, want it to contain %s", tt.method, tt.params, got, tt.want)
		}
	}
}

// A json.RawMessage param is a copy: the method may keep it after the
// request's bytes are reused.
func TestRawMessageCopied(t *testing.T) {
	t.Parallel()
	var kept json.RawMessage
	s := jsonrpc.NewServer()
	s.MustRegister("keep", jsonrpc.TypedNoContext(func(v json.RawMessage) (bool, error) { kept = v; return true, nil }))
	req := []byte(`{"jsonrpc":"2.0","method":"keep","params":[{"a":1}],"id":1}`)
	s.Process(context.Background(), nil, req)
	for i := range req {
		req[i] = ' '
	}
	if string(kept) != `{"a":1}` {
		t.Errorf("kept %q after the request was overwritten, want {\"a\":1}", kept)
	}
}
