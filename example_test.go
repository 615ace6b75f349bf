package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

func ExampleServer_Process() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b float64) float64 { return a + b })

	buf := make([]byte, 0, 512)
	buf = srv.Process(context.Background(), buf[:0], []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
	fmt.Println(string(buf))
	// Output: {"jsonrpc":"2.0","result":3,"id":1}
}

// A batch is answered with an array of the answers of its calls, in the
// order they complete (here, the order of the batch); a notification has
// none, and a call that fails is answered with its error object.
func ExampleServer_Process_batch() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b float64) float64 { return a + b })
	srv.MustRegister("log", func(msg string) {})

	batch := `[
		{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},
		{"jsonrpc":"2.0","method":"log","params":["hello"]},
		{"jsonrpc":"2.0","method":"divide","params":[1,0],"id":2},
		{"jsonrpc":"2.0","method":"add","params":[3,4],"id":3}
	]`
	buf := srv.Process(context.Background(), nil, []byte(batch))
	fmt.Println(string(buf))

	// A batch of notifications only is answered with nothing at all.
	buf = srv.Process(context.Background(), buf[:0], []byte(`[{"jsonrpc":"2.0","method":"log","params":["a"]},{"jsonrpc":"2.0","method":"log","params":["b"]}]`))
	fmt.Println(len(buf))
	// Output:
	// [{"jsonrpc":"2.0","result":3,"id":1},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"divide"},"id":2},{"jsonrpc":"2.0","result":7,"id":3}]
	// 0
}

func ExampleServer_ProcessString() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("upper", strings.ToUpper)

	fmt.Println(srv.ProcessString(context.Background(), `[{"jsonrpc":"2.0","method":"upper","params":["a"],"id":1},{"jsonrpc":"2.0","method":"upper","params":["b"]}]`))
	// Output: [{"jsonrpc":"2.0","result":"A","id":1}]
}

func ExampleParamNames() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("subtract", func(minuend, subtrahend int) int { return minuend - subtrahend },
		jsonrpc.ParamNames("minuend", "subtrahend"))

	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":3}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":4}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42},"id":5}`))
	// Output:
	// {"jsonrpc":"2.0","result":19,"id":3}
	// {"jsonrpc":"2.0","result":19,"id":4}
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"param \"subtrahend\": missing required param"},"id":5}
}

func ExampleDefaults() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("greet", func(name, greeting string) string { return greeting + ", " + name },
		jsonrpc.ParamNames("name", "greeting"), jsonrpc.Defaults("Hello"))

	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"greet","params":["Ada"],"id":1}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"greet","params":{"name":"Ada","greeting":"Hi"},"id":2}`))
	// Output:
	// {"jsonrpc":"2.0","result":"Hello, Ada","id":1}
	// {"jsonrpc":"2.0","result":"Hi, Ada","id":2}
}

type Inventory struct{ items map[string]int }

func (v *Inventory) Count(item string) int { return v.items[item] }

func (v *Inventory) Add(item string, n int) int {
	v.items[item] += n
	return v.items[item]
}

func (v *Inventory) Reset() { clear(v.items) }

