package testutil

import "io"

// RewindBody is a request body that can be read again: set I to 0.
type RewindBody struct {
	B []byte
	I int
}

func (r *RewindBody) Read(p []byte) (int, error) {
	if r.I >= len(r.B) {
		return 0, io.EOF
	}
	n := copy(p, r.B[r.I:])
	r.I += n
	return n, nil
}

func (r *RewindBody) Close() error { return nil }
