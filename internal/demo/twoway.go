package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
)

// The methods of RegisterTwoWay need a two-way connection (package peer):
// over TCP, WebSocket and Streamable HTTP (package streamhttp: a POST's
// own connection, or its session's) they reach the caller's connection
// through their context; over plain HTTP (httprpc, fasthttprpc) they fail
// with errNoConn.

// errNoConn answers a call of a two-way method that came over no two-way
// connection.
var errNoConn = jsonrpc.NewError(jsonrpc.CodeServerError, "").WithData("the method needs a two-way connection, such as TCP or WebSocket")

// A Feed is a topic that the clients of a server subscribe to and publish
// on (a pubsub.Topic): each value published goes to every connection
// subscribed, as the notification
//
//	{"jsonrpc":"2.0","method":"subscription","params":{"subscription":ID,"result":VALUE}}
//
// A connection that does not read keeps its notifications in its push
// queue (transport.Limits.MaxPush, MaxPushBytes), past which they are dropped
// for it alone. With a Broker (SetBroker) the Feeds of several servers
// are one: what is published on any reaches the subscribers of all.
// NewFeed makes one; a Feed is safe for concurrent use by multiple
// goroutines.
type Feed struct {
	topic pubsub.Topic
}

// NewFeed returns a Feed with no subscribers.
func NewFeed() *Feed {
	return &Feed{topic: pubsub.Topic{Method: FeedMethod}}
}

// FeedSubject is the subject of a Feed's values on its Broker.
const FeedSubject = "jsonrpc.demo.feed"

// SetBroker makes b carry the Feed's values between processes (the
// pubsub.Topic's Broker, under FeedSubject): the Feeds of the servers that
// share b's message broker are then one feed, and Publish answers 0, the
// value being on its way to every server's subscribers. It must be
// called before the Feed is used; nil (the default) keeps the Feed to
// its own server's subscribers.
func (f *Feed) SetBroker(b pubsub.Broker) {
	f.topic.Broker = b
	f.topic.Subject = FeedSubject
}

// Close ends every subscription to the Feed, and its subscription to its
// Broker.
func (f *Feed) Close() { f.topic.Close() }

// FeedMethod is the method of a Feed's notifications.
const FeedMethod = "subscription"

// MaxPublish is the largest value Publish sends, in bytes: 1 MiB.
const MaxPublish = 1 << 20

// Subscribe subscribes the connection of the call to the feed and returns
// the subscription's id. Past the connection's MaxSubscriptions it fails
// with pubsub.ErrTooManySubscriptions (-32005).
func (f *Feed) Subscribe(ctx context.Context) (string, error) {
	sub, err := f.topic.Subscribe(ctx)
	if errors.Is(err, pubsub.ErrNoConn) {
		return "", errNoConn
	}
	if err != nil {
		return "", err
	}
	return sub.ID(), nil
}

// Unsubscribe ends the subscription with id and reports whether there was
// one.
func (f *Feed) Unsubscribe(id string) bool { return f.topic.Unsubscribe(id) }

// Publish sends s repeated n times, up to MaxPublish bytes, to every
// subscriber, and returns to how many it was queued (0 with a Broker,
// once the Broker has taken it). When the Broker fails, its error matches
// pubsub.ErrBrokerUnavailable, and the call is answered "Broker
// unavailable" with the subject as data, under the code of the call's
// connection for a call it could not serve for now.
func (f *Feed) Publish(ctx context.Context, s string, n int) (int, error) {
	if n < 0 || len(s)*n > MaxPublish {
		return 0, jsonrpc.ErrInvalidParams.WithData(fmt.Sprintf("the value would exceed %d bytes", MaxPublish))
	}
	return f.topic.PublishContext(ctx, strings.Repeat(s, n))
}

// Len returns the number of subscriptions.
func (f *Feed) Len() int { return f.topic.Len() }

// ProgressParams are the params of Progress: the number of reports, and
// the caller's progress token where the connection's peer.Protocol looks
// for it (peer.ProgressOf): in workDoneToken under lsp.Protocol(), in
// _meta.progressToken under mcp.Protocol().
type ProgressParams struct {
	Steps         int             `json:"steps"`
	WorkDoneToken json.RawMessage `json:"workDoneToken,omitempty"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// MaxSteps is the most reports Progress sends.
const MaxSteps = 1000

// Progress reports its progress p.Steps times, each report's value
// {"progress": i, "total": steps} (mcp.Progress), and returns the
// number of reports sent. It reports nothing, and returns 0, when the call
// carries no token its connection's Protocol takes: over plain HTTP, under the
// zero Protocol, or with a token that is too long (progress.MaxToken).
// It is registered Blocking, as progress.
func Progress(ctx context.Context, p ProgressParams) (int, error) {
	if p.Steps < 0 || p.Steps > MaxSteps {
		return 0, jsonrpc.ErrInvalidParams.WithData(fmt.Sprintf("steps must be from 0 to %d", MaxSteps))
	}
	pr := progress.Of(ctx)
	if pr == nil {
		return 0, nil
	}
	for i := range p.Steps {
		if err := pr.Report(ctx, mcp.Progress{Progress: float64(i + 1), Total: float64(p.Steps)}); err != nil {
			return i, err
		}
	}
	return p.Steps, nil
}

// Callback calls method on the caller, with params, over the connection
// the call came on, and returns the caller's result; an error answer is
// returned as the caller sent it. It is registered Blocking, as callback,
// since it waits for the caller's answer; a call that runs on the
// connection's own goroutine (past jsonrpc.Limits.MaxRunning) cannot, and
// fails (peer.ErrNotBlocking).
func Callback(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	c := peer.FromContext(ctx)
	if c == nil {
		return nil, errNoConn
	}
	return c.CallRaw(ctx, method, params)
}

// RegisterTwoWay adds the methods of two-way connections to s: subscribe,
// unsubscribe and publish, on the Feed it returns; progress (Progress) and
// callback (Callback). cmd/jsonrpcd serves them beside Register's.
func RegisterTwoWay(s *jsonrpc.Server) (*Feed, error) {
	f := NewFeed()
	for _, m := range []struct {
		name string
		fn   any
		opts []jsonrpc.MethodOption
	}{
		{"subscribe", f.Subscribe, nil},
		{"unsubscribe", f.Unsubscribe, []jsonrpc.MethodOption{jsonrpc.ParamNames("id")}},
		{"publish", f.Publish, []jsonrpc.MethodOption{jsonrpc.ParamNames("s", "n")}},
		{"progress", Progress, []jsonrpc.MethodOption{jsonrpc.Blocking()}},
		{"callback", Callback, []jsonrpc.MethodOption{jsonrpc.Blocking(), jsonrpc.ParamNames("method", "params")}},
	} {
		if err := s.Register(m.name, m.fn, m.opts...); err != nil {
			return nil, err
		}
	}
	return f, nil
}
