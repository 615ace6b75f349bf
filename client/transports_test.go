package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	carrier "github.com/jsonrpc-go/jsonrpc/transport"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// jsonrpcd is the command cmd/jsonrpcd, built by TestMain unless the tests
// run in short mode.
var jsonrpcd struct {
	path string
	err  error // why it could not be built
}

func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		runHelper(h)
		return
	}
	flag.Parse()
	var dir string
	if !testing.Short() {
		dir, jsonrpcd.err = os.MkdirTemp("", "jsonrpcd")
		if jsonrpcd.err == nil {
			jsonrpcd.path = filepath.Join(dir, "jsonrpcd")
			out, err := exec.Command("go", "build", "-o", jsonrpcd.path, "../cmd/jsonrpcd").CombinedOutput()
			if err != nil {
				jsonrpcd.err = fmt.Errorf("go build ../cmd/jsonrpcd: %v\n%s", err, out)
			}
		}
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// A transport connects a client to a test server.
type transport struct {
	name string
	// inOrder: the server answers a connection's calls one after another,
	// in order, so that a waiting call holds up the later ones.
	inOrder bool
	// roundTrip: Write returns with the response (HTTP), not once the
	// request is written.
	roundTrip bool
	// remote: the server runs in a child process; it serves the demo
	// services only (no "wait"), and its notification counts are not seen.
	remote bool
	// start returns a channel to srv, and a function that closes the server
	// side of the connection (the server's net.Conn, or the child process),
	// or nil where there is no connection to break.
	// It registers the cleanup of the server, which releases srv's waiting
	// calls first.
	start func(t *testing.T, srv *testServer) (client.Channel, func())
}

// maxInFlight is the limit of calls in flight per connection given to the
// servers that have one: above the 2×64 calls of the in-flight tests.
const maxInFlight = 256

var transports = []transport{
	{name: "local", start: func(t *testing.T, srv *testServer) (client.Channel, func()) {
		return client.Local(srv.Server), nil
	}},
	{name: "http", roundTrip: true, start: func(t *testing.T, srv *testServer) (client.Channel, func()) {
		ts := httptest.NewServer(&httprpc.Handler{Server: srv.Server})
		t.Cleanup(func() { srv.releaseAll(); ts.Close() })
		return client.HTTP(ts.URL, ts.Client()), nil
	}},
	{name: "h2c", roundTrip: true, start: startH2C},
	{name: "ws", start: startWS},
	streamTransport("tcp-line", "tcp", framing.Line, stream.Concurrent),
	streamTransport("tcp-line-inline", "tcp", framing.Line, stream.Sequential),
	streamTransport("tcp-header", "tcp", framing.Header, stream.Concurrent),
	streamTransport("tcp-header-inline", "tcp", framing.Header, stream.Sequential),
	streamTransport("unix", "unix", nil, stream.Concurrent),
	streamTransport("tcp-raw", "tcp", framing.Raw, stream.Concurrent),
	streamTransport("tcp-raw-inline", "tcp", framing.Raw, stream.Sequential),
	{name: "stdio", inOrder: true, remote: true, start: startCommand},
}

// startH2C serves srv over HTTP/2 without TLS, and fails the requests that
// arrive over another protocol.
func startH2C(t *testing.T, srv *testServer) (client.Channel, func()) {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	h := &httprpc.Handler{Server: srv.Server}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			http.Error(w, "not HTTP/2: "+r.Proto, http.StatusHTTPVersionNotSupported)
			return
		}
		h.ServeHTTP(w, r)
	}))
	ts.Config.Protocols = &p
	ts.Start()
	tr := &http.Transport{Protocols: &p}
	t.Cleanup(func() {
		srv.releaseAll()
		tr.CloseIdleConnections()
		ts.Close()
	})
	return client.HTTP(ts.URL, &http.Client{Transport: tr}), nil
}

