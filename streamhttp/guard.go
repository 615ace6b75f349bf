package streamhttp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// The defaults of the handler's guard of its stores.
const (
	// DefaultStoreTimeout is the default of Handler.StoreTimeout.
	DefaultStoreTimeout = 500 * time.Millisecond
	// storeFailures is how many store calls failing in a row open the
	// breaker.
	storeFailures = 3
	// storeCooldown is how long the breaker stays open before a call
	// probes the store again.
	storeCooldown = time.Second
	// storeCalls bounds the calls of a handler's stores under way at once,
	// those left to finish in the background included.
	storeCalls = 64
)

// ErrStoreUnavailable matches (errors.Is) the error of a call of a
// handler's SessionStore or EventStore that the handler gave up on: the
// store did not answer within Handler.StoreTimeout, too many of its calls
// were under way, or it failed so often that the handler leaves it alone
// for a while. A request that needs the store then (one for a session the
// handler does not hold, or the resumption of a stream it does not carry)
// is answered 503 with Retry-After, and a request's body with the
// JSON-RPC error "Session store unavailable" under the Shutdown code of
// the handler's Protocol (jsonrpc.Codes), which client.Retry retries; an
// event not stored in time is not kept, and its stream's resumption from
// before it is refused, while the stream goes on.
var ErrStoreUnavailable = errors.New("streamhttp: session store unavailable")

// StoreUnavailable is the message of the JSON-RPC error that answers a
// request the handler could not serve because its store is unavailable
// (ErrStoreUnavailable).
const StoreUnavailable = "Session store unavailable"

// A guard stands between a handler and the stores of its user (a Redis,
// say), so that a store that is slow or gone holds up no request, session
// or stream for long: each call runs on a goroutine of its own, and the
// caller waits for it at most the timeout, leaving it to finish in the
// background (at most storeCalls of them under way); after storeFailures
// failures in a row the breaker opens, and calls fail at once for
// storeCooldown, after which one call at a time probes the store until
// one succeeds. What no request waits for (a Forget, a Delete, a session
// saved again) runs in the background alone.
type guard struct {
	timeout time.Duration
	slots   chan struct{} // a value per call under way

	mu      sync.Mutex // protects the fields below
	fails   int        // failures in a row
	until   time.Time  // the breaker is open until then
	probing bool       // a call probes the store
}

func newGuard(timeout time.Duration) *guard {
	return &guard{timeout: timeout, slots: make(chan struct{}, storeCalls)}
}

// admit reports whether a call may go to the store now, and whether it
// probes it (the breaker's cooldown has passed).
func (g *guard) admit() (ok, probe bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.fails < storeFailures:
		return true, false
	case time.Now().Before(g.until) || g.probing:
		return false, false
	}
	g.probing = true
	return true, true
}

// result records the outcome of a call admitted (probe: as the probe).
func (g *guard) result(ok, probe bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if probe {
		g.probing = false
	}
	if ok {
		g.fails = 0
		return
	}
	g.fails++
	if g.fails >= storeFailures {
		g.until = time.Now().Add(storeCooldown)
	}
}

// start runs f in the background under the guard, and reports whether
// it did: not while the breaker is open, nor past storeCalls under way.
func (g *guard) start(f func() error) bool {
	started, _ := g.run(f, func(err error, probe bool) { g.result(ok(err), probe) })
	return started
}

// run runs f on a goroutine of its own, which calls done with its error
// and whether the call probes the store, and reports the same: whether it
// did (not when the breaker is open or too many calls are under way), and
// whether it probes.
func (g *guard) run(f func() error, done func(err error, probe bool)) (started, probe bool) {
	admitted, probe := g.admit()
	if !admitted {
		return false, false
	}
	select {
	case g.slots <- struct{}{}:
	default:
		if probe {
			g.result(false, true)
		}
		return false, false
	}
	go func() {
		err := f()
		<-g.slots
		done(err, probe)
	}()
	return true, probe
}

// ok reports whether err, of a store's call, is no failure of the store.
func ok(err error) bool { return err == nil || errors.Is(err, ErrEventsGone) }

