// Package loadgen holds the pieces of the benchmark load generators that
// bench/rpcbench and the bench/peers module share.
package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
)

// ReadResponseHead reads the status line and the header of an HTTP/1.1
// response from br, for a client that keeps its connection alive and sends
// one request at a time. It returns the status code and the body's length
// from Content-Length, or -1 when there is none. A chunked body, a server
// that closes the connection, or a malformed head is an error. It allocates
// nothing on success; the body is left in br.
func ReadResponseHead(br *bufio.Reader) (status, length int, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, 0, fmt.Errorf("reading the status line: %w", err)
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) || line[12] != ' ' && line[12] != '\r' && line[12] != '\n' {
		return 0, 0, fmt.Errorf("bad status line %q", line)
	}
	for _, b := range line[9:12] {
		if b < '0' || b > '9' {
			return 0, 0, fmt.Errorf("bad status line %q", line)
		}
		status = status*10 + int(b-'0')
	}
	length = -1
	for {
		h, err := br.ReadSlice('\n')
		if err != nil {
			return 0, 0, fmt.Errorf("reading the header: %w", err)
		}
		if len(bytes.TrimSpace(h)) == 0 {
			return status, length, nil
		}
		name, value, ok := bytes.Cut(h, []byte{':'})
		if !ok {
			return 0, 0, fmt.Errorf("bad header line %q", h)
		}
		value = bytes.TrimSpace(value)
		switch {
		case equalFoldASCII(name, "Content-Length"):
			n, ok := parseUint(value, 31)
			if !ok {
				return 0, 0, fmt.Errorf("bad Content-Length %q", value)
			}
			length = int(n)
		case equalFoldASCII(name, "Transfer-Encoding"):
			return 0, 0, fmt.Errorf("Transfer-Encoding %q: Content-Length required", value)
		case equalFoldASCII(name, "Connection") && equalFoldASCII(value, "close"):
			return 0, 0, errors.New("the server closes the connection")
		}
	}
}