// startWS serves srv over WebSocket.
func startWS(t *testing.T, srv *testServer) (client.Channel, func()) {
	testutil.SkipOnJS(t, "coder/websocket on js has no server (Accept is a stub) and dials with the host's WebSocket, which cannot reach the program's in-memory network")
	ts := httptest.NewUnstartedServer(&ws.Handler{Server: srv.Server, Limits: carrier.Limits{MaxInFlight: maxInFlight}})
	l := &trackingListener{Listener: ts.Listener}
	ts.Listener = l
	ts.Start()
	t.Cleanup(func() { srv.releaseAll(); ts.Close() })
	ch, err := ws.Dial(context.Background(), "ws"+strings.TrimPrefix(ts.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ch, l.closeConns
}

// trackingListener remembers the connections it accepts, so that a test can
// close the server's side of them. Closing them, rather than shutting the
// server down, keeps the server from writing anything more: no response of
// a call cancelled by the closing can reach the client.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

// closeConns closes the connections accepted so far.
func (l *trackingListener) closeConns() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
}

// streamTransport serves srv with a stream.Server on a listener of network
// (TCP on 127.0.0.1, or a Unix socket in a temporary directory).
func streamTransport(name, network string, f framing.Framing, order stream.Ordering) transport {
	return transport{name: name, inOrder: order == stream.Sequential, start: func(t *testing.T, srv *testServer) (client.Channel, func()) {
		addr := "127.0.0.1:0"
		if network == "unix" {
			addr = filepath.Join(t.TempDir(), "rpc.sock")
		}
		nl, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		l := &trackingListener{Listener: nl}
		s := &stream.Server{Server: srv.Server, Framing: f, Order: order, Limits: carrier.Limits{MaxInFlight: maxInFlight}}
		served := make(chan error, 1)
		go func() { served <- s.Serve(l) }()
		t.Cleanup(func() {
			srv.releaseAll()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.Shutdown(ctx); err != nil {
				t.Errorf("Shutdown: %v", err)
			}
			if err := <-served; !errors.Is(err, stream.ErrServerClosed) {
				t.Errorf("Serve: %v", err)
			}
		})
		ch, err := client.Dial(context.Background(), network, l.Addr().String(), f)
		if err != nil {
			t.Fatal(err)
		}
		return ch, l.closeConns
	}}
}

// startCommand runs cmd/jsonrpcd -stdio; breaking the connection kills it.
func startCommand(t *testing.T, _ *testServer) (client.Channel, func()) {
	testutil.SkipOnWasm(t, "builds and starts cmd/jsonrpcd, and a WebAssembly program cannot start a process")
	if testing.Short() {
		t.Skip("starts a child process")
	}
	if jsonrpcd.err != nil {
		t.Fatal(jsonrpcd.err)
	}
	cmd := exec.Command(jsonrpcd.path, "-stdio")
	ch, err := client.Command(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ch, func() { cmd.Process.Kill() }
}

// env is what a behaviour test gets: a client connected over a transport.
type env struct {
	c         *client.Client
	srv       *testServer
	tr        transport
	breakConn func() // nil where the transport has no connection
	sends     *sendNotifier
}

// sendNotifier is the channel of a transport, reporting the end of each Write
// on sent once a test sets it.
type sendNotifier struct {
	carrier.Conn
	sent chan error // set before the calls it is about are made
}

func (s *sendNotifier) Write(ctx context.Context, msg []byte) error {
	err := s.Conn.Write(ctx, msg)
	if s.sent != nil {
		s.sent <- err
	}
	return err
}

// A behaviour is a test run over every transport.
type behaviour struct {
	name string
	// outOfOrder: the test needs a call to complete while an earlier one
	// waits.
	outOfOrder bool
	// wait: the test needs the "wait" method.
	wait bool
	run  func(t *testing.T, e *env)
}

var behaviours = []behaviour{
	{name: "spec", run: testSpec},
	{name: "typed", run: testTyped},
	{name: "concurrent", run: testConcurrent},
	{name: "out-of-order", outOfOrder: true, wait: true, run: testOutOfOrder},
	{name: "cancel", outOfOrder: true, wait: true, run: testCancel},
	{name: "deadline", outOfOrder: true, wait: true, run: testDeadline},
	{name: "broken", run: testBroken},
	{name: "close", run: testClose},
}

// TestTransports runs every behaviour over every transport. Each subtest
// checks that it leaves no goroutine behind.
func TestTransports(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			for _, b := range behaviours {
				t.Run(b.name, func(t *testing.T) {
					switch {
					case b.wait && tr.remote:
						t.Skip("the child process has no blocking method")
					case b.outOfOrder && tr.inOrder:
						t.Skip("the server answers in order")
					}
					leaktest.Check(t) // its cleanup runs last
					srv := newTestServer(t)
					ch, breakConn := tr.start(t, srv)
					sn := &sendNotifier{Conn: ch.Conn}
					c := client.New(client.Channel{Conn: sn, Traits: ch.Traits})
					t.Cleanup(func() { c.Close() }) // runs before the server's cleanup
					b.run(t, &env{c: c, srv: srv, tr: tr, breakConn: breakConn, sends: sn})
				})
			}
		})
	}
}

