package tokencache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

func TestCacheBounds(t *testing.T) {
	now := time.Now()
	c := &Cache{Max: 2}
	alice := &jsonrpc.Principal{Subject: "alice"}
	c.Put(KeyOf("a"), alice, nil, now.Add(time.Minute), now)
	c.Put(KeyOf("b"), nil, errors.New("no"), now.Add(time.Minute), now)
	if p, _, ok := c.Get(KeyOf("a"), now); !ok || p != alice { // a is now the most recent
		t.Fatal("a not kept")
	}
	c.Put(KeyOf("c"), alice, nil, now.Add(time.Minute), now) // pushes b out
	if _, _, ok := c.Get(KeyOf("b"), now); ok || c.Len() != 2 {
		t.Errorf("b kept past Max, or %d kept", c.Len())
	}
	if _, _, ok := c.Get(KeyOf("a"), now.Add(time.Minute)); ok {
		t.Error("a kept past its time")
	}
	c.Put(KeyOf("d"), alice, nil, now, now) // its time has come
	if _, _, ok := c.Get(KeyOf("d"), now); ok {
		t.Error("a verdict past its time was kept")
	}
	var none Cache
	none.Put(KeyOf("a"), alice, nil, now.Add(time.Minute), now)
	if none.Len() != 0 {
		t.Error("the zero Cache keeps verdicts")
	}
}

// TestVerifyOnce: the requests that bear one token at once share one
// verification; a panic in it refuses the token, uncached.
func TestVerifyOnce(t *testing.T) {
	c := &Cache{Max: 10}
	var runs atomic.Int32
	release := make(chan struct{})
	verify := func(ctx context.Context) (*jsonrpc.Principal, error, time.Time, bool) {
		runs.Add(1)
		<-release
		return &jsonrpc.Principal{Subject: "alice"}, nil, time.Now().Add(time.Minute), true
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if p, err := c.Verify(context.Background(), "t", time.Now, verify); err != nil || p.Subject != "alice" {
				t.Errorf("%v %v", p, err)
			}
		})
	}
	for c.flightsLen() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Errorf("%d verifications of one token, want 1", n)
	}
	boom := func(ctx context.Context) (*jsonrpc.Principal, error, time.Time, bool) { panic("boom") }
	if _, err := c.Verify(context.Background(), "u", time.Now, boom); err == nil {
		t.Error("a verification that panicked took the token")
	}
	if _, _, ok := c.Get(KeyOf("u"), time.Now()); ok {
		t.Error("the verdict of a panic was kept")
	}
}

func (c *Cache) flightsLen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.flights)
}
