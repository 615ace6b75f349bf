package httprpc_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
)

// goexitAnswer is the answer to a call whose method ended the handler's
// goroutine with runtime.Goexit, as every host answers it.
const goexitAnswer = `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the call ended without returning (runtime.Goexit)"},"id":1}`

// A method that ends the handler's goroutine with runtime.Goexit is
// answered with an internal error, as over fasthttp and streams, before
// net/http closes the connection it no longer serves; the server serves
// on. Before, the client got the end of the connection and no answer.
func TestGoexit(t *testing.T) {
	t.Parallel()
	srv := jsonrpc.NewServer()
	srv.MustRegister("quit", func() int { runtime.Goexit(); return 0 })
	srv.MustRegister("add", func(a, b int) int { return a + b })
	ts := httptest.NewServer(&httprpc.Handler{Server: srv})
	defer ts.Close()
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"quit","id":1}`,
		`{"jsonrpc":"2.0","method":"quit","id":1,"pad":"` + strings.Repeat("x", 100<<10) + `"}`, // a body past the pooled buffers
		`[{"jsonrpc":"2.0","method":"quit","id":1}]`,
	} {
		c, err := net.DialTimeout("tcp", ts.Listener.Addr().String(), httpWait)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(httpWait))
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			c.Close()
			t.Fatalf("%.60s: no answer: %v", body, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := goexitAnswer
		if body[0] == '[' {
			want = "[" + want + "]"
		}
		if resp.StatusCode != 200 || string(b) != want || !resp.Close {
			t.Errorf("%.60s: %d %s (closing %v), want 200 %s and the connection closed", body, resp.StatusCode, b, resp.Close, want)
		}
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("%.60s: after the answer %v, want EOF", body, err)
		}
		c.Close()
	}
	if a := httpPostJSON(t, httpClientOf(ts), ts.URL, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`); a.body != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("after the calls of quit: %d %s", a.status, a.body)
	}

	// Over HTTP/2 the answer comes whole, with its length; net/http then
	// resets the stream, and the connection serves on.
	ts2 := httptest.NewUnstartedServer(&httprpc.Handler{Server: srv})
	ts2.EnableHTTP2 = true
	ts2.StartTLS()
	defer ts2.Close()
	c2 := httpClientOf(ts2)
	resp, err := c2.Post(ts2.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"quit","id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body) // then the stream's reset
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 || string(b) != goexitAnswer || resp.ContentLength != int64(len(goexitAnswer)) {
		t.Errorf("over HTTP/2: HTTP/%d %d %s (length %d), want 200 %s", resp.ProtoMajor, resp.StatusCode, b, resp.ContentLength, goexitAnswer)
	}
	if a := httpPostJSON(t, c2, ts2.URL, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`); a.body != `{"jsonrpc":"2.0","result":3,"id":1}` || a.proto != 2 {
		t.Errorf("over HTTP/2, after the call of quit: HTTP/%d %d %s", a.proto, a.status, a.body)
	}
}
