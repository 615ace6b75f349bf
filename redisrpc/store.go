// Package redisrpc keeps what the library's hosts share between processes
// in Redis, through github.com/redis/go-redis/v9.
package redisrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/redis/go-redis/v9"
)

// The defaults of Store's fields.
const (
	DefaultPrefix  = "jsonrpc:"
	DefaultTTL     = 24 * time.Hour
	DefaultTimeout = 5 * time.Second
)

// A Store keeps the sessions of Streamable HTTP handlers
// (streamhttp.SessionStore) and the events of their streams
// (streamhttp.EventStore) in Redis, so that the replicas of one service
// behind a load balancer serve each other's sessions and a stream resumed
// on a replica that did not carry it, or that restarted, replays the
// events it missed. Give every replica's Handler the same Store (the same
// Redis and Prefix) as both its SessionStore and its EventStore.
//
// Each stream's events are a Redis list, bounded as a
// streamhttp.MemoryStore is: its newest MaxEvents events and at most
// MaxBytes bytes of them (always the newest event); an event is kept
// atomically with its bounds (a script). Every key expires TTL after its
// last write, so that what a replica that ended never deletes does not
// stay. The keys of one session share a hash tag ({id}), for Redis
// Cluster.
//
// A Store's fields must not change once it is in use; it is safe for
// concurrent use by multiple goroutines. Each operation is bounded by
// Timeout. Forget has no error to return: what it fails to delete
// expires.
type Store struct {
	// Client is the Redis the Store keeps its keys in. It must be set.
	Client redis.UniversalClient
	// Prefix begins every key; "" means DefaultPrefix ("jsonrpc:").
	Prefix string
	// MaxEvents bounds the events kept per stream; <= 0 means
	// streamhttp.DefaultMaxEvents (256).
	MaxEvents int
	// MaxBytes bounds the bytes kept per stream; <= 0 means
	// streamhttp.DefaultMaxEventBytes (4 MiB).
	MaxBytes int64
	// TTL is how long a key lives after its last write: a session
	// unused for that long (a handler saves a session in use again once a
	// minute at most), or a stream with no new event, is dropped. 0 means
	// DefaultTTL (24 hours).
	TTL time.Duration
	// Timeout bounds each operation on Redis; 0 means DefaultTimeout
	// (5 s).
	Timeout time.Duration
}

var (
	_ streamhttp.EventStore   = (*Store)(nil)
	_ streamhttp.SessionStore = (*Store)(nil)
)

func (s *Store) prefix() string {
	if s.Prefix == "" {
		return DefaultPrefix
	}
	return s.Prefix
}

func (s *Store) ttl() time.Duration {
	if s.TTL > 0 {
		return s.TTL
	}
	return DefaultTTL
}

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	d := s.Timeout
	if d <= 0 {
		d = DefaultTimeout
	}
	return context.WithTimeout(context.Background(), d)
}

func (s *Store) limits() (int, int64) {
	n, b := s.MaxEvents, s.MaxBytes
	if n <= 0 {
		n = streamhttp.DefaultMaxEvents
	}
	if b <= 0 {
		b = streamhttp.DefaultMaxEventBytes
	}
	return n, b
}

// The keys of a session: its state, the set of its streams, and each
// stream's list of events and its meta (first seq, bytes).
func (s *Store) sessionKey(id string) string { return s.prefix() + "{" + id + "}:session" }
func (s *Store) streamsKey(id string) string { return s.prefix() + "{" + id + "}:streams" }
func (s *Store) eventsKey(id, stream string) string {
	return s.prefix() + "{" + id + "}:events:" + stream
}
func (s *Store) metaKey(id, stream string) string { return s.prefix() + "{" + id + "}:meta:" + stream }

// storeScript appends an event to a stream's list, starting over when seq
// does not follow the events kept, and drops the oldest past the bounds.
// KEYS: events, meta, streams. ARGV: seq, kind ("m" a message, "n" none)
// followed by the message, stream, max events, max bytes, ttl in ms.
var storeScript = redis.NewScript(`
local seq = tonumber(ARGV[1])
local n = redis.call('LLEN', KEYS[1])
local first = tonumber(redis.call('HGET', KEYS[2], 'first') or '0')
local bytes = tonumber(redis.call('HGET', KEYS[2], 'bytes') or '0')
if n == 0 or first + n ~= seq then
	redis.call('DEL', KEYS[1])
	first, bytes, n = seq, 0, 0
end
redis.call('RPUSH', KEYS[1], ARGV[2])
n = n + 1
bytes = bytes + #ARGV[2] - 1
local maxN, maxB = tonumber(ARGV[4]), tonumber(ARGV[5])
while n > 1 and (n > maxN or bytes > maxB) do
	local old = redis.call('LPOP', KEYS[1])
	bytes = bytes - (#old - 1)
	first = first + 1
	n = n - 1
end
redis.call('HSET', KEYS[2], 'first', first, 'bytes', bytes)
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
return n
`)

