package demorpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/openrpc"
	"github.com/jsonrpc-go/jsonrpc/openrpc/gen/internal/demorpc"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

const documentFile = "../../testdata/demo.json"

// document reads the demo document the package is generated from.
func document(t testing.TB) (*openrpc.Document, []byte) {
	t.Helper()
	b, err := os.ReadFile(documentFile)
	if err != nil {
		t.Fatal(err)
	}
	var d openrpc.Document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d, b
}

// sameJSON fails t unless a and b are the same JSON value.
func sameJSON(t *testing.T, what string, a, b []byte) {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !reflect.DeepEqual(va, vb) {
		t.Errorf("%s differ:\n%s\n%s", what, a, b)
	}
}

// demoServer is the demo services as cmd/jsonrpcd serves them, and the
// methods it was called with.
func demoServer(t *testing.T) (*jsonrpc.Server, *calls) {
	cs := &calls{}
	srv := demo.NewServer(cs.option())
	if _, err := demo.RegisterTwoWay(srv); err != nil {
		t.Fatal(err)
	}
	return srv, cs
}

// TestDocumentIsTheDemoServers checks that testdata/demo.json is the
// document of the demo services, so that the package generated from it
// is theirs.
func TestDocumentIsTheDemoServers(t *testing.T) {
	d, b := document(t)
	srv, _ := demoServer(t)
	got, err := openrpc.Describe(srv, d.Info)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "the demo server's document and "+documentFile, gb, b)
}

// generatedServer is the demo services behind the generated Server
// interface, registered with the generated Register and served with
// rpc.discover.
func generatedServer(t *testing.T) (*jsonrpc.Server, *calls, *impl) {
	cs := &calls{}
	srv := jsonrpc.NewServer(cs.option())
	im := &impl{spec: new(demo.Spec), feed: demo.NewFeed()}
	t.Cleanup(im.feed.Close)
	blocking := []jsonrpc.MethodOption{jsonrpc.Blocking()}
	err := demorpc.Register(srv, im, map[string][]jsonrpc.MethodOption{
		"sleep": blocking, "progress": blocking, "callback": blocking,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := openrpc.Register(srv, demorpc.Info()); err != nil {
		t.Fatal(err)
	}
	return srv, cs, im
}

// TestRoundTrip checks that the document the generated server serves is
// the document it was generated from.
func TestRoundTrip(t *testing.T) {
	_, want := document(t)
	srv, _, _ := generatedServer(t)
	got, err := client.Call[json.RawMessage](context.Background(), client.New(client.Local(srv)), openrpc.DiscoverMethod, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "rpc.discover of the generated server and "+documentFile, got, want)
}

func TestRegisterRefusesUnknownOptions(t *testing.T) {
	srv := jsonrpc.NewServer()
	err := demorpc.Register(srv, demorpc.UnimplementedServer{}, map[string][]jsonrpc.MethodOption{"nosuch": {jsonrpc.Blocking()}})
	if err == nil {
		t.Fatal("Register took options for a method the document lacks")
	}
	if len(srv.Methods()) != 0 {
		t.Errorf("the server has methods %v after a failed Register", srv.Methods())
	}
}

func TestRegisterAllOrNone(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("sum", func() int { return 0 })
	if err := demorpc.Register(srv, demorpc.UnimplementedServer{}, nil); !errors.Is(err, jsonrpc.ErrDuplicate) {
		t.Fatalf("Register on a server with sum: %v, want ErrDuplicate", err)
	}
	if got := srv.Methods(); !slices.Equal(got, []string{"sum"}) {
		t.Errorf("the server has methods %v after a failed Register, want [sum]", got)
	}
}

// TestEveryMethod calls every method of the document through the
// generated client, over HTTP and TCP, on the demo server and on the
// generated server.
func TestEveryMethod(t *testing.T) {
	d, _ := document(t)
	var want []string
	for _, m := range d.Methods {
		want = append(want, m.Name)
	}
	servers := []struct {
		name string
		make func(t *testing.T) (*jsonrpc.Server, *calls)
	}{
		{"demo", demoServer},
		{"generated", func(t *testing.T) (*jsonrpc.Server, *calls) {
			srv, cs, _ := generatedServer(t)
			return srv, cs
		}},
	}
	for _, s := range servers {
		for _, tr := range []string{"http", "tcp"} {
			t.Run(s.name+"/"+tr, func(t *testing.T) {
				srv, cs := s.make(t)
				back := newCallbacks()
				var c *client.Client
				switch tr {
				case "http":
					ts := httptest.NewServer(&httprpc.Handler{Server: srv})
					t.Cleanup(ts.Close)
					c = client.New(client.HTTP(ts.URL, ts.Client()))
				case "tcp":
					c = dialTCP(t, srv, back.srv)
				}
				t.Cleanup(func() { c.Close() })
				callAll(t, demorpc.NewClient(c), tr == "tcp", back)
				got := cs.names()
				for _, m := range want {
					if !slices.Contains(got, m) {
						t.Errorf("%s was not called", m)
					}
				}
			})
		}
	}
}

func dialTCP(t *testing.T, srv *jsonrpc.Server, back *jsonrpc.Server) *client.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ss := &stream.Server{Server: srv, Framing: framing.Line}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ss.Serve(l)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ss.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		<-done
	})
	ch, err := client.Dial(context.Background(), "tcp", l.Addr().String(), framing.Line)
	if err != nil {
		t.Fatal(err)
	}
	return client.New(ch, client.Serve(back))
}

