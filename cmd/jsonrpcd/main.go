// Command jsonrpcd serves the demo services (the calculator, the JSON-RPC 2.0
// specification's example methods and echo).
//
// With -stdio it reads one request or batch per input line and writes one
// response per output line; notifications get no line:
//
//	$ go run ./cmd/jsonrpcd -stdio
//	{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}
//	{"jsonrpc":"2.0","result":3,"id":1}
//
// Blank input lines are ignored. A line longer than -max-line bytes is
// answered with a parse error and skipped.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

func main() {
	stdio := flag.Bool("stdio", false, "serve newline-delimited requests on standard input and output")
	maxLine := flag.Int("max-line", 16<<20, "longest request line accepted, in bytes")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: jsonrpcd -stdio [-max-line N]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if !*stdio || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := serveLines(demo.NewServer(), os.Stdin, os.Stdout, *maxLine); err != nil {
		fmt.Fprintln(os.Stderr, "jsonrpcd:", err)
		os.Exit(1)
	}
}

// serveLines answers each line of in on out until in ends. It flushes out
// whenever no further input is buffered, so that a console sees each answer
// at once while piped input is answered in few writes.
func serveLines(srv *jsonrpc.Server, in io.Reader, out io.Writer, maxLine int) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	var (
		line []byte
		resp []byte
	)
	for {
		var err error
		line, err = readLine(r, line[:0], maxLine)
		if errors.Is(err, errLineTooLong) {
			resp = jsonrpc.NewError(jsonrpc.CodeParseError, "").
				WithData(fmt.Sprintf("line exceeds %d bytes", maxLine)).AppendResponse(resp[:0], nil)
			resp = append(resp, '\n')
			if _, werr := w.Write(resp); werr != nil {
				return werr
			}
		} else if len(trimSpace(line)) > 0 {
			resp = srv.Process(resp[:0], line)
			if len(resp) > 0 {
				resp = append(resp, '\n')
				if _, werr := w.Write(resp); werr != nil {
					return werr
				}
			}
		}
		if err == io.EOF {
			return w.Flush()
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			w.Flush()
			return err
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine appends the next line of r, without its line ending, to buf. A line
// longer than max is consumed and reported as errLineTooLong. At the end of
// the input it returns the last line with io.EOF.
func readLine(r *bufio.Reader, buf []byte, max int) ([]byte, error) {
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > max+2 {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			if err == nil {
				err = errLineTooLong
			} else if err == io.EOF {
				err = errLineTooLong
			}
			return buf, err
		}
		return trimEOL(buf), err
	}
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

func trimSpace(b []byte) []byte {
	i := wire.SkipSpace(b, 0)
	j := len(b)
	for j > i && wire.IsSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}