func ExampleServer_RegisterService() {
	srv := jsonrpc.NewServer()
	err := srv.RegisterService("inventory", &Inventory{items: map[string]int{}},
		jsonrpc.Skip("Reset"),
		jsonrpc.ForMethod("Add", jsonrpc.ParamNames("item", "n")))
	if err != nil {
		panic(err)
	}
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"inventory.add","params":{"item":"apple","n":3},"id":1}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"inventory.count","params":["apple"],"id":2}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"inventory.reset","id":3}`))
	// Output:
	// {"jsonrpc":"2.0","result":3,"id":1}
	// {"jsonrpc":"2.0","result":3,"id":2}
	// {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"inventory.reset"},"id":3}
}

func ExampleCallOf() {
	type user struct{ name string }
	srv := jsonrpc.NewServer()
	srv.MustRegister("whoami", func(ctx context.Context) string {
		c := jsonrpc.CallOf(ctx)
		u := c.ContextValue().(*user)
		return fmt.Sprintf("%s called %s with id %s", u.name, c.Method(), c.ID())
	})

	ctx := transport.WithContextValue(context.Background(), &user{name: "ada"})
	out := srv.Process(ctx, nil, []byte(`{"jsonrpc":"2.0","method":"whoami","id":"7"}`))
	fmt.Println(string(out))
	// Output: {"jsonrpc":"2.0","result":"ada called whoami with id \"7\"","id":"7"}
}

func ExampleError() {
	errNoFunds := jsonrpc.NewError(1001, "insufficient funds")
	srv := jsonrpc.NewServer()
	srv.MustRegister("withdraw", func(amount int) (int, error) {
		if amount > 100 {
			return 0, fmt.Errorf("withdraw %d: %w", amount, errNoFunds.WithData(map[string]int{"balance": 100}))
		}
		return 100 - amount, nil
	})
	srv.MustRegister("fail", func() error { return errors.New("disk full") }) // its text stays on the server

	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"withdraw","params":[500],"id":1}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"fail","id":2}`))
	// Output:
	// {"jsonrpc":"2.0","error":{"code":1001,"message":"insufficient funds","data":{"balance":100}},"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32000,"message":"Server error"},"id":2}
}

// An interceptor refuses a call before its method runs, and answers a
// panic with an error object of its own.
func ExampleIntercept_access() {
	srv := jsonrpc.NewServer(jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
		if c.Method() == "admin" && c.ContextValue() != "root" {
			return jsonrpc.NewError(-32001, "forbidden") // the method does not run
		}
		err := next(ctx)
		if p, ok := errors.AsType[*jsonrpc.PanicError](err); ok {
			return jsonrpc.ErrInternal.WithData(fmt.Sprint(p.Value))
		}
		return err
	}))
	srv.MustRegister("admin", func() string { return "ok" })
	srv.MustRegister("crash", func() int { panic("boom") })

	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"admin","id":1}`))
	out := srv.Process(transport.WithContextValue(context.Background(), "root"), nil,
		[]byte(`{"jsonrpc":"2.0","method":"admin","id":2}`))

	fmt.Println(string(out))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"crash","id":3}`))
	// Output:
	// {"jsonrpc":"2.0","error":{"code":-32001,"message":"forbidden"},"id":1}
	// {"jsonrpc":"2.0","result":"ok","id":2}
	// {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"boom"},"id":3}
}

func ExampleSessions() {
	srv := jsonrpc.NewServer()
	sessions := &jsonrpc.Sessions{}
	alice, err := sessions.Create("alice")
	if err != nil {
		panic(err)
	}
	alice.MustRegister("hello", func(ctx context.Context) string {
		return "hello, " + jsonrpc.CallOf(ctx).SessionID()
	})

	fmt.Println(alice.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"hello","id":1}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"hello","id":2}`))
	fmt.Println(sessions.IDs())
	sessions.Destroy("alice")
	_, ok := sessions.Lookup("alice")
	fmt.Println(ok)
	// Output:
	// {"jsonrpc":"2.0","result":"hello, alice","id":1}
	// {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"hello"},"id":2}
	// [alice]
	// false
}

// Account is a service made for each call by a factory: here it carries the
// caller's identity, which a pre-process hook could have checked.
type Account struct{ owner string }

func (a *Account) Owner() string { return a.owner }

func ExampleServer_RegisterService_factory() {
	srv := jsonrpc.NewServer()
	err := srv.RegisterService("account", func(ctx context.Context) (*Account, error) {
		user, _ := jsonrpc.CallOf(ctx).ContextValue().(string)
		if user == "" {
			return nil, jsonrpc.NewError(-32001, "not signed in")
		}
		return &Account{owner: user}, nil
	})
	if err != nil {
		panic(err)
	}

	ctx := transport.WithContextValue(context.Background(), "alice")
	fmt.Println(srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"account.owner","id":1}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"account.owner","id":2}`))
	// Output:
	// {"jsonrpc":"2.0","result":"alice","id":1}
	// {"jsonrpc":"2.0","error":{"code":-32001,"message":"not signed in"},"id":2}
}