// wantCode fails the test unless err is a *jsonrpc.Error with code.
func wantCode(t *testing.T, what string, err error, code jsonrpc.Code) {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: err = %v, want code %d", what, err, code)
	}
}

// testSpec makes the example calls of the JSON-RPC 2.0 specification.
func testSpec(t *testing.T, e *env) {
	ctx := context.Background()
	c := e.c
	for _, tc := range []struct {
		params any
		want   int
	}{
		{[]int{42, 23}, 19},
		{[]int{23, 42}, -19},
		{map[string]int{"subtrahend": 23, "minuend": 42}, 19},
		{map[string]int{"minuend": 42, "subtrahend": 23}, 19},
	} {
		if got, err := client.Call[int](ctx, c, "subtract", tc.params); err != nil || got != tc.want {
			t.Errorf("subtract %v: %v, %v; want %d", tc.params, got, err, tc.want)
		}
	}
	if err := c.Notify(ctx, "update", []int{1, 2, 3, 4, 5}); err != nil {
		t.Errorf("notify update: %v", err)
	}
	if err := c.Notify(ctx, "foobar", nil); err != nil {
		t.Errorf("notify foobar: %v", err)
	}
	if err := c.Notify(ctx, "notify_hello", []int{7}); err != nil {
		t.Errorf("notify notify_hello: %v", err)
	}
	_, err := c.CallRaw(ctx, "foobar", nil)
	wantCode(t, "foobar", err, jsonrpc.CodeMethodNotFound)
	if got, err := client.Call[int](ctx, c, "sum", []int{1, 2, 4}); err != nil || got != 7 {
		t.Errorf("sum: %v, %v", got, err)
	}
	if got, err := c.CallRaw(ctx, "get_data", nil); err != nil || string(got) != `["hello",5]` {
		t.Errorf("get_data: %s, %v", got, err)
	}

	res, err := c.Batch(ctx, []client.Spec{
		{Method: "sum", Params: []int{1, 2, 4}},
		{Method: "notify_hello", Params: []int{7}, Notify: true},
		{Method: "subtract", Params: []int{42, 23}},
		{Method: "foo.get", Params: map[string]string{"name": "myself"}},
		{Method: "get_data"},
		{Method: "subtract", Params: []string{"a", "b"}},
	})
	if err != nil {
		t.Fatalf("batch: %v", err)
	}
	if len(res) != 6 {
		t.Fatalf("batch: %d results, want 6", len(res))
	}
	var n int
	if err := res[0].Unmarshal(&n); err != nil || n != 7 {
		t.Errorf("batch sum: %v, %v", n, err)
	}
	if res[1].Result != nil || res[1].Err != nil {
		t.Errorf("batch notification: %+v", res[1])
	}
	// A notification has no answer to decode, and says so.
	if err := res[1].Unmarshal(&n); !errors.Is(err, client.ErrNoAnswer) || err.Error() != "jsonrpc: no answer: the call was sent as a notification" {
		t.Errorf("batch notification: Unmarshal returned %v, want ErrNoAnswer", err)
	}
	if err := res[2].Unmarshal(&n); err != nil || n != 19 {
		t.Errorf("batch subtract: %v, %v", n, err)
	}
	wantCode(t, "batch foo.get", res[3].Err, jsonrpc.CodeMethodNotFound)
	if string(res[4].Result) != `["hello",5]` || res[4].Err != nil {
		t.Errorf("batch get_data: %s, %v", res[4].Result, res[4].Err)
	}
	wantCode(t, "batch subtract of strings", res[5].Err, jsonrpc.CodeInvalidParams)

	// A batch of notifications has no response at all.
	res, err = c.Batch(ctx, []client.Spec{
		{Method: "notify_sum", Params: []int{1, 2, 4}, Notify: true},
		{Method: "notify_hello", Params: []int{7}, Notify: true},
	})
	if err != nil || len(res) != 2 || !reflect.DeepEqual(res, []client.Result{{}, {}}) {
		t.Errorf("batch of notifications: %+v, %v", res, err)
	}
	for i, r := range res {
		if err := r.Unmarshal(new(any)); !errors.Is(err, client.ErrNoAnswer) {
			t.Errorf("batch of notifications: result %d: Unmarshal returned %v, want ErrNoAnswer", i, err)
		}
	}

	// The server reads a connection's messages in order, so once this call
	// is answered the notifications before it have been handled.
	if got, err := client.Call[int](ctx, c, "sum", []int{1}); err != nil || got != 1 {
		t.Errorf("sum after the notifications: %v, %v", got, err)
	}
	if !e.tr.remote {
		s := e.srv.spec
		if u, h, n := s.Updates.Load(), s.Hellos.Load(), s.Sums.Load(); u != 1 || h != 3 || n != 1 {
			t.Errorf("notifications handled: update %d, notify_hello %d, notify_sum %d; want 1, 3, 1", u, h, n)
		}
	}
}

