package ws

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc/transport"
)

// dialMaxMessage is the size limit, in bytes, of one message that a
// channel from Dial reads: client.DefaultMaxMessage (a test holds them
// equal; ws does not import the client).
const dialMaxMessage = 64 << 20

// Dial connects to a JSON-RPC server over WebSocket at url and returns the
// channel for a client.New, which reads messages of up to
// client.DefaultMaxMessage bytes (64 MiB); a longer one closes the connection with status 1009 and
// fails the client's calls. opts are passed to websocket.Dial; nil uses
// its defaults. The channel sends no pings: DialWith does.
func Dial(ctx context.Context, url string, opts *websocket.DialOptions) (transport.Carrier, error) {
	return DialWith(ctx, url, opts, Pings{})
}

// Pings are the pings that a channel from DialWith sends its server, so
// that a server gone without closing (its machine down, the network path
// dropped) fails the client's calls, in flight or made later, with
// client.ErrClosed, rather than leaving them to wait for ever. The zero
// value sends none.
//
// A server answers a ping only while it reads the connection: a Handler
// with MaxInFlight calls of the client on hand, or running a method that is
// not registered jsonrpc.Blocking, does not read it. Give Timeout more than
// such a wait may last.
//
// Under GOOS=js the browser's WebSocket sends no pings (it answers the
// server's itself): Pings does nothing there.
type Pings struct {
	// Interval is how long the channel waits between pings; <= 0 sends
	// none. transport.Limits{}.WithDefaults().PingInterval (30 s) is the interval of a Handler.
	Interval time.Duration

	// Timeout is how long the server may take to answer a ping before the
	// channel closes the connection (at once, with no close handshake)
	// and its reads fail. Only time during which the channel reads
	// counts (see transport.Limits.PongTimeout). 0 means
	// transport.Limits{}.WithDefaults().PongTimeout (15 s); a negative value sends no pings.
	Timeout time.Duration
}

// DialWith is Dial with pings of the server (see Pings).
func DialWith(ctx context.Context, url string, opts *websocket.DialOptions, pings Pings) (transport.Carrier, error) {
	conn, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return transport.Carrier{}, err
	}
	conn.SetReadLimit(dialMaxMessage)
	ctx, cancel := context.WithCancel(context.Background())
	c := &channel{conn: conn, ctx: ctx, cancel: cancel}
	if pings.Interval > 0 {
		if pings.Timeout == 0 {
			pings.Timeout = transport.Limits{}.WithDefaults().PongTimeout
		}
		c.timeout = pings.Timeout
		c.pings = newPinger(pings.Interval, pings.Timeout, c.missedPong)
		c.pings.start(conn)
	}
	return transport.Carrier{Conn: c}, nil
}

type channel struct {
	conn    *websocket.Conn
	ctx     context.Context // ends reads when the channel closes
	cancel  context.CancelFunc
	pings   *pinger       // nil: none
	timeout time.Duration // the pings' Timeout
	missed  atomic.Bool   // the server missed a pong: the connection is closed
}

// missedPong closes the connection whose server missed a pong, at once:
// a server that does not answer would not answer a close frame either.
func (c *channel) missedPong(bool) {
	c.missed.Store(true)
	c.conn.CloseNow()
}

// Write writes msg as one message. The call's ctx only decides whether to
// start: the write itself runs under the channel's context, because the
// WebSocket library closes the connection when the context of a write ends
// during it, and one call's cancellation must not break the connection of
// the others.
func (c *channel) Write(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	began := c.pings.beginWrite()
	err := c.conn.Write(c.ctx, websocket.MessageText, msg)
	c.pings.endWrite(began)
	return err
}

// Flush does nothing: Write sends each message whole.
func (c *channel) Flush() error { return nil }

// Read returns the next message. Once the server has missed a pong, it
// fails with an error that says so.
func (c *channel) Read() ([]byte, error) {
	c.pings.beginRead()
	_, msg, err := c.conn.Read(c.ctx)
	c.pings.endRead()
	if err != nil && c.missed.Load() {
		err = fmt.Errorf("ws: the server did not answer a ping within %v: %w", c.timeout, err)
	}
	return msg, err
}

func (c *channel) Close() error {
	c.cancel()
	err := c.conn.Close(websocket.StatusNormalClosure, "")
	c.pings.end()
	if errors.Is(err, context.Canceled) || c.missed.Load() {
		return nil
	}
	return err
}
