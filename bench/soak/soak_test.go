package main

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

func TestParseRSS(t *testing.T) {
	status := "Name:\tjsonrpcd\nVmPeak:\t  900 kB\nVmRSS:\t   12345 kB\nThreads:\t5\n"
	if got, err := parseRSS(status); err != nil || got != 12345<<10 {
		t.Errorf("parseRSS = %d, %v; want %d", got, err, 12345<<10)
	}
	for _, bad := range []string{"", "VmRSS: 12 MB\n", "VmRSS: x kB\n"} {
		if _, err := parseRSS(bad); err == nil {
			t.Errorf("parseRSS(%q) succeeded", bad)
		}
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, tt := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {1, time.Millisecond}} {
		if got := percentile(ds, tt.p); got != tt.want {
			t.Errorf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if percentile(nil, 99) != 0 {
		t.Error("percentile of nothing is not 0")
	}
}

func TestChoose(t *testing.T) {
	all, err := choose("")
	if err != nil || len(all) != len(attacks) {
		t.Fatalf("choose(\"\") = %d attacks, %v", len(all), err)
	}
	two, err := choose("idle-tcp,alike-names")
	if err != nil || len(two) != 2 || two[0].name != "idle-tcp" || two[1].name != "alike-names" {
		t.Errorf("choose of two = %v, %v", two, err)
	}
	if _, err := choose("nope"); err == nil {
		t.Error("choose of an unknown attack succeeded")
	}
}

func TestCheckAdd(t *testing.T) {
	if err := checkAdd(`{"jsonrpc":"2.0","result":8,"id":7}`+"\n", 7); err != nil {
		t.Error(err)
	}
	if err := checkAdd(`{"jsonrpc":"2.0","result":9,"id":7}`, 7); err == nil {
		t.Error("a wrong sum passed")
	}
}

func TestParseGoroutines(t *testing.T) {
	text := "# HELP go_goroutines Number of goroutines that currently exist.\n# TYPE go_goroutines gauge\ngo_goroutines 4117\ngo_threads 9\n"
	if n, err := parseGoroutines(text); err != nil || n != 4117 {
		t.Errorf("parseGoroutines = %d, %v; want 4117", n, err)
	}
	if _, err := parseGoroutines("go_threads 9\n"); err == nil {
		t.Error("parseGoroutines found goroutines in a text without them")
	}
}

func TestLockedOut(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	// steady is a client that completed a call every 5 ms from 0 to 3 s.
	steady := func(name string) childClient {
		c := childClient{Name: name}
		for end := 5; end <= 3000; end += 5 {
			c.Lat = append(c.Lat, ms(1))
			c.Ends = append(c.Ends, ms(end))
		}
		return c
	}
	// stuck waited 2 s, from 0.5 s to 2.5 s, while steady went on.
	stuck := childClient{Name: "stuck", Lat: []time.Duration{ms(1), ms(2000)}, Ends: []time.Duration{ms(400), ms(2500)}}
	rep := childReport{Clients: []childClient{steady("a"), stuck, steady("b")}}
	if got := rep.lockedOut(ms(1500), minServed); !strings.Contains(got, "stuck waited 2s") || !strings.Contains(got, "completed 798") {
		t.Errorf("lockedOut = %q, want the stuck client, while the others completed 798", got)
	}
	if got := rep.lockedOut(ms(2500), minServed); got != "" {
		t.Errorf("lockedOut with a bound over the wait = %q", got)
	}
	// Everyone waited from 0.5 s to 2.5 s at once: a stall, not a lock-out.
	stalled := func(name string) childClient {
		return childClient{Name: name, Lat: []time.Duration{ms(1), ms(2000), ms(1)}, Ends: []time.Duration{ms(500), ms(2500), ms(2510)}}
	}
	rep = childReport{Clients: []childClient{stalled("a"), stalled("b"), stalled("c")}}
	if got := rep.lockedOut(ms(1500), minServed); got != "" {
		t.Errorf("lockedOut of a stall of every client = %q", got)
	}
}

func TestHealthyRole(t *testing.T) {
	for _, set := range []healthySet{{}, {callback: true}, {streamable: true}, {callback: true, streamable: true}} {
		if got, ok := parseHealthy(set.role()); !ok || got != set {
			t.Errorf("parseHealthy(%q) = %+v, %v; want %+v", set.role(), got, ok, set)
		}
	}
	for _, bad := range []string{"", "healthy+", "healthy+streamable+callback", "attack:x"} {
		if _, ok := parseHealthy(bad); ok {
			t.Errorf("parseHealthy(%q) succeeded", bad)
		}
	}
}

func TestReadEvent(t *testing.T) {
	stream := ": keep-alive\n\nid: 2-1\nretry: 1000\ndata: \n\nid: 2-2\nevent: message\ndata: {\"a\":1}\n\n"
	r := bufio.NewReader(strings.NewReader(stream))
	if id, data, err := readEvent(r); err != nil || id != "2-1" || data != "" {
		t.Errorf("the priming event: %q %q %v", id, data, err)
	}
	if id, data, err := readEvent(r); err != nil || id != "2-2" || data != `{"a":1}` {
		t.Errorf("the message: %q %q %v", id, data, err)
	}
	if _, _, err := readEvent(r); err == nil {
		t.Error("an event past the stream's end")
	}
}