// testTyped decodes results into Go types with client.Call.
func testTyped(t *testing.T, e *env) {
	ctx := context.Background()
	c := e.c
	if got, err := client.Call[float64](ctx, c, "add", []float64{1.5, 2.25}); err != nil || got != 3.75 {
		t.Errorf("add: %v, %v", got, err)
	}
	if got, err := client.Call[int](ctx, c, "addInt", []int{3, 4}); err != nil || got != 7 {
		t.Errorf("addInt: %v, %v", got, err)
	}
	if got, err := client.Call[*float64](ctx, c, "NullableFloatToNullableFloat", []any{nil}); err != nil || got != nil {
		t.Errorf("NullableFloatToNullableFloat(null): %v, %v", got, err)
	}
	if got, err := client.Call[*float64](ctx, c, "NullableFloatToNullableFloat", []any{2.5}); err != nil || got == nil || *got != 2.5 {
		t.Errorf("NullableFloatToNullableFloat(2.5): %v, %v", got, err)
	}
	if got, err := client.Call[string](ctx, c, "StringMe", []string{"héllo \"wörld\"\n"}); err != nil || got != "héllo \"wörld\"\n" {
		t.Errorf("StringMe: %q, %v", got, err)
	}
	type point struct {
		X, Y int
		Tags []string
	}
	in := point{1, -2, []string{"a", "b"}}
	if got, err := client.Call[point](ctx, c, "echo", []point{in}); err != nil || !reflect.DeepEqual(got, in) {
		t.Errorf("echo: %+v, %v", got, err)
	}
	if got, err := client.Call[json.RawMessage](ctx, c, "echo", []any{map[string]any{"k": []int{1}}}); err != nil || string(got) != `{"k":[1]}` {
		t.Errorf("echo raw: %s, %v", got, err)
	}
	if got, err := client.Call[[]any](ctx, c, "get_data", nil); err != nil || fmt.Sprint(got) != "[hello 5]" {
		t.Errorf("get_data: %v, %v", got, err)
	}

	// A result that does not decode into T is the client's error, not the
	// server's.
	_, err := client.Call[string](ctx, c, "add", []int{1, 2})
	var je *jsonrpc.Error
	if err == nil || errors.As(err, &je) {
		t.Errorf("a number decoded into a string: err = %v", err)
	}
	// Params that are neither an array nor an object are never sent.
	if _, err := client.Call[int](ctx, c, "add", 5); err == nil {
		t.Error("params 5 were sent")
	}
	_, err = client.Call[int](ctx, c, "addInt", []any{"x", 1})
	wantCode(t, "addInt of a string", err, jsonrpc.CodeInvalidParams)

	// The client still works.
	if got, err := client.Call[int](ctx, c, "addInt", []int{1, 2}); err != nil || got != 3 {
		t.Errorf("after the errors: %v, %v", got, err)
	}
}

