package transport_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

func TestWithContextValue(t *testing.T) {
	t.Parallel()
	srv := jsonrpc.NewServer()
	srv.MustRegister("peer", func(ctx context.Context) (string, error) {
		v, ok := jsonrpc.CallOf(ctx).ContextValue().(string)
		if !ok {
			return "", fmt.Errorf("context value %v", jsonrpc.CallOf(ctx).ContextValue())
		}
		return v, nil
	})
	req := `{"jsonrpc":"2.0","method":"peer","id":1}`
	ctx := transport.WithContextValue(context.Background(), "conn-7")
	if got, want := srv.ProcessString(ctx, req), `{"jsonrpc":"2.0","result":"conn-7","id":1}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// A later value replaces an earlier one; none gives nil.
	ctx = transport.WithContextValue(ctx, "conn-8")
	if got, want := srv.ProcessString(ctx, req), `{"jsonrpc":"2.0","result":"conn-8","id":1}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := srv.ProcessString(context.Background(), req); !strings.Contains(got, `"error"`) {
		t.Errorf("without a context value: %s", got)
	}
}

func TestAppendError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		e    *jsonrpc.Error
		id   string
		want string
	}{
		{jsonrpc.ErrParse, "", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{jsonrpc.ErrInvalidRequest, `"a"`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":"a"}`},
		{jsonrpc.NewError(-32001, "too large").WithData("limit 64"), "7", `{"jsonrpc":"2.0","error":{"code":-32001,"message":"too large","data":"limit 64"},"id":7}`},
		{&jsonrpc.Error{Code: 1, Message: "m", Data: []byte("{ \"a\" : 1 }")}, "1", `{"jsonrpc":"2.0","error":{"code":1,"message":"m","data":{"a":1}},"id":1}`},
		{&jsonrpc.Error{Code: 1, Message: "m", Data: []byte("not json")}, "1", `{"jsonrpc":"2.0","error":{"code":1,"message":"m","data":"not json"},"id":1}`},
	} {
		var id []byte
		if tt.id != "" {
			id = []byte(tt.id)
		}
		got := transport.AppendError([]byte("prefix"), tt.e, id)
		if string(got) != "prefix"+tt.want {
			t.Errorf("AppendError(%v, %s) = %s, want prefix%s", tt.e, tt.id, got, tt.want)
		}
		if err := testutil.ValidateResponse(got[len("prefix"):]); err != nil {
			t.Error(err)
		}
	}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	root := jsonrpc.NewServer()
	sessions := &jsonrpc.Sessions{}
	abc, err := sessions.Create("abc")
	if err != nil {
		t.Fatal(err)
	}
	slash, err := sessions.Create("a/b")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sessions     *jsonrpc.Sessions
		prefix, path string
		want         transport.Handler // nil: not found
	}{
		{sessions, "", "/anything", root},
		{nil, "", "/anything", root},
		{sessions, "/s/", "/s/", root},
		{sessions, "/s/", "/s/abc", abc},
		{sessions, "/s/", "/s/a/b", slash},
		{sessions, "/s/", "/s/ABC", nil},
		{sessions, "/s/", "/s/abc/", nil},
		{sessions, "/s/", "/s", nil},
		{sessions, "/s/", "/other/abc", nil},
		{nil, "/s/", "/s/", root},
		{nil, "/s/", "/s/abc", nil},
	} {
		got, ok := transport.Route(root, tt.sessions, tt.prefix, tt.path)
		if ok != (tt.want != nil) || got != tt.want {
			t.Errorf("Route(sessions %v, %q, %q) = %p, %v; want %p", tt.sessions != nil, tt.prefix, tt.path, got, ok, tt.want)
		}
		got, ok = transport.SessionRouter(root, tt.sessions, tt.prefix).Route(tt.path)
		if ok != (tt.want != nil) || got != tt.want {
			t.Errorf("SessionRouter(sessions %v, %q).Route(%q) = %p, %v; want %p", tt.sessions != nil, tt.prefix, tt.path, got, ok, tt.want)
		}
	}
	if _, ok := sessions.Lookup("ABC"); ok {
		t.Error("Route created a session")
	}
}

