package stream

import (
	"bytes"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"net"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// TestAnsweredWhileTheNextMessageIsHalfSent: a request is answered while
// the next one is still arriving, in each framing, one-way and two-way: a
// connection sends what it has answered before any Read that may wait
// (the framing's Ready), and a Read that waits inside a message is one.
// Before, the carrier called back into the connection from its Read to
// send them; now the connection asks the framing, before it reads.
func TestAnsweredWhileTheNextMessageIsHalfSent(t *testing.T) {
	leakCheck(t)
	for _, fr := range framings {
		for _, twoWay := range []bool{false, true} {
			name := fr.name + "/one-way"
			if twoWay {
				name = fr.name + "/two-way"
			}
			t.Run(name, func(t *testing.T) {
				s := &Server{Server: demo.NewServer(), Framing: fr.f}
				if twoWay {
					s.Protocol = lsp.Protocol()
				}
				dial := serverOn(t, s, "pipe")
				conn := dial()
				defer conn.Close()
				var first, second bytes.Buffer
				w := fr.f.NewWriter(&first)
				w.Write([]byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
				w.Flush()
				w = fr.f.NewWriter(&second)
				w.Write([]byte(`{"jsonrpc":"2.0","method":"add","params":[3,4],"id":2}`))
				w.Flush()
				half := second.Len() / 2
				sent := send(conn, append(first.Bytes(), second.Bytes()[:half]...))
				r := fr.f.NewReader(conn, 0)
				// A watchdog, not a timing: the answer is due before the rest
				// of the second message is sent, and never comes if it waits
				// for it.
				conn.SetReadDeadline(time.Now().Add(time.Minute))
				if msg, err := r.Read(); err != nil || string(msg) != `{"jsonrpc":"2.0","result":3,"id":1}` {
					t.Fatalf("first answer %s, %v", msg, err)
				}
				if err := <-sent; err != nil {
					t.Fatal(err)
				}
				sent = send(conn, second.Bytes()[half:])
				if msg, err := r.Read(); err != nil || string(msg) != `{"jsonrpc":"2.0","result":7,"id":2}` {
					t.Fatalf("second answer %s, %v", msg, err)
				}
				if err := <-sent; err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// send writes b to conn from another goroutine (a net.Pipe's Write waits
// for the reader), and delivers the write's error once it is done.
func send(conn net.Conn, b []byte) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := conn.Write(b)
		done <- err
	}()
	return done
}