// testConcurrent makes calls and batches from 64 goroutines at once on one
// client; each gets its own answers.
func testConcurrent(t *testing.T, e *env) {
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	for i := range n {
		wg.Go(func() {
			ctx := context.Background()
			for j := range 4 {
				if got, err := client.Call[int](ctx, e.c, "addInt", []int{i, j}); err != nil || got != i+j {
					errs <- fmt.Errorf("addInt %d %d: %d, %v", i, j, got, err)
				}
			}
			if got, err := client.Call[int](ctx, e.c, "subtract", map[string]int{"minuend": i, "subtrahend": 1}); err != nil || got != i-1 {
				errs <- fmt.Errorf("subtract %d: %d, %v", i, got, err)
			}
			res, err := e.c.Batch(ctx, []client.Spec{
				{Method: "StringMe", Params: []string{fmt.Sprint(i)}},
				{Method: "nope"},
				{Method: "sum", Params: []int{i, i, i}},
			})
			if err != nil {
				errs <- fmt.Errorf("batch %d: %v", i, err)
				return
			}
			var s string
			var sum int
			if err := res[0].Unmarshal(&s); err != nil || s != fmt.Sprint(i) {
				errs <- fmt.Errorf("batch %d StringMe: %q, %v", i, s, err)
			}
			if err := res[2].Unmarshal(&sum); err != nil || sum != 3*i {
				errs <- fmt.Errorf("batch %d sum: %d, %v", i, sum, err)
			}
			if res[1].Err == nil {
				errs <- fmt.Errorf("batch %d nope: no error", i)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// testOutOfOrder keeps 64 calls waiting on the server while 64 more are
// answered.
func testOutOfOrder(t *testing.T, e *env) {
	const n = 64
	var waits, fast sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		waits.Go(func() {
			got, err := client.Call[int](context.Background(), e.c, "wait", []int{i})
			if err != nil || got != i {
				errs <- fmt.Errorf("wait %d: %d, %v", i, got, err)
			}
		})
	}
	for range n {
		<-e.srv.started // every waiting call is in flight
	}
	for i := range n {
		fast.Go(func() {
			got, err := client.Call[int](context.Background(), e.c, "addInt", []int{i, 1})
			if err != nil || got != i+1 {
				errs <- fmt.Errorf("addInt %d: %d, %v", i, got, err)
			}
		})
	}
	fast.Wait() // answered while the waiting calls are pending
	e.srv.releaseAll()
	waits.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// stillUsable fails the test unless the client answers a call.
func stillUsable(t *testing.T, c *client.Client) {
	t.Helper()
	if got, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2}); err != nil || got != 3 {
		t.Errorf("a later call: %v, %v", got, err)
	}
}

// testCancel cancels a call that the server is running. Unless Write is a
// round trip, it cancels once Write has returned, the call waiting for its
// response: a WebSocket channel breaks when a call's context ends while its
// request is being written.
func testCancel(t *testing.T, e *env) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	if !e.tr.roundTrip {
		e.sends.sent = make(chan error, 1)
	}
	go func() {
		_, err := client.Call[int](ctx, e.c, "wait", []int{1})
		done <- err
	}()
	<-e.srv.started
	if !e.tr.roundTrip {
		if err := <-e.sends.sent; err != nil {
			t.Fatalf("Write: %v", err)
		}
		e.sends.sent = nil
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	stillUsable(t, e.c)
}

// testDeadline gives a call a deadline that passes while it waits. The
// deadline leaves ample time to send the request: a WebSocket channel
// breaks when a call's context ends while its request is being written.
func testDeadline(t *testing.T, e *env) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := client.Call[int](ctx, e.c, "wait", []int{1}); err != context.DeadlineExceeded {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	stillUsable(t, e.c)
}

// pendingCalls starts n calls of "wait" and returns once the server runs
// them all; their errors come on the channel.
func pendingCalls(e *env, n int) <-chan error {
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := client.Call[int](context.Background(), e.c, "wait", []int{i})
			errs <- err
		}()
	}
	for range n {
		<-e.srv.started
	}
	return errs
}

// pendingCount is how many "wait" calls the transport can have pending at
// once.
func pendingCount(tr transport) int {
	switch {
	case tr.remote:
		return 0
	case tr.inOrder:
		return 1
	}
	return 3
}

// wantClosed fails the test unless err wraps client.ErrClosed.
func wantClosed(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, client.ErrClosed) {
		t.Errorf("%s: err = %v, want one wrapping ErrClosed", what, err)
	}
}

// waitErrs receives n errors from errs, each wrapping client.ErrClosed.
func waitErrs(t *testing.T, errs <-chan error, n int) {
	t.Helper()
	timeout := time.NewTimer(5 * time.Second)
	defer timeout.Stop()
	for range n {
		select {
		case err := <-errs:
			wantClosed(t, "a pending call", err)
		case <-timeout.C:
			t.Fatal("a pending call did not fail")
		}
	}
}

// laterCallFails checks that a call fails, and quickly, with ErrClosed.
func laterCallFails(t *testing.T, c *client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := range 2 {
		_, err := client.Call[int](ctx, c, "addInt", []int{1, 2})
		wantClosed(t, fmt.Sprintf("later call %d", i), err)
	}
}

// testBroken closes the server's side of the connection: pending calls
// fail, and so do later ones.
func testBroken(t *testing.T, e *env) {
	if e.breakConn == nil {
		t.Skip("no connection to break")
	}
	n := pendingCount(e.tr)
	errs := pendingCalls(e, n)
	e.breakConn()
	waitErrs(t, errs, n)
	laterCallFails(t, e.c)
}

// testClose closes the client while calls are pending.
func testClose(t *testing.T, e *env) {
	n := pendingCount(e.tr)
	errs := pendingCalls(e, n)
	if err := e.c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	waitErrs(t, errs, n)
	laterCallFails(t, e.c)
}
