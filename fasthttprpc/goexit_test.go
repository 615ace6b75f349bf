package fasthttprpc_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
)

// goexitAnswer is the answer to a call whose method ended the handler's
// goroutine with runtime.Goexit, as every host answers it.
const goexitAnswer = `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the call ended without returning (runtime.Goexit)"},"id":1}`

// A method that ends the handler's goroutine with runtime.Goexit is
// answered with an internal error, and its connection, which fasthttp no
// longer serves, is closed; the server serves on. Before, the call was
// never answered and the connection stayed open, its descriptor with it
// (issue 25: 13 open files became 63 after 50 such calls).
func TestGoexit(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("quit", func() int { runtime.Goexit(); return 0 })
	srv.MustRegister("add", func(a, b int) int { return a + b })
	for _, streamed := range []bool{true, false} {
		s := fasthttprpc.NewServer(srv)
		s.StreamRequestBody = streamed
		addr := serveServer(t, s, nil)
		for i := range 20 {
			c, err := net.DialTimeout("tcp", addr, wait)
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(wait))
			io.WriteString(c, postOf(`{"jsonrpc":"2.0","method":"quit","id":1}`))
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				c.Close()
				t.Fatalf("streamed %v, call %d: no answer: %v", streamed, i, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(b) != goexitAnswer || !resp.Close {
				t.Errorf("streamed %v, call %d: %d %s (closing %v), want 200 %s and the connection closed", streamed, i, resp.StatusCode, b, resp.Close, goexitAnswer)
			}
			// The server closed its end: the descriptor is not left open.
			if _, err := br.ReadByte(); err != io.EOF {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("streamed %v, call %d: the connection is still open after %v", streamed, i, wait)
				}
				t.Errorf("streamed %v, call %d: after the answer %v, want EOF", streamed, i, err)
			}
			c.Close()
		}
		if a := do(t, "POST", "http://"+addr, "application/json", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`); a.body != `{"jsonrpc":"2.0","result":3,"id":1}` {
			t.Errorf("streamed %v: after the calls of quit: %d %s", streamed, a.status, a.body)
		}
	}
}
