package framing_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jsonrpc-go/jsonrpc/framing"
)

// Messages written with a framing are read back with the same framing.
func Example() {
	var conn bytes.Buffer // a connection, for the example
	w := framing.Line.NewWriter(&conn)
	w.Write([]byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
	w.Write([]byte(`{"jsonrpc":"2.0","method":"add","params":[3,4],"id":2}`))
	fmt.Println("buffered before Flush:", conn.Len() == 0)
	w.Flush()
	fmt.Printf("%q\n", conn.String())

	r := framing.Line.NewReader(&conn, 0)
	for {
		msg, err := r.Read()
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Printf("%s\n", msg)
	}
	// Output:
	// buffered before Flush: true
	// "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":[1,2],\"id\":1}\n{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":[3,4],\"id\":2}\n"
	// {"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}
	// {"jsonrpc":"2.0","method":"add","params":[3,4],"id":2}
	// EOF
}

func ExampleHeader() {
	c1, c2 := net.Pipe()
	go func() {
		w := framing.Header.NewWriter(c1)
		w.Write([]byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
		w.Flush()
		c1.Close()
	}()
	r := framing.Header.NewReader(c2, 0)
	msg, err := r.Read()
	fmt.Printf("%s %v\n", msg, err)
	_, err = r.Read()
	fmt.Println(err)
	// Output:
	// {"jsonrpc":"2.0","method":"initialized","params":{}} <nil>
	// EOF
}

// A message over the limit is reported with its id, and Line and Header
// go on with the next message.
func ExampleTooLargeError() {
	in := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 100) + `"],"id":7}` + "\n" +
		`{"jsonrpc":"2.0","method":"echo","params":["y"],"id":8}` + "\n"
	r := framing.Line.NewReader(strings.NewReader(in), 64)
	for {
		msg, err := r.Read()
		var tl *framing.TooLargeError
		switch {
		case err == nil:
			fmt.Printf("%s\n", msg)
			continue
		case errors.As(err, &tl):
			fmt.Printf("%v: id %s, recoverable %v\n", err, tl.ID, tl.Recoverable)
			if tl.Recoverable {
				continue
			}
		case err != io.EOF:
			fmt.Println(err)
		}
		break
	}
	// Output:
	// framing: message exceeds the limit of 64 bytes: id 7, recoverable true
	// {"jsonrpc":"2.0","method":"echo","params":["y"],"id":8}
}
