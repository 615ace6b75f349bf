package ws

import (
	"context"
	"errors"

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
// its defaults.
func Dial(ctx context.Context, url string, opts *websocket.DialOptions) (transport.Carrier, error) {
	conn, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return transport.Carrier{}, err
	}
	conn.SetReadLimit(dialMaxMessage)
	ctx, cancel := context.WithCancel(context.Background())
	return transport.Carrier{Conn: &channel{conn: conn, ctx: ctx, cancel: cancel}}, nil
}

type channel struct {
	conn   *websocket.Conn
	ctx    context.Context // ends reads when the channel closes
	cancel context.CancelFunc
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
	return c.conn.Write(c.ctx, websocket.MessageText, msg)
}

// Flush does nothing: Write sends each message whole.
func (c *channel) Flush() error { return nil }

func (c *channel) Read() ([]byte, error) {
	_, msg, err := c.conn.Read(c.ctx)
	return msg, err
}

func (c *channel) Close() error {
	c.cancel()
	err := c.conn.Close(websocket.StatusNormalClosure, "")
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