// callbacks is the client's own server, which the demo's callback and
// subscription reach over a two-way connection.
type callbacks struct {
	srv   *jsonrpc.Server
	feed  chan string
	pings chan string
}

func newCallbacks() *callbacks {
	cb := &callbacks{srv: jsonrpc.NewServer(), feed: make(chan string, 16)}
	cb.srv.MustRegister("ping", func(s string) string { return "pong " + s })
	cb.srv.MustRegister(demo.FeedMethod, func(p struct {
		Subscription string `json:"subscription"`
		Result       string `json:"result"`
	}) {
		cb.feed <- p.Subscription + " " + p.Result
	})
	return cb
}

// callAll calls every method of c and checks its answers; twoWay tells
// whether the connection carries the server's calls back.
func callAll(t *testing.T, c *demorpc.Client, twoWay bool, back *callbacks) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	check := func(what string, got, want any, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", what, got, want)
		}
	}
	half := 2.5
	got, err := c.NullableFloatToNullableFloat(ctx, &half)
	check("NullableFloatToNullableFloat(2.5)", *got, 2.5, err)
	got, err = c.NullableFloatToNullableFloat(ctx, nil)
	check("NullableFloatToNullableFloat(nil)", got, (*float64)(nil), err)
	s, err := c.StringMe(ctx, "hello world")
	check("StringMe", s, "hello world", err)
	f, err := c.Test2(ctx, 3.75)
	check("Test2", f, 3.75, err)
	f, err = c.Add(ctx, 1.5, 2.25)
	check("Add", f, 3.75, err)
	i, err := c.AddInt(ctx, 3, 4)
	check("AddInt", i, int64(7), err)
	raw, err := c.Echo(ctx, json.RawMessage(`{"a":[1,true,null]}`))
	check("Echo", string(raw), `{"a":[1,true,null]}`, err)
	data, err := c.GetData(ctx)
	check("GetData", fmtRaw(data), []string{`"hello"`, `5`}, err)
	check("NotifyHello", nil, nil, c.NotifyHello(ctx, 7))
	check("NotifySum", nil, nil, c.NotifySum(ctx, 1, 2, 3))
	check("Update", nil, nil, c.Update(ctx, 1, 2, 3, 4, 5))
	check("NotifyNotifyHello", nil, nil, c.NotifyNotifyHello(ctx, 7))
	check("NotifyNotifySum", nil, nil, c.NotifyNotifySum(ctx))
	check("NotifyUpdate", nil, nil, c.NotifyUpdate(ctx, 1))
	f, err = c.Sum(ctx, 1, 2, 4)
	check("Sum", f, 7.0, err)
	f, err = c.Sum(ctx)
	check("Sum()", f, 0.0, err)
	f, err = c.Subtract(ctx, 42, 23)
	check("Subtract", f, 19.0, err)
	s, err = c.Repeat(ctx, "ab", 3)
	check("Repeat", s, "ababab", err)
	if _, err := c.Repeat(ctx, "ab", -1); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("Repeat(ab, -1): %v, want ErrInvalidParams", err)
	}
	i, err = c.Sleep(ctx, 0)
	check("Sleep", i, int64(0), err)
	i, err = c.Progress(ctx, 3, nil, nil)
	check("Progress", i, int64(0), err) // no token: no reports
	i, err = c.Progress(ctx, 2, json.RawMessage(`"tok"`), nil)
	check("Progress with a token", i, int64(0), err) // the zero Protocol takes none

	if !twoWay {
		var e *jsonrpc.Error
		if _, err := c.Subscribe(ctx); !errors.As(err, &e) || e.Code != jsonrpc.CodeServerError {
			t.Errorf("Subscribe over HTTP: %v, want a server error", err)
		}
		if _, err := c.Callback(ctx, "ping", json.RawMessage(`["x"]`)); !errors.As(err, &e) || e.Code != jsonrpc.CodeServerError {
			t.Errorf("Callback over HTTP: %v, want a server error", err)
		}
		i, err = c.Publish(ctx, "a", 1)
		check("Publish", i, int64(0), err)
		ok, err := c.Unsubscribe(ctx, "nosuch")
		check("Unsubscribe", ok, false, err)
		return
	}
	raw, err = c.Callback(ctx, "ping", json.RawMessage(`["x"]`))
	check("Callback", string(raw), `"pong x"`, err)
	id, err := c.Subscribe(ctx)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	i, err = c.Publish(ctx, "ab", 2)
	check("Publish", i, int64(1), err)
	select {
	case v := <-back.feed:
		check("the feed's value", v, id+" abab", nil)
	case <-ctx.Done():
		t.Fatal("no value came on the subscription")
	}
	ok, err := c.Unsubscribe(ctx, id)
	check("Unsubscribe", ok, true, err)
}

