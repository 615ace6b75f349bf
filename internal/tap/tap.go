// Package tap records the messages a client.Channel carries, for tests
// that look at the exchange as sent, also at the messages a client drops
// (the answer to a call it gave up on), and log it as a transcript.
package tap

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// A Tap is a transport.Conn over a client.Channel that keeps every
// message it carries, in order, and logs each to its test: "--> " for what
// the client sends, "<-- " for what it receives. Channel makes it a
// client.Channel with the Traits of the one it taps.
type Tap struct {
	transport.Conn
	traits transport.Traits
	t      testing.TB

	mu   sync.Mutex
	msgs []Msg
	eof  chan struct{}
	once sync.Once
}

// A Msg is one message the Tap carried.
type Msg struct {
	Out bool // sent by the client
	Raw json.RawMessage
}

// New returns a Tap over ch.
func New(t testing.TB, ch client.Channel) *Tap {
	return &Tap{Conn: ch.Conn, traits: ch.Traits, t: t, eof: make(chan struct{})}
}

// Channel returns the Tap as a client.Channel.
func (w *Tap) Channel() client.Channel { return client.Channel{Conn: w, Traits: w.traits} }

func (w *Tap) Write(ctx context.Context, msg []byte) error {
	w.keep(true, msg)
	return w.Conn.Write(ctx, msg)
}

func (w *Tap) Read() ([]byte, error) {
	msg, err := w.Conn.Read()
	if err != nil {
		w.once.Do(func() { close(w.eof) })
		return msg, err
	}
	w.keep(false, msg)
	return msg, nil
}

// EOF returns a channel closed once Read has failed: the server's output
// ended.
func (w *Tap) EOF() <-chan struct{} { return w.eof }

func (w *Tap) keep(out bool, msg []byte) {
	arrow := "<-- "
	if out {
		arrow = "--> "
	}
	w.t.Log(arrow + string(msg))
	w.mu.Lock()
	w.msgs = append(w.msgs, Msg{out, append(json.RawMessage(nil), msg...)})
	w.mu.Unlock()
}

// All returns the messages that match, in order.
func (w *Tap) All(match func(m Msg) bool) []json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ms []json.RawMessage
	for _, m := range w.msgs {
		if match(m) {
			ms = append(ms, m.Raw)
		}
	}
	return ms
}

// Find waits up to d for a message that match accepts, and returns it.
func (w *Tap) Find(d time.Duration, match func(m Msg) bool) (json.RawMessage, bool) {
	deadline := time.Now().Add(d)
	for {
		if ms := w.All(match); len(ms) > 0 {
			return ms[0], true
		}
		if time.Now().After(deadline) {
			return nil, false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A Message is any JSON-RPC message, for a test to look into.
type Message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// Decode decodes raw, leaving the fields it cannot read zero.
func Decode(raw []byte) Message {
	var m Message
	json.Unmarshal(raw, &m)
	return m
}
