// Package tokencache is the cache of the token verifiers (package oauth's
// introspection, the jwtauth module's JWT verifier): what a token was
// found to stand for, bounded in number and each kept until its time, and
// one verification at a time of each token, however many requests bear
// it at once.
package tokencache

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// A Key is what a token is kept under: its SHA-256, so that a cache
// holds no token itself and the same bytes for every token.
type Key [sha256.Size]byte

// KeyOf returns the Key of token.
func KeyOf(token string) Key { return sha256.Sum256([]byte(token)) }

// A Cache keeps the verdicts of verified tokens: the Principal a token
// stands for, or the error it was refused with, each until its time, and
// at most Max of them (the least recently used go first). Verify runs one
// verification of a token at a time. The zero Cache keeps none; a Cache
// must not be copied after first use. It is safe for concurrent use by
// multiple goroutines.
type Cache struct {
	Max int // the verdicts kept; 0 or less: none

	mu      sync.Mutex // protects the fields below
	byKey   map[Key]*list.Element
	order   list.List // of *entry, most recently used first
	flights map[Key]*flight
}

type entry struct {
	key   Key
	p     *jsonrpc.Principal
	err   error
	until time.Time
}

// A flight is a verification in progress: the requests that bear its
// token meanwhile wait for it.
type flight struct {
	done chan struct{}
	p    *jsonrpc.Principal
	err  error
}

// Len returns the number of verdicts kept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Get returns the verdict kept for key, if one is kept and its time has
// not come at now.
func (c *Cache) Get(key Key, now time.Time) (p *jsonrpc.Principal, err error, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.getLocked(key, now)
}

func (c *Cache) getLocked(key Key, now time.Time) (*jsonrpc.Principal, error, bool) {
	el := c.byKey[key]
	if el == nil {
		return nil, nil, false
	}
	e := el.Value.(*entry)
	if !now.Before(e.until) {
		c.order.Remove(el)
		delete(c.byKey, key)
		return nil, nil, false
	}
	c.order.MoveToFront(el)
	return e.p, e.err, true
}

// Put keeps the verdict p or err for key until until, making room as Max
// says; a verdict whose time has come at now, or with Max at 0, is not
// kept.
func (c *Cache) Put(key Key, p *jsonrpc.Principal, err error, until, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, p, err, until, now)
}

func (c *Cache) putLocked(key Key, p *jsonrpc.Principal, err error, until, now time.Time) {
	if c.Max <= 0 || !now.Before(until) {
		return
	}
	if c.byKey == nil {
		c.byKey = map[Key]*list.Element{}
	}
	if el := c.byKey[key]; el != nil {
		el.Value = &entry{key: key, p: p, err: err, until: until}
		c.order.MoveToFront(el)
		return
	}
	for c.order.Len() >= c.Max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*entry).key)
	}
	c.byKey[key] = c.order.PushFront(&entry{key: key, p: p, err: err, until: until})
}

// Verify returns the verdict kept for token, or else verifies it with
// verify, keeps the verdict until the time verify gives (not kept when
// keep is false: a verification that failed for a reason of the moment,
// such as an issuer out of reach) and returns it. While one verification
// of a token runs, the other requests bearing it wait for its verdict,
// or until their ctx ends. verify runs with a context of its own, ctx's
// values without its end, so that the request that began it going away
// does not fail the others; it must bound its own time.
func (c *Cache) Verify(ctx context.Context, token string, now func() time.Time, verify func(ctx context.Context) (p *jsonrpc.Principal, err error, until time.Time, keep bool)) (*jsonrpc.Principal, error) {
	key := KeyOf(token)
	c.mu.Lock()
	if p, err, ok := c.getLocked(key, now()); ok {
		c.mu.Unlock()
		return p, err
	}
	f := c.flights[key]
	if f == nil {
		f = &flight{done: make(chan struct{})}
		if c.flights == nil {
			c.flights = map[Key]*flight{}
		}
		c.flights[key] = f
		c.mu.Unlock()
		go c.run(context.WithoutCancel(ctx), key, f, now, verify)
	} else {
		c.mu.Unlock()
	}
	select {
	case <-f.done:
		return f.p, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// run verifies the token of key for f and keeps its verdict.
func (c *Cache) run(ctx context.Context, key Key, f *flight, now func() time.Time, verify func(context.Context) (*jsonrpc.Principal, error, time.Time, bool)) {
	var (
		until time.Time
		keep  bool
	)
	defer func() {
		if v := recover(); v != nil {
			f.p, f.err, keep = nil, errPanic, false
		}
		c.mu.Lock()
		delete(c.flights, key)
		if keep {
			c.putLocked(key, f.p, f.err, until, now())
		}
		c.mu.Unlock()
		close(f.done)
	}()
	f.p, f.err, until, keep = verify(ctx)
}

// errPanic is the verdict of a verification that panicked.
var errPanic = panicError{}

type panicError struct{}

func (panicError) Error() string { return "jsonrpc: the token's verification panicked" }
