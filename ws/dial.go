package ws

import (
	"context"
	"errors"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc/client"
)

// Dial connects to a JSON-RPC server over WebSocket at url and returns the
// channel for a client.New, which reads messages of up to
// client.DefaultMaxMessage bytes (64 MiB); a longer one closes the
// connection with status 1009 and fails the client's calls. opts are passed
// to websocket.Dial; nil uses its defaults.
func Dial(ctx context.Context, url string, opts *websocket.DialOptions) (client.Channel, error) {
	conn, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(client.DefaultMaxMessage)
	ctx, cancel := context.WithCancel(context.Background())
	return &channel{conn: conn, ctx: ctx, cancel: cancel}, nil
}

type channel struct {
	conn   *websocket.Conn
	ctx    context.Context // ends reads when the channel closes
	cancel context.CancelFunc
}

// Send writes msg. The call's ctx only decides whether to start: the write
// itself runs under the channel's context, because the WebSocket library
// closes the connection when the context of a write ends during it, and one
// call's cancellation must not break the connection of the others.
func (c *channel) Send(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.conn.Write(c.ctx, websocket.MessageText, msg)
}

func (c *channel) Recv() ([]byte, error) {
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
