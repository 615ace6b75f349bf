package transport_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/transport"
)

// hosted is a connection that ends when it is stopped (graceful) or
// killed, as the test says.
type hosted struct {
	h        *transport.Host
	graceful bool // Stop ends it
	mu       sync.Mutex
	stopped  bool
	killed   bool
}

func (c *hosted) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	if c.graceful {
		go c.h.Remove(c)
	}
}

func (c *hosted) Kill() {
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	go c.h.Remove(c)
}

type closer struct{ closed chan struct{} }

func (l *closer) Close() error { close(l.closed); return nil }

func TestHost(t *testing.T) {
	var h transport.Host
	a, b := &hosted{h: &h, graceful: true}, &hosted{h: &h, graceful: true}
	if err := h.Add(a, 2); err != nil {
		t.Fatal(err)
	}
	if err := h.Add(b, 2); err != nil {
		t.Fatal(err)
	}
	if err := h.Add(&hosted{h: &h}, 2); !errors.Is(err, transport.ErrHostFull) {
		t.Fatalf("a third past 2: %v", err)
	}
	l := &closer{closed: make(chan struct{})}
	if !h.AddListener(l) {
		t.Fatal("AddListener refused")
	}
	closed := h.Closed()
	if err := h.Shutdown(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	<-l.closed
	<-closed
	if !a.stopped || !b.stopped || a.killed || b.killed || h.Len() != 0 {
		t.Errorf("after Shutdown: %+v %+v, %d left", a, b, h.Len())
	}
	if err := h.Add(&hosted{h: &h}, 0); !errors.Is(err, transport.ErrHostClosed) {
		t.Errorf("Add after Shutdown: %v", err)
	}
	if h.AddListener(&closer{closed: make(chan struct{})}) {
		t.Error("AddListener after Shutdown")
	}
}

// A connection that does not end when stopped is killed once Shutdown's
// context ends.
func TestHostShutdownTimeout(t *testing.T) {
	var h transport.Host
	c := &hosted{h: &h}
	h.Add(c, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Shutdown(ctx, nil); err != context.Canceled {
		t.Fatalf("Shutdown: %v", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped || !c.killed {
		t.Errorf("stopped %v, killed %v", c.stopped, c.killed)
	}
}