// call runs f under the guard and waits for it, at most the timeout: it
// returns f's error, or ErrStoreUnavailable when f did not start (run) or
// did not return in time; a call that did not is a failure of the store,
// whatever it returns later. done, when not nil, runs once f has
// returned, or at once when it did not start.
func (g *guard) call(f func() error, done func()) error {
	ch := make(chan error, 1)
	started, probe := g.run(f, func(err error, _ bool) {
		if done != nil {
			done() // before the waiter goes on: its next call may count on it
		}
		ch <- err
	})
	if !started {
		if done != nil {
			done()
		}
		return ErrStoreUnavailable
	}
	t := time.NewTimer(g.timeout)
	defer t.Stop()
	select {
	case err := <-ch:
		g.result(ok(err), probe)
		return err
	case <-t.C:
		g.result(false, probe)
		return ErrStoreUnavailable
	}
}

func (h *Handler) guard() *guard {
	h.guardOnce.Do(func() {
		d := h.StoreTimeout
		if d <= 0 {
			d = DefaultStoreTimeout
		}
		h.grd = newGuard(d)
	})
	return h.grd
}

// guardedEvents reports whether the handler's EventStore is one of its
// user's, which the guard stands in front of; a MemoryStore answers at
// once.
func (h *Handler) guardedEvents() bool {
	if h.EventStore == nil {
		return false
	}
	_, mem := h.EventStore.(*MemoryStore)
	return !mem
}

// keep keeps msg as event seq of stream in session, and calls done once
// the store has returned (maybe after keep has).
func (h *Handler) keep(session, stream string, seq uint64, msg []byte, done func()) error {
	if !h.guardedEvents() {
		err := h.store().Store(session, stream, seq, msg)
		done()
		return err
	}
	var c []byte // the store may outlive this call: it gets a copy
	if msg != nil {
		c = append(make([]byte, 0, len(msg)), msg...)
	}
	return h.guard().call(func() error { return h.EventStore.Store(session, stream, seq, c) }, done)
}

// replay is EventStore.Replay under the guard: the events are sent once
// the store has returned them in time.
func (h *Handler) replay(session, stream string, after uint64, send func(seq uint64, msg []byte) error) error {
	if !h.guardedEvents() {
		return h.store().Replay(session, stream, after, send)
	}
	type event struct {
		seq uint64
		msg []byte
	}
	var evs []event // written by the call, read once it has returned in time
	err := h.guard().call(func() error {
		return h.EventStore.Replay(session, stream, after, func(seq uint64, msg []byte) error {
			evs = append(evs, event{seq, append([]byte(nil), msg...)})
			return nil
		})
	}, nil)
	if err != nil {
		return err
	}
	for _, e := range evs {
		if err := send(e.seq, e.msg); err != nil {
			return err
		}
	}
	return nil
}

// forget drops the events of stream in session (all of the session's
// for ""): a store of the user's in the background, as the guard allows
// (what it fails to drop, its bounds and expiry drop).
func (h *Handler) forget(session, stream string) {
	if !h.guardedEvents() {
		h.store().Forget(session, stream)
		return
	}
	h.guard().start(func() error { h.EventStore.Forget(session, stream); return nil })
}

// guardedSessions reports whether the SessionStore is one of its user's,
// which the guard stands in front of.
func (h *Handler) guardedSessions() bool {
	_, mem := h.SessionStore.(*MemorySessions)
	return h.SessionStore != nil && !mem
}

// save saves st in the SessionStore: waiting for it (within the guard's
// timeout) when wait is set, in the background otherwise. Its failure is
// logged.
func (h *Handler) save(st SessionState, wait bool) {
	save := func() error { return h.SessionStore.Save(st) }
	var err error
	switch {
	case !h.guardedSessions():
		err = save()
	case wait:
		err = h.guard().call(save, nil)
	default:
		if !h.guard().start(func() error { return h.logged(save()) }) {
			err = ErrStoreUnavailable
		}
	}
	h.logged(err)
}

// delete drops the session id from the SessionStore, in the background.
func (h *Handler) delete(id string) {
	del := func() error { return h.logged(h.SessionStore.Delete(id)) }
	if !h.guardedSessions() {
		del()
		return
	}
	if !h.guard().start(del) {
		h.logged(ErrStoreUnavailable)
	}
}

// load is SessionStore.Load under the guard.
func (h *Handler) load(id string) (SessionState, bool, error) {
	if !h.guardedSessions() {
		return h.SessionStore.Load(id)
	}
	var st SessionState
	var found bool
	err := h.guard().call(func() error {
		var err error
		st, found, err = h.SessionStore.Load(id)
		return err
	}, nil)
	if err != nil {
		return SessionState{}, false, err
	}
	return st, found, nil
}

// logged logs err of the SessionStore, if any, and returns it.
func (h *Handler) logged(err error) error {
	if err != nil {
		h.logf(context.Background(), "session store", err)
	}
	return err
}
