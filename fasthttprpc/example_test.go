package fasthttprpc_test

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
)

func Example() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b float64) float64 { return a + b })

	s := fasthttprpc.NewServer(srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown()

	resp, err := http.Post("http://"+ln.Addr().String()+"/", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
	// Output: 200 {"jsonrpc":"2.0","result":3,"id":1}
}
