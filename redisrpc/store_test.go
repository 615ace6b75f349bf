package redisrpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/redis/go-redis/v9"
)

// startStoreRedis starts Debian's redis-server on 127.0.0.1 and a free
// port, without persistence, until the test ends; it skips the test when
// redis-server is missing, unless JSONRPC_REDIS=required.
func startStoreRedis(t *testing.T) string {
	t.Helper()
	bin := "/usr/bin/redis-server"
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("JSONRPC_REDIS") == "required" {
			t.Fatalf("redis-server: %v", err)
		}
		t.Skip("redis-server is not installed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not answer PING")
		}
		time.Sleep(10 * time.Millisecond) // polls for readiness
	}
	return addr
}

func newStore(t *testing.T, s *Store) *Store {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: startStoreRedis(t)})
	t.Cleanup(func() { c.Close() })
	s.Client = c
	return s
}

func replay(t *testing.T, s streamhttp.EventStore, session, stream string, after uint64) ([]uint64, []string, error) {
	t.Helper()
	var seqs []uint64
	var msgs []string
	err := s.Replay(session, stream, after, func(seq uint64, msg []byte) error {
		seqs = append(seqs, seq)
		msgs = append(msgs, string(msg))
		return nil
	})
	return seqs, msgs, err
}

// TestEventStore: the EventStore contract, as MemoryStore keeps it:
// events in order after the one named, the priming event skipped,
// ErrEventsGone for events not kept or past the bounds, Forget of a stream
// and of a session, and send's error returned.
func TestEventStore(t *testing.T) {
	s := newStore(t, &Store{MaxEvents: 3, Prefix: "test:"})
	if _, _, err := replay(t, s, "s", "1", 0); !errors.Is(err, streamhttp.ErrEventsGone) {
		t.Fatalf("an unknown stream: %v, want ErrEventsGone", err)
	}
	must := func(session, stream string, seq uint64, msg []byte) {
		t.Helper()
		if err := s.Store(session, stream, seq, msg); err != nil {
			t.Fatal(err)
		}
	}
	must("s", "1", 1, nil)
	must("s", "1", 2, []byte("a"))
	must("s", "1", 3, []byte("b"))
	must("s", "2", 1, []byte("other"))
	seqs, msgs, err := replay(t, s, "s", "1", 1)
	if err != nil || fmt.Sprint(seqs, msgs) != "[2 3] [a b]" {
		t.Fatalf("Replay after 1: %v %q %v", seqs, msgs, err)
	}
	seqs, msgs, err = replay(t, s, "s", "1", 0)
	if err != nil || fmt.Sprint(seqs, msgs) != "[2 3] [a b]" {
		t.Fatalf("Replay after 0 (the priming event skipped): %v %q %v", seqs, msgs, err)
	}
	if seqs, _, err = replay(t, s, "s", "1", 3); err != nil || len(seqs) != 0 {
		t.Fatalf("Replay after the last: %v %v", seqs, err)
	}
	if _, _, err = replay(t, s, "s", "1", 4); !errors.Is(err, streamhttp.ErrEventsGone) {
		t.Fatalf("Replay after an event not yet sent: %v, want ErrEventsGone", err)
	}
	must("s", "1", 4, []byte("c")) // drops event 1, the priming event
	if _, _, err = replay(t, s, "s", "1", 0); !errors.Is(err, streamhttp.ErrEventsGone) {
		t.Fatalf("Replay of dropped events: %v, want ErrEventsGone", err)
	}
	if seqs, msgs, err = replay(t, s, "s", "1", 1); err != nil || fmt.Sprint(seqs, msgs) != "[2 3 4] [a b c]" {
		t.Fatalf("Replay after 1 at the bound: %v %q %v", seqs, msgs, err)
	}
	stop := errors.New("stop")
	if err := s.Replay("s", "1", 1, func(uint64, []byte) error { return stop }); err != stop {
		t.Fatalf("Replay returned %v, want send's error", err)
	}
	s.Forget("s", "1")
	if _, _, err = replay(t, s, "s", "1", 1); !errors.Is(err, streamhttp.ErrEventsGone) {
		t.Fatalf("a forgotten stream: %v", err)
	}
	if _, msgs, err = replay(t, s, "s", "2", 0); err != nil || fmt.Sprint(msgs) != "[other]" {
		t.Fatalf("the other stream after Forget of one: %q %v", msgs, err)
	}
	s.Forget("s", "")
	if _, _, err = replay(t, s, "s", "2", 0); !errors.Is(err, streamhttp.ErrEventsGone) {
		t.Fatalf("a forgotten session: %v", err)
	}
	keys, err := s.Client.Keys(context.Background(), "test:*").Result()
	if err != nil || len(keys) != 0 {
		t.Errorf("keys left after Forget of the session: %q %v", keys, err)
	}
}

// TestEventStoreBytes: past MaxBytes the oldest events are dropped, the
// newest always kept; an event out of order starts the stream over; every
// key has a TTL.
func TestEventStoreBytes(t *testing.T) {
	s := newStore(t, &Store{MaxBytes: 4, TTL: time.Hour})
	for i, m := range []string{"aa", "bb", "cc", "dddddd"} {
		if err := s.Store("s", "1", uint64(i+1), []byte(m)); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if seqs, _, err := replay(t, s, "s", "1", 1); err != nil || fmt.Sprint(seqs) != "[2 3]" {
				t.Fatalf("at 4 bytes: %v %v", seqs, err)
			}
		}
	}
	if seqs, msgs, err := replay(t, s, "s", "1", 3); err != nil || fmt.Sprint(seqs, msgs) != "[4] [dddddd]" {
		t.Fatalf("an event over MaxBytes alone: %v %q %v", seqs, msgs, err)
	}
	if err := s.Store("s", "1", 9, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if seqs, _, err := replay(t, s, "s", "1", 8); err != nil || fmt.Sprint(seqs) != "[9]" {
		t.Fatalf("after an event out of order: %v %v", seqs, err)
	}
	ctx := context.Background()
	keys, _ := s.Client.Keys(ctx, DefaultPrefix+"*").Result()
	if len(keys) == 0 {
		t.Fatal("no keys")
	}
	for _, k := range keys {
		if d := s.Client.PTTL(ctx, k).Val(); d <= 0 || d > time.Hour {
			t.Errorf("key %s has TTL %v, want at most 1h", k, d)
		}
	}
}

// TestSessionStore: Save, Load and Delete, with a TTL.
func TestSessionStore(t *testing.T) {
	s := newStore(t, &Store{TTL: time.Minute})
	if _, ok, err := s.Load("a.1"); ok || err != nil {
		t.Fatalf("Load of an unknown session: %v %v", ok, err)
	}
	want := streamhttp.SessionState{ID: "a.1", Version: "2025-11-25", Client: "127.0.0.1", Subject: "alice"}
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Load("a.1")
	if !ok || err != nil || got != want {
		t.Fatalf("Load: %+v %v %v, want %+v", got, ok, err, want)
	}
	if d := s.Client.PTTL(context.Background(), s.sessionKey("a.1")).Val(); d <= 0 || d > time.Minute {
		t.Errorf("the session's TTL is %v", d)
	}
	if err := s.Delete("a.1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Load("a.1"); ok {
		t.Error("Load after Delete found the session")
	}
}
