package stream

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// TestServeShortReads serves a recorded input through readers that return
// little at a time, and checks that the output is what the whole input
// gives.
func TestServeShortReads(t *testing.T) {
	leakCheck(t)
	reqs := append([]string{}, demo.Requests...)
	reqs = append(reqs, demo.Batch, `{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`, `[1,2]`,
		`{"jsonrpc":"2.0","method":"StringMe","params":["`+strings.Repeat("s", 50000)+`"],"id":"long"}`)
	for _, fr := range framings {
		var in bytes.Buffer
		w := fr.f.NewWriter(&in)
		for _, r := range reqs {
			w.Write([]byte(r))
		}
		w.Flush()
		var want []byte
		for _, sr := range shortReaders {
			t.Run(fr.name+"/"+sr.name, func(t *testing.T) {
				var out bytes.Buffer
				s := &Server{Server: demo.NewServer(), Framing: fr.f}
				rwc := ReadWriteCloser(sr.wrap(bytes.NewReader(in.Bytes())), &out)
				if err := s.ServeConn(context.Background(), rwc); err != nil {
					t.Fatalf("ServeConn = %v", err)
				}
				if want == nil {
					want = out.Bytes()
					r, n := fr.f.NewReader(bytes.NewReader(want), 0), 0
					for _, err := r.Read(); err == nil; _, err = r.Read() {
						n++
					}
					if n != len(reqs)-1 { // the answers, less the notification
						t.Fatalf("%d answers to %d requests", n, len(reqs))
					}
				} else if !bytes.Equal(out.Bytes(), want) {
					t.Fatalf("output differs from the whole input's:\n got %.200q\nwant %.200q", out.Bytes(), want)
				}
			})
		}
	}
}

func TestReadWriteCloser(t *testing.T) {
	r, w := io.Pipe()
	var closed []string
	rwc := ReadWriteCloser(closer{r, "r", &closed}, closer{w, "w", &closed})
	if err := rwc.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(closed, ",") != "r,w" {
		t.Fatalf("closed %v, want r and w", closed)
	}
	closed = nil
	rwc = ReadWriteCloser(closer{r, "r", &closed}, closer{w, "w", &closed})
	if err := rwc.(interface{ CloseWrite() error }).CloseWrite(); err != nil || strings.Join(closed, ",") != "w" {
		t.Fatalf("CloseWrite = %v, closed %v, want w alone", err, closed)
	}
	// Neither side has deadlines: ServeConn serves without timeouts.
	if err := rwc.(readDeadliner).SetReadDeadline(time.Time{}); err != os.ErrNoDeadline {
		t.Fatalf("SetReadDeadline = %v, want os.ErrNoDeadline", err)
	}
	if Stdio() == nil {
		t.Fatal("Stdio() = nil")
	}
}

type closer struct {
	rw   any
	name string
	log  *[]string
}

func (c closer) Read(p []byte) (int, error)  { return c.rw.(io.Reader).Read(p) }
func (c closer) Write(p []byte) (int, error) { return c.rw.(io.Writer).Write(p) }
func (c closer) Close() error {
	*c.log = append(*c.log, c.name)
	return c.rw.(io.Closer).Close()
}
