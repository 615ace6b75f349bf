package loadgen

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadResponseHead(t *testing.T) {
	for _, tc := range []struct {
		in             string
		status, length int
		ok             bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 12\r\n\r\n", 200, 12, true},
		{"HTTP/1.1 204 No Content\r\n\r\n", 204, -1, true},
		{"HTTP/1.1 200 OK\nContent-Length: 0\n\n", 200, 0, true},
		{"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 3\r\n\r\n", 500, 3, true},
		{"HTTP/1.0 200 OK\r\n\r\n", 0, 0, false},
		{"HTTP/1.1 2x0 OK\r\n\r\n", 0, 0, false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0, 0, false},
		{"HTTP/1.1 200 OK\r\nConnection: Close\r\n\r\n", 0, 0, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, 0, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", 0, 0, false},
		{"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", 0, 0, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n", 0, 0, false},
	} {
		status, length, err := ReadResponseHead(bufio.NewReader(strings.NewReader(tc.in)))
		if (err == nil) != tc.ok || tc.ok && (status != tc.status || length != tc.length) {
			t.Errorf("%q: %d, %d, %v", tc.in, status, length, err)
		}
	}
}

func TestStats(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	for r, want := range map[float64]string{8.02e6: "8.02M", 512.34e3: "512.3k", 900: "900"} {
		if got := FormatRate(r); got != want {
			t.Errorf("FormatRate(%v) = %q, want %q", r, got, want)
		}
	}
}
