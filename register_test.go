package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

func TestServiceMethodName(t *testing.T) {
	t.Parallel()
	tests := []struct{ prefix, goName, want string }{
		{"", "HTTPGet", "httpGet"},
		{"", "ID", "id"},
		{"", "AddInt", "addInt"},
		{"", "Add", "add"},
		{"", "A", "a"},
		{"", "URL", "url"},
		{"", "XMLParser", "xmlParser"},
		{"", "GetHTTPResponse", "getHTTPResponse"},
		{"", "Test2", "test2"},
		{"", "NullableFloatToNullableFloat", "nullableFloatToNullableFloat"},
		{"calc", "Add", "calc.add"},
		{"a.b", "HTTPGet", "a.b.httpGet"},
	}
	for _, tt := range tests {
		if got := jsonrpc.ServiceMethodName(tt.prefix, tt.goName); got != tt.want {
			t.Errorf("ServiceMethodName(%q, %q) = %q, want %q", tt.prefix, tt.goName, got, tt.want)
		}
	}
}

// naming is a service for RegisterService.
type naming struct{}

func (naming) AddInt(a, b int) int                { return a + b }
func (naming) HTTPGet(path string) string         { return "GET " + path }
func (naming) ID() string                         { return "the id" }
func (naming) Greet(name, greeting string) string { return greeting + ", " + name }
func (naming) Shout(s string, times int) string   { return strings.Repeat(s, times) }
func (naming) Fail() (string, error)              { return "", errors.New("failed") }
func (naming) Sum(xs ...int) int                  { return len(xs) }
func (*naming) PointerOnly() string               { return "pointer" }

// Internal and Pair cannot be served: they must be skipped.
func (naming) Internal(chan int)                 {}
func (naming) Pair(a, b string) (string, string) { return a, b }

func TestRegisterService(t *testing.T) {
	t.Parallel()
	srv := jsonrpc.NewServer()
	err := srv.RegisterService("svc", &naming{},
		jsonrpc.Skip("Internal", "Pair"),
		jsonrpc.Rename("ID", "ident"),
		jsonrpc.ForMethod("Greet", jsonrpc.ParamNames("name", "greeting"), jsonrpc.Defaults("Hi")),
		jsonrpc.ForMethod("Shout", jsonrpc.Defaults(2)),
	)
	if err != nil {
		t.Fatalf("RegisterService: %v", err)
	}
	got := srv.Methods()
	slices.Sort(got)
	want := []string{"ident", "svc.addInt", "svc.fail", "svc.greet", "svc.httpGet", "svc.pointerOnly", "svc.shout", "svc.sum"}
	if !slices.Equal(got, want) {
		t.Errorf("Methods() = %q, want %q", got, want)
	}
	for _, c := range []rpcCase{
		{name: "addInt", req: call("svc.addInt", "[1,2]", "1"), want: wantResult("3", "1")},
		{name: "httpGet", req: call("svc.httpGet", `["/x"]`, "1"), want: wantResult(`"GET /x"`, "1")},
		{name: "renamed", req: call("ident", "", "1"), want: wantResult(`"the id"`, "1")},
		{name: "old name", req: call("svc.id", "", "1"), want: notFound("svc.id")},
		{name: "skipped", req: call("svc.internal", "", "1"), want: notFound("svc.internal")},
		{name: "ForMethod names", req: call("svc.greet", `{"name":"Ann"}`, "1"), want: wantResult(`"Hi, Ann"`, "1")},
		{name: "ForMethod default", req: call("svc.shout", `["ab"]`, "1"), want: wantResult(`"abab"`, "1")},
		{name: "ForMethod only its method", req: call("svc.addInt", `{"a":1,"b":2}`, "1"), want: invalidParams, data: "named"},
		{name: "pointer method", req: call("svc.pointerOnly", "", "1"), want: wantResult(`"pointer"`, "1")},
		{name: "error", req: call("svc.fail", "", "1"), want: wantErrorMessage(jsonrpc.CodeServerError, "Server error", "1")},
		{name: "variadic", req: call("svc.sum", "[1,2,3]", "1"), want: wantResult("3", "1")},
	} {
		checkCase(t, srv, c)
	}
}

// type badService has one method that cannot be served.
type badService struct{}

func (badService) Fine() int     { return 1 }
func (badService) Bad(chan int)  {}
func (badService) AlsoFine() int { return 2 }

type emptyService struct{}

func TestRegisterServiceErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(*jsonrpc.Server) // runs before RegisterService
		svc     any
		opts    []jsonrpc.ServiceOption
		wantErr error
		inErr   string // text the error must hold
	}{
		{name: "unservable method", svc: badService{}, wantErr: jsonrpc.ErrInvalidMethod, inErr: "Bad"},
		{name: "duplicate name", setup: func(s *jsonrpc.Server) { s.MustRegister("alsoFine", func() {}) }, svc: badService{}, opts: []jsonrpc.ServiceOption{jsonrpc.Skip("Bad")}, wantErr: jsonrpc.ErrDuplicate, inErr: "alsoFine"},
		{name: "renamed onto each other", svc: badService{}, opts: []jsonrpc.ServiceOption{jsonrpc.Skip("Bad"), jsonrpc.Rename("Fine", "x"), jsonrpc.Rename("AlsoFine", "x")}, wantErr: jsonrpc.ErrDuplicate},
		{name: "rename to rpc.", svc: badService{}, opts: []jsonrpc.ServiceOption{jsonrpc.Skip("Bad"), jsonrpc.Rename("Fine", "rpc.fine")}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "rename unknown", svc: badService{}, opts: []jsonrpc.ServiceOption{jsonrpc.Skip("Bad"), jsonrpc.Rename("Nope", "x")}, wantErr: jsonrpc.ErrInvalidMethod, inErr: "Nope"},
		{name: "ForMethod unknown", svc: badService{}, opts: []jsonrpc.ServiceOption{jsonrpc.Skip("Bad"), jsonrpc.ForMethod("Nope", jsonrpc.Defaults(1))}, wantErr: jsonrpc.ErrInvalidMethod, inErr: "Nope"},
		{name: "ForMethod bad default", svc: badService{}, opts: []jsonrpc.ServiceOption{jsonrpc.Skip("Bad"), jsonrpc.ForMethod("Fine", jsonrpc.Defaults(1))}, wantErr: jsonrpc.ErrInvalidMethod, inErr: "Fine"},
		{name: "nil", svc: nil, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "no exported methods", svc: emptyService{}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "all skipped", svc: badService{}, opts: []jsonrpc.ServiceOption{jsonrpc.Skip("Bad", "Fine", "AlsoFine")}, wantErr: jsonrpc.ErrInvalidMethod},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := jsonrpc.NewServer()
			if tt.setup != nil {
				tt.setup(srv)
			}
			before := srv.Methods()
			err := srv.RegisterService("", tt.svc, tt.opts...)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("RegisterService = %v, want an error wrapping %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.inErr) {
				t.Errorf("RegisterService = %q, want it to name %q", err, tt.inErr)
			}
			if after := srv.Methods(); len(after) != len(before) {
				t.Errorf("after a failed RegisterService, Methods() = %q, want %q: all or none", after, before)
			}
		})
	}
}

func TestRegisterErrors(t *testing.T) {
	t.Parallel()
	type opts = []jsonrpc.MethodOption
	tests := []struct {
		name    string
		method  string
		fn      any
		opts    opts
		wantErr error // nil: registration succeeds
	}{
		{name: "valid", method: "ok", fn: func(int) int { return 0 }},
		{name: "rpc prefix", method: "rpc.foo", fn: func() {}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "rpc. alone", method: "rpc.", fn: func() {}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "rpc without dot", method: "rpcfoo", fn: func() {}},
		{name: "rpc. inside", method: "x.rpc.foo", fn: func() {}},
		{name: "empty name", method: "", fn: func() {}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "invalid UTF-8 name", method: "a\xffb", fn: func() {}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "chan param", method: "m", fn: func(chan int) {}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "func param", method: "m", fn: func(func()) {}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "complex param", method: "m", fn: func(complex128) {}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "pointer to pointer param", method: "m", fn: func(**int) {}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "chan result", method: "m", fn: func() chan int { return nil }, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "three results", method: "m", fn: func() (int, int, error) { return 0, 0, nil }, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "second result not error", method: "m", fn: func() (int, int) { return 0, 0 }, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "two errors", method: "m", fn: func() (error, error) { return nil, nil }, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "context not first", method: "m", fn: func(int, context.Context) {}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "not a function", method: "m", fn: 42, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "nil", method: "m", fn: nil, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "nil function", method: "m", fn: (func())(nil), wantErr: jsonrpc.ErrInvalidMethod},
		{name: "names count", method: "m", fn: func(a, b int) {}, opts: opts{jsonrpc.ParamNames("a")}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "names repeated", method: "m", fn: func(a, b int) {}, opts: opts{jsonrpc.ParamNames("a", "a")}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "name empty", method: "m", fn: func(a, b int) {}, opts: opts{jsonrpc.ParamNames("a", "")}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "too many defaults", method: "m", fn: func(a int) {}, opts: opts{jsonrpc.Defaults(1, 2)}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "default of wrong type", method: "m", fn: func(a int) {}, opts: opts{jsonrpc.Defaults("x")}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "default out of range", method: "m", fn: func(a int8) {}, opts: opts{jsonrpc.Defaults(300)}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "default with fraction", method: "m", fn: func(a int) {}, opts: opts{jsonrpc.Defaults(1.5)}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "default converts exactly", method: "m", fn: func(a float64) {}, opts: opts{jsonrpc.Defaults(3)}},
		{name: "nil default for pointer", method: "m", fn: func(a *int) {}, opts: opts{jsonrpc.Defaults(nil)}},
		{name: "nil default for int", method: "m", fn: func(a int) {}, opts: opts{jsonrpc.Defaults(nil)}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "variadic default", method: "m", fn: func(a ...int) {}, opts: opts{jsonrpc.Defaults([]int{1})}, wantErr: jsonrpc.ErrInvalidMethod},
		{name: "duplicate", method: "subtract", fn: func() {}, wantErr: jsonrpc.ErrDuplicate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := demo.NewServer()
			before := len(srv.Methods())
			err := srv.Register(tt.method, tt.fn, tt.opts...)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("Register(%q, %T) = %v, want nil", tt.method, tt.fn, err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("Register(%q, %T) = %v, want an error wrapping %v", tt.method, tt.fn, err, tt.wantErr)
			case tt.wantErr != nil:
				if after := len(srv.Methods()); after != before {
					t.Errorf("failed Register changed the method count from %d to %d", before, after)
				}
			}
		})
	}
}

func TestMustRegisterPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, jsonrpc.ErrInvalidMethod) {
			t.Errorf("MustRegister panicked with %v, want an error wrapping ErrInvalidMethod", err)
		}
	}()
	jsonrpc.NewServer().MustRegister("rpc.x", func() {})
}

func TestUnregister(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	req := call("subtract", "[42,23]", "1")
	checkCase(t, srv, rpcCase{name: "before", req: req, want: wantResult("19", "1")})
	if !srv.Unregister("subtract") {
		t.Fatal(`Unregister("subtract") = false, want true`)
	}
	checkCase(t, srv, rpcCase{name: "after", req: req, want: notFound("subtract")})
	if srv.Unregister("subtract") {
		t.Error(`second Unregister("subtract") = true, want false`)
	}
	if srv.Unregister("nonexistent") {
		t.Error(`Unregister("nonexistent") = true, want false`)
	}
	if jsonrpc.NewServer().Unregister("x") {
		t.Error(`Unregister on an empty server = true, want false`)
	}
	if err := srv.Register("subtract", func(a, b int) int { return a - b }); err != nil {
		t.Fatalf("Register after Unregister: %v", err)
	}
	checkCase(t, srv, rpcCase{name: "again", req: req, want: wantResult("19", "1")})
}

// Options that do not apply where they are passed do not compile: each line
// of testdata/misuse marked with an ERROR comment must fail with that error,
// and nothing else may fail.
func TestOptionMisuseDoesNotCompile(t *testing.T) {
	testutil.SkipOnWasm(t, "runs the go command, and a WebAssembly program cannot start a process")
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "misuse", "misuse.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]*regexp.Regexp{} // line -> expected error
	for i, line := range strings.Split(string(src), "\n") {
		if _, re, ok := strings.Cut(line, `// ERROR "`); ok {
			want[i+1] = regexp.MustCompile(strings.TrimSuffix(re, `"`))
		}
	}
	if len(want) == 0 {
		t.Fatal("testdata/misuse has no ERROR lines")
	}
	out, err := exec.Command(goTool, "build", "-gcflags=-e", "-o", os.DevNull, "./testdata/misuse").CombinedOutput()
	if err == nil {
		t.Fatalf("testdata/misuse compiled:\n%s", out)
	}
	got := map[int]string{}
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(line, "testdata/misuse/misuse.go:")
		if !ok {
			rest, ok = strings.CutPrefix(line, filepath.Join("testdata", "misuse", "misuse.go")+":")
		}
		if !ok {
			continue
		}
		num, msg, _ := strings.Cut(rest, ":")
		n, err := strconv.Atoi(num)
		if err != nil {
			t.Fatalf("cannot read the line of %q", line)
		}
		_, msg, _ = strings.Cut(msg, ": ") // drop the column
		got[n] = msg
	}
	for n, re := range want {
		switch msg, ok := got[n]; {
		case !ok:
			t.Errorf("misuse.go:%d compiled; want an error matching %q", n, re)
		case !re.MatchString(msg):
			t.Errorf("misuse.go:%d: error %q, want one matching %q", n, msg, re)
		}
	}
	for n, msg := range got {
		if want[n] == nil {
			t.Errorf("misuse.go:%d: unexpected error %q", n, msg)
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

// ledger is a service whose receiver a factory makes per call.
type ledger struct {
	user  string
	calls *int
}

func (l *ledger) Whoami() string { *l.calls++; return l.user }

func (l *ledger) Pay(ctx context.Context, amount int) (string, error) {
	if jsonrpc.CallOf(ctx) == nil {
		return "", errors.New("no Call in the method's context")
	}
	return fmt.Sprintf("%s pays %d", l.user, amount), nil
}

// counter is a service by value, for a factory that returns values.
type counter struct{ n int }

func (c counter) Next() int { return c.n + 1 }

// RegisterService with a factory makes the receiver for each call from the
// call's context, and the factory's error answers the call.
func TestRegisterServiceFactory(t *testing.T) {
	t.Parallel()
	srv := jsonrpc.NewServer()
	made := 0
	calls := 0
	err := srv.RegisterService("ledger", func(ctx context.Context) (*ledger, error) {
		made++
		c := jsonrpc.CallOf(ctx)
		if c == nil {
			return nil, errors.New("the factory got no Call")
		}
		user, _ := c.ContextValue().(string)
		switch user {
		case "":
			return nil, jsonrpc.NewError(-32001, "not signed in")
		case "nil":
			return nil, nil
		}
		return &ledger{user: user, calls: &calls}, nil
	}, jsonrpc.ForMethod("Pay", jsonrpc.ParamNames("amount")))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.RegisterService("counter", func(context.Context) (counter, error) { return counter{n: 41}, nil }); err != nil {
		t.Fatal(err)
	}
	got := srv.Methods()
	slices.Sort(got)
	if want := []string{"counter.next", "ledger.pay", "ledger.whoami"}; !slices.Equal(got, want) {
		t.Errorf("Methods() = %q, want %q", got, want)
	}
	as := func(user string) context.Context { return transport.WithContextValue(context.Background(), user) }
	for _, tt := range []struct {
		ctx       context.Context
		req, want string
	}{
		{as("ann"), call("ledger.whoami", "", "1"), wantResult(`"ann"`, "1")},
		{as("bob"), call("ledger.whoami", "", "2"), wantResult(`"bob"`, "2")},
		{as("ann"), call("ledger.pay", `{"amount":5}`, "3"), wantResult(`"ann pays 5"`, "3")},
		{as(""), call("ledger.whoami", "", "4"), wantErrorMessage(-32001, "not signed in", "4")},
		{as("nil"), call("ledger.whoami", "", "5"), wantError(jsonrpc.CodeInternalError, "5")},
		{context.Background(), call("counter.next", "", "6"), wantResult("42", "6")},
	} {
		testutil.CheckAnswer(t, tt.req, tt.req, srv.Process(tt.ctx, nil, []byte(tt.req)), tt.want)
	}
	if made != 5 || calls != 2 {
		t.Errorf("factory ran %d times and whoami %d times, want 5 and 2", made, calls)
	}
}

// A factory whose result cannot be a service is refused at registration.
func TestRegisterServiceFactoryErrors(t *testing.T) {
	t.Parallel()
	for name, svc := range map[string]any{
		"nil factory":         (func(context.Context) (*ledger, error))(nil),
		"interface result":    func(context.Context) (fmt.Stringer, error) { return nil, nil },
		"no exported methods": func(context.Context) (*emptyService, error) { return nil, nil },
	} {
		if err := jsonrpc.NewServer().RegisterService("x", svc); !errors.Is(err, jsonrpc.ErrInvalidMethod) {
			t.Errorf("%s: RegisterService = %v, want ErrInvalidMethod", name, err)
		}
	}
}

// Registration errors say what to do.
func TestRegisterErrorMessages(t *testing.T) {
	t.Parallel()
	srv := jsonrpc.NewServer()
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"error first", srv.Register("m", func() (error, int) { return nil, 0 }), "the error must come last, as in (int, error)"},
		{"pointer receivers", srv.RegisterService("p", pointerOnly{}), "pass a pointer (*jsonrpc_test.pointerOnly)"},
		{"skipped and renamed", srv.RegisterService("n", &naming{}, jsonrpc.Skip("Internal", "Pair", "ID"), jsonrpc.Rename("ID", "x")), "naming.ID is both skipped and renamed"},
		{"skipped with options", srv.RegisterService("n", &naming{}, jsonrpc.Skip("Internal", "Pair", "Greet"), jsonrpc.ForMethod("Greet", jsonrpc.Defaults("x"))), "naming.Greet is skipped but given options"},
	} {
		if !errors.Is(tt.err, jsonrpc.ErrInvalidMethod) || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: %v, want an ErrInvalidMethod saying %q", tt.name, tt.err, tt.want)
		}
	}
	if got := srv.Methods(); len(got) != 0 {
		t.Errorf("failed registrations left methods %q", got)
	}
}

// pointerOnly has methods on its pointer only.
type pointerOnly struct{}

func (*pointerOnly) Get() int { return 1 }