// A codec that counts the values it encodes, for one method.
type countingCodec struct {
	jsonrpc.JSONCodec
	n *int
}

func (c countingCodec) Append(dst []byte, v any) ([]byte, error) {
	*c.n++
	return c.JSONCodec.Append(dst, v)
}

func ExampleMethodCodec() {
	var n int
	srv := jsonrpc.NewServer()
	srv.MustRegister("sort", func(xs []int) []int { slices.Sort(xs); return xs },
		jsonrpc.MethodCodec(countingCodec{n: &n}))
	srv.MustRegister("reverse", func(xs []int) []int { slices.Reverse(xs); return xs })

	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"sort","params":[[3,1,2]],"id":1}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"reverse","params":[[3,1,2]],"id":2}`))
	fmt.Println("encoded by the method's codec:", n)
	// Output:
	// {"jsonrpc":"2.0","result":[1,2,3],"id":1}
	// {"jsonrpc":"2.0","result":[2,1,3],"id":2}
	// encoded by the method's codec: 1
}

func ExampleAllowUnknownFields() {
	type address struct {
		City string `json:"city"`
	}
	move := func(to address) string { return "moved to " + to.City }
	req := `{"jsonrpc":"2.0","method":"move","params":{"to":{"city":"Oslo","country":"NO"}},"id":1}`

	strict := jsonrpc.NewServer()
	strict.MustRegister("move", move, jsonrpc.ParamNames("to"))
	fmt.Println(strict.ProcessString(context.Background(), req))

	lenient := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	lenient.MustRegister("move", move, jsonrpc.ParamNames("to"))
	fmt.Println(lenient.ProcessString(context.Background(), req))
	// Output:
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"param \"to\": unknown field \"country\""},"id":1}
	// {"jsonrpc":"2.0","result":"moved to Oslo","id":1}
}

// Typed methods take their params as one value, here a struct bound by
// field (by name or by position), and are called directly.
func ExampleTyped() {
	type moveParams struct {
		From string  `json:"from"`
		To   string  `json:"to"`
		Km   float64 `json:"km"`
	}
	type move struct {
		Route string  `json:"route"`
		Hours float64 `json:"hours"`
	}
	srv := jsonrpc.NewServer()
	srv.MustRegister("plan", jsonrpc.Typed(func(ctx context.Context, p moveParams) (move, error) {
		if p.Km <= 0 {
			return move{}, jsonrpc.ErrInvalidParams.WithData("km must be positive")
		}
		return move{Route: p.From + "-" + p.To, Hours: p.Km / 80}, nil
	}))
	ctx := context.Background()
	fmt.Println(srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"plan","params":{"from":"Oslo","to":"Bergen","km":460},"id":1}`))
	fmt.Println(srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"plan","params":["Oslo","Bergen",0],"id":2}`))
	// Output:
	// {"jsonrpc":"2.0","result":{"route":"Oslo-Bergen","hours":5.75},"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"km must be positive"},"id":2}
}

// TypedNoContext serves a function without a context; one without an error
// returns a nil one from a closure. A param that is not a struct is the
// only positional param, or named with ParamNames.
func ExampleTypedNoContext() {
	srv := jsonrpc.NewServer()
	shout := func(s string) (string, error) { return strings.ToUpper(s), nil }
	srv.MustRegister("shout", jsonrpc.TypedNoContext(shout), jsonrpc.ParamNames("text"))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"shout","params":{"text":"hi"},"id":1}`))
	// Output:
	// {"jsonrpc":"2.0","result":"HI","id":1}
}