func fmtRaw(rs []json.RawMessage) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(bytes.TrimSpace(r)))
	}
	return out
}

// calls records the names of the methods a server was called with.
type calls struct {
	mu   sync.Mutex // protects the field below
	seen []string
}

func (c *calls) option() jsonrpc.Option {
	return jsonrpc.Intercept(func(ctx context.Context, call *jsonrpc.Call, next func(context.Context) error) error {
		c.mu.Lock()
		c.seen = append(c.seen, call.Method())
		c.mu.Unlock()
		return next(ctx)
	})
}

func (c *calls) names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.seen)
}

// impl serves the demo services through the generated Server interface.
type impl struct {
	calc demo.Calculator
	spec *demo.Spec
	feed *demo.Feed
}

var _ demorpc.Server = (*impl)(nil)

func (i *impl) NullableFloatToNullableFloat(_ context.Context, a *float64) (*float64, error) {
	return i.calc.NullableFloatToNullableFloat(a), nil
}

func (i *impl) StringMe(_ context.Context, s string) (string, error) { return i.calc.StringMe(s), nil }

func (i *impl) Test2(_ context.Context, x float64) (float64, error) { return i.calc.Test2(x), nil }

func (i *impl) Add(_ context.Context, a, b float64) (float64, error) { return i.calc.Add(a, b), nil }

func (i *impl) AddInt(_ context.Context, a, b int64) (int64, error) {
	return int64(i.calc.AddInt(int(a), int(b))), nil
}

func (i *impl) Callback(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return demo.Callback(ctx, method, params)
}

func (i *impl) Echo(_ context.Context, v json.RawMessage) (json.RawMessage, error) {
	return demo.Echo(v), nil
}

func (i *impl) GetData(context.Context) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for _, v := range i.spec.GetData() {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (i *impl) NotifyHello(_ context.Context, x int64) error {
	i.spec.NotifyHello(int(x))
	return nil
}

func (i *impl) NotifySum(_ context.Context, xs ...float64) error {
	i.spec.NotifySum(xs...)
	return nil
}

func (i *impl) Progress(ctx context.Context, p demorpc.ProgressParams) (int64, error) {
	n, err := demo.Progress(ctx, demo.ProgressParams{Steps: int(p.Steps), WorkDoneToken: p.WorkDoneToken, Meta: p.Meta})
	return int64(n), err
}

func (i *impl) Publish(ctx context.Context, s string, n int64) (int64, error) {
	k, err := i.feed.Publish(ctx, s, int(n))
	return int64(k), err
}

func (i *impl) Repeat(_ context.Context, s string, n int64) (string, error) {
	return demo.Repeat(s, int(n))
}

func (i *impl) Sleep(ctx context.Context, ms int64) (int64, error) {
	n, err := demo.Sleep(ctx, int(ms))
	return int64(n), err
}

func (i *impl) Subscribe(ctx context.Context) (string, error) { return i.feed.Subscribe(ctx) }

func (i *impl) Subtract(_ context.Context, a, b float64) (float64, error) {
	return i.spec.Subtract(a, b), nil
}

func (i *impl) Sum(_ context.Context, xs ...float64) (float64, error) { return i.spec.Sum(xs...), nil }

func (i *impl) Unsubscribe(_ context.Context, id string) (bool, error) {
	return i.feed.Unsubscribe(id), nil
}

func (i *impl) Update(_ context.Context, xs ...int64) error {
	ints := make([]int, len(xs))
	for k, x := range xs {
		ints[k] = int(x)
	}
	i.spec.Update(ints...)
	return nil
}