// A transport of its own: one request document per line of a reader, the
// answers on a writer, with the line number as the transport's context
// value. A message over the transport's limit is answered with AppendError.
func Example() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("line", func(ctx context.Context) int { return jsonrpc.CallOf(ctx).ContextValue().(int) })

	const maxLine = 80
	in := bufio.NewScanner(strings.NewReader(`{"jsonrpc":"2.0","method":"line","id":1}
{"jsonrpc":"2.0","method":"line","id":2,"padding":"` + strings.Repeat("x", maxLine) + `"}
{"jsonrpc":"2.0","method":"line","id":3}
`))
	var buf []byte
	for n := 1; in.Scan(); n++ {
		if len(in.Bytes()) > maxLine {
			tooLong := jsonrpc.NewError(-32001, "message too large").WithData(fmt.Sprintf("limit %d bytes", maxLine))
			buf = transport.AppendError(buf[:0], tooLong, nil)
		} else {
			buf = srv.Process(transport.WithContextValue(context.Background(), n), buf[:0], in.Bytes())
		}
		fmt.Println(string(buf))
	}
	// Output:
	// {"jsonrpc":"2.0","result":1,"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32001,"message":"message too large","data":"limit 80 bytes"},"id":null}
	// {"jsonrpc":"2.0","result":3,"id":3}
}

func TestClientOf(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.1:5000": "192.0.2.1",
		"[::1]:80":       "::1",
		"[fe80::1%lo]:1": "fe80::1%lo",
		"host:1":         "host",
		"":               "",
		"noport":         "",
	} {
		if got := transport.ClientOfHostPort(addr); got != want {
			t.Errorf("ClientOfHostPort(%q) = %q, want %q", addr, got, want)
		}
	}
	if got := transport.ClientOf(&net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 9}); got != "192.0.2.7" {
		t.Errorf("TCP: %q", got)
	}
	if got := transport.ClientOf(&net.UnixAddr{Name: "/run/x.sock", Net: "unix"}); got != "" {
		t.Errorf("Unix: %q", got)
	}
}

// TestAppendErrors: every request with an id refused with its id, every
// invalid one with null, notifications not at all, and a batch too large
// to refuse request by request with one error.
func TestAppendErrors(t *testing.T) {
	err := jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("server shutting down")
	const e = `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"server shutting down"},"id":`
	big := "[" + strings.Repeat(`{"jsonrpc":"2.0","method":"m","id":1},`, transport.MaxRefusedBatch) + `{"jsonrpc":"2.0","method":"m","id":1}]`
	for _, tc := range []struct{ req, want string }{
		{`{"jsonrpc":"2.0","method":"m","id":7}`, e + `7}`},
		{`{"jsonrpc":"2\u002e0","method":"m"}`, ``},
		{` {"id":"a","method":"m","jsonrpc":"2.0","params":[1]} `, e + `"a"}`},
		{`{"jsonrpc":"2.0","method":"m","id":null}`, e + `null}`},
		{`{"jsonrpc":"2.0","method":"m","id":1.5e3}`, e + `1.5e3}`},
		{`{"jsonrpc":"2.0","method":"m","id":[1]}`, e + `null}`},
		{`{"jsonrpc":"2.0","method":"m","id":1,"id":2}`, e + `null}`},
		{`{"jsonrpc":"2.0","method":"m"}`, ``},
		{`{"jsonrpc":"2.0","method":"m","params":{}}`, ``},
		{`{"jsonrpc":"2.0","method":"m","params":3}`, e + `null}`},
		{`{"jsonrpc":"1.0","method":"m"}`, e + `null}`},
		{`{"method":"m"}`, e + `null}`},
		{`{}`, e + `null}`},
		{`3`, e + `null}`},
		{`not json`, e + `null}`},
		{``, e + `null}`},
		{`[]`, e + `null}`},
		{`[1,{"jsonrpc":"2.0","method":"m","id":2},{"jsonrpc":"2.0","method":"m"}]`, `[` + e + `null},` + e + `2}]`},
		{`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":"n"}]`, ``},
		{big, e + `null}`},
	} {
		if got := string(transport.AppendErrors([]byte("x"), []byte(tc.req), err)); got != "x"+tc.want {
			t.Errorf("%.60s:\ngot  %s\nwant x%s", tc.req, got, tc.want)
		}
	}
}