// Store keeps msg as event seq of stream in session, dropping the
// stream's oldest events past the bounds.
func (s *Store) Store(session, stream string, seq uint64, msg []byte) error {
	maxN, maxB := s.limits()
	v := make([]byte, 0, 1+len(msg))
	if msg == nil {
		v = append(v, 'n')
	} else {
		v = append(append(v, 'm'), msg...)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	keys := []string{s.eventsKey(session, stream), s.metaKey(session, stream), s.streamsKey(session)}
	err := storeScript.Run(ctx, s.Client, keys, seq, v, stream, maxN, maxB, s.ttl().Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("redisrpc: storing an event: %w", err)
	}
	return nil
}

// Replay sends the events of stream in session after after, once none is
// dropped that the client has not seen; streamhttp.ErrEventsGone when
// they are not kept.
func (s *Store) Replay(session, stream string, after uint64, send func(seq uint64, msg []byte) error) error {
	ctx, cancel := s.ctx()
	defer cancel()
	var first *redis.StringCmd
	var list *redis.StringSliceCmd
	_, err := s.Client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		first = p.HGet(ctx, s.metaKey(session, stream), "first")
		list = p.LRange(ctx, s.eventsKey(session, stream), 0, -1)
		return nil
	})
	if errors.Is(err, redis.Nil) || err == nil && len(list.Val()) == 0 {
		return streamhttp.ErrEventsGone
	}
	if err != nil {
		return fmt.Errorf("redisrpc: replaying events: %w", err)
	}
	f, err := strconv.ParseUint(first.Val(), 10, 64)
	evs := list.Val()
	if err != nil || after+1 < f || after+1 > f+uint64(len(evs)) {
		return streamhttp.ErrEventsGone
	}
	start := after + 1 - f
	for i, e := range evs[start:] {
		if len(e) == 0 || e[0] != 'm' {
			continue // the priming event
		}
		if err := send(f+start+uint64(i), []byte(e[1:])); err != nil {
			return err
		}
	}
	return nil
}

// Forget drops the events of stream in session, or all of the session's
// when stream is "".
func (s *Store) Forget(session, stream string) {
	ctx, cancel := s.ctx()
	defer cancel()
	streams := []string{stream}
	if stream == "" {
		var err error
		if streams, err = s.Client.SMembers(ctx, s.streamsKey(session)).Result(); err != nil {
			return
		}
	}
	keys := make([]string, 0, 2*len(streams)+1)
	for _, st := range streams {
		keys = append(keys, s.eventsKey(session, st), s.metaKey(session, st))
	}
	if stream == "" {
		keys = append(keys, s.streamsKey(session))
	}
	s.Client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, keys...)
		if stream != "" {
			p.SRem(ctx, s.streamsKey(session), stream)
		}
		return nil
	})
}

// sessionValue is a session's state as stored, in JSON.
type sessionValue struct {
	Version string `json:"version,omitempty"`
	Client  string `json:"client,omitempty"`
	Subject string `json:"subject,omitempty"`
}

// Save stores st, for TTL.
func (s *Store) Save(st streamhttp.SessionState) error {
	v, err := json.Marshal(sessionValue{Version: st.Version, Client: st.Client, Subject: st.Subject})
	if err != nil {
		return fmt.Errorf("redisrpc: saving a session: %w", err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.Client.Set(ctx, s.sessionKey(st.ID), v, s.ttl()).Err(); err != nil {
		return fmt.Errorf("redisrpc: saving a session: %w", err)
	}
	return nil
}

// Load returns the session stored under id, and false when none is.
func (s *Store) Load(id string) (streamhttp.SessionState, bool, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	b, err := s.Client.Get(ctx, s.sessionKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return streamhttp.SessionState{}, false, nil
	}
	if err != nil {
		return streamhttp.SessionState{}, false, fmt.Errorf("redisrpc: loading a session: %w", err)
	}
	var v sessionValue
	if err := json.Unmarshal(b, &v); err != nil {
		return streamhttp.SessionState{}, false, fmt.Errorf("redisrpc: loading a session: %w", err)
	}
	return streamhttp.SessionState{ID: id, Version: v.Version, Client: v.Client, Subject: v.Subject}, true, nil
}

// Delete drops the session stored under id (the handler forgets its
// events first).
func (s *Store) Delete(id string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.Client.Del(ctx, s.sessionKey(id)).Err(); err != nil {
		return fmt.Errorf("redisrpc: deleting a session: %w", err)
	}
	return nil
}
