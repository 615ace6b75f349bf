package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
)

// headerServer answers "headers" with the values of the request headers it
// is asked for, as "Key=v1,v2" joined by ";".
func headerServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := jsonrpc.NewServer()
	srv.MustRegister("headers", func(ctx context.Context, keys []string) string {
		r := jsonrpc.CallOf(ctx).ContextValue().(*http.Request)
		var out []string
		for _, k := range keys {
			out = append(out, k+"="+strings.Join(r.Header.Values(k), ","))
		}
		return strings.Join(out, ";")
	})
	ts := httptest.NewServer(&httprpc.Handler{Server: srv})
	t.Cleanup(ts.Close)
	return ts
}

// The HTTP channel sends the headers of its HTTPHeader options with every
// request, and those of WithHTTPHeader with the calls of that context,
// which replace the channel's for the same keys; Content-Type stays.
func TestHTTPHeaders(t *testing.T) {
	ts := headerServer(t)
	static := http.Header{"x-tenant": {"acme"}, "X-Trace": {"static"}}
	c := client.New(client.HTTP(ts.URL, nil,
		client.HTTPHeader(static),
		client.HTTPHeader(http.Header{"X-Extra": {"1", "2"}, "Content-Type": {"text/plain"}})))
	defer c.Close()
	static["X-Tenant"] = []string{"changed after"} // the option copied it

	keys := []string{"X-Tenant", "X-Trace", "X-Extra", "Authorization", "Content-Type"}
	call := func(ctx context.Context) string {
		t.Helper()
		got, err := client.Call[string](ctx, c, "headers", []any{keys})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := call(context.Background()), "X-Tenant=acme;X-Trace=static;X-Extra=1,2;Authorization=;Content-Type=application/json"; got != want {
		t.Errorf("static headers:\n got %s\nwant %s", got, want)
	}
	user := client.WithHTTPHeader(context.Background(), http.Header{"authorization": {"Bearer u1"}, "X-Trace": {"call"}})
	nested := client.WithHTTPHeader(user, http.Header{"Authorization": {"Bearer u2"}})
	for _, c := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"per call", user, "X-Tenant=acme;X-Trace=call;X-Extra=1,2;Authorization=Bearer u1;Content-Type=application/json"},
		{"nested", nested, "X-Tenant=acme;X-Trace=call;X-Extra=1,2;Authorization=Bearer u2;Content-Type=application/json"},
		{"without", context.Background(), "X-Tenant=acme;X-Trace=static;X-Extra=1,2;Authorization=;Content-Type=application/json"},
	} {
		if got := call(c.ctx); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// Per-call headers, such as each user's credentials.
func ExampleWithHTTPHeader() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("whoami", func(ctx context.Context) string {
		return jsonrpc.CallOf(ctx).ContextValue().(*http.Request).Header.Get("Authorization")
	})
	ts := httptest.NewServer(&httprpc.Handler{Server: srv})
	defer ts.Close()

	c := client.New(client.HTTP(ts.URL, nil, client.HTTPHeader(http.Header{"User-Agent": {"example/1.0"}})))
	defer c.Close()
	ctx := client.WithHTTPHeader(context.Background(), http.Header{"Authorization": {"Bearer alice"}})
	who, err := client.Call[string](ctx, c, "whoami", nil)
	fmt.Println(who, err)
	// Output:
	// Bearer alice <nil>
}
