package main

import (
	"bytes"
	"net"
	"strings"
	"testing"
)

// -metrics serves the process's metrics, meant for loopback: an address
// that is not loopback, or :PORT (every interface), is refused at once,
// with status 2, unless -metrics-public says that it is meant. Before, such
// an address was taken without a word.
func TestMetricsLoopback(t *testing.T) {
	for _, addr := range []string{":9464", "0.0.0.0:9464", "[::]:9464", "192.0.2.1:9464", "[2001:db8::1]:9464", "[::ffff:192.0.2.1]:9464"} {
		var stderr bytes.Buffer
		_, status, ok := parseFlags([]string{"-metrics", addr}, &stderr)
		if ok || status != 2 {
			t.Errorf("-metrics %s: ok %v, status %d; want refused with status 2", addr, ok, status)
			continue
		}
		if msg := stderr.String(); !strings.Contains(msg, "loopback") || !strings.Contains(msg, "-metrics-public") {
			t.Errorf("-metrics %s: the refusal says %q, want it to name loopback and -metrics-public", addr, msg)
		}
		if cfg, _, ok := parseFlags([]string{"-metrics", addr, "-metrics-public"}, &stderr); !ok || cfg.metricsAddr != addr {
			t.Errorf("-metrics %s -metrics-public: refused", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:9464", "127.0.0.2:0", "[::1]:0", "localhost:9464", "[::ffff:127.0.0.1]:0"} {
		var stderr bytes.Buffer
		if cfg, _, ok := parseFlags([]string{"-metrics", addr}, &stderr); !ok || cfg.metricsAddr != addr {
			t.Errorf("-metrics %s: refused: %s", addr, stderr.String())
		}
	}
}

// A name is checked where it is listened on: one that does not name
// loopback is refused before anything is served; localhost is served.
func TestMetricsListenLoopback(t *testing.T) {
	r := startRun(t, "-metrics", "localhost:0", "-log-level", "off")
	if !strings.Contains(r.addr["metrics"], "127.0.0.1:") && !strings.Contains(r.addr["metrics"], "[::1]:") {
		t.Errorf("-metrics localhost:0 listens on %s", r.addr["metrics"])
	}
}

// fakeListener is a listener on addr, for listensLoopback.
type fakeListener struct {
	net.Listener
	addr net.Addr
}

func (l fakeListener) Addr() net.Addr { return l.addr }

func TestListensLoopback(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want bool
	}{{"127.0.0.1", true}, {"::1", true}, {"192.0.2.1", false}, {"0.0.0.0", false}, {"::", false}} {
		err := listensLoopback(fakeListener{addr: &net.TCPAddr{IP: net.ParseIP(tc.ip), Port: 9464}})
		if (err == nil) != tc.want {
			t.Errorf("a listener on %s: %v, want loopback %v", tc.ip, err, tc.want)
		}
	}
}
