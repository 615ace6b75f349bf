package testutil

import (
	"bytes"
	"compress/gzip"
	"testing"
)

// Gzip returns s compressed with gzip, for request bodies of tests.
func Gzip(tb testing.TB, s string) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}
