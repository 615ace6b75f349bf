package transport

import (
	"time"

	"github.com/jsonrpc-go/jsonrpc/framing"
)

// The defaults of Limits, for every host and peer.Conn (each field says
// its own).
const (
	defaultMaxMessage       = framing.DefaultMaxMessage
	defaultMaxBuffered      = 64 << 20
	defaultMaxConns         = 4096
	defaultMaxInFlight      = 64
	defaultMaxQueued        = 4 << 20
	defaultMaxPush          = 256
	defaultMaxPushBytes     = 1 << 20
	defaultMaxSubscriptions = 1024
	defaultMaxSequences     = 256
	defaultMaxSeqItems      = 64
	defaultMaxSeqBytes      = 1 << 20
	defaultIdleTimeout      = 2 * time.Minute
	defaultReadTimeout      = 30 * time.Second
	defaultWriteTimeout     = 30 * time.Second
	defaultPingInterval     = 30 * time.Second
	defaultPongTimeout      = 15 * time.Second
)

// Limits bound what the connections of a host (stream.Server, ws.Handler,
// streamhttp.Handler) and each peer.Conn may hold and how long they may
// wait. It is one type, embedded in each host and in peer.Options, so that
// a limit means the same on every connection: the zero value of each field means its default (each
// field says which), and a negative timeout means none. Each host's
// documentation says what its peer sees when a limit is reached (an error
// answer, or a close status over WebSocket).
//
// MaxMessage, MaxBuffered, MaxConns, WriteTimeout, PingInterval and
// PongTimeout are the host's: its transport reads and writes the bytes,
// counts the connections and pings the peers. The Conn applies
// MaxInFlight, MaxQueued, MaxPush and MaxPushBytes itself; package pubsub
// applies MaxSubscriptions, package protocol/enumerator MaxSequences and
// MaxSeqItems.
type Limits struct {
	// MaxMessage is the size limit of one incoming message, in bytes;
	// <= 0 means 4 MiB. Nothing is ever allocated
	// from a length the peer declares beyond it.
	MaxMessage int

	// MaxBuffered bounds the memory that messages larger than 64 KiB hold
	// while they are read, over all the host's connections together,
	// counting twice the bytes read past 64 KiB (a buffer that grows as
	// they arrive holds up to that); <= 0 means 64 MiB.
	// A message that would pass it is refused and its
	// connection closed, so that peers that send large messages slowly
	// cannot hold MaxConns × MaxMessage bytes between them. Messages up to
	// 64 KiB do not count.
	MaxBuffered int64

	// MaxConns is how many connections the host serves at once; <= 0
	// means 4096. The connections being served are not
	// affected by one refused or held back.
	MaxConns int

	// MaxConnsPerClient is how many of them one client may hold at once;
	// <= 0 means half of MaxConns (at least 1), so that one client cannot
	// take every connection and lock the others out; set it to MaxConns
	// to give no client a share of its own. A client is its remote IP
	// address unless the host is given a key of its own (behind a proxy,
	// every connection comes from the proxy's address: give the host the
	// key the proxy's headers carry). A connection past its client's
	// share is refused at once, as each host documents.
	MaxConnsPerClient int

	// MaxInFlight is how many messages (a call, a notification or a
	// batch) of one connection may run on goroutines of their own at once
	// (methods registered jsonrpc.Blocking), and how many more may wait
	// to run; <= 0 means 64. Past it, and while the
	// Order holds messages back, messages wait in a queue of up to
	// MaxInFlight messages and MaxQueued bytes; when that is full the
	// Conn stops reading until a message finishes, unless a call of its
	// own waits for an answer, in which case it goes on reading and
	// answers the calls it has no room for with jsonrpc.CodeLimitExceeded
	// ("too many calls in flight"), so that the answer it waits for is
	// not stuck behind them. Nothing is lost. The goroutines of the calls
	// are bounded, for all connections together, by the Server's
	// jsonrpc.Limits.MaxRunning, past which a call runs on the goroutine
	// that reads the connection, which stops reading meanwhile.
	MaxInFlight int

	// MaxQueued bounds the bytes of the messages of one connection that
	// wait to run (see MaxInFlight); <= 0 means 4 MiB. It also bounds
	// the bytes waiting to be written to a peer that reads slowly or not
	// at all: past it, the answer of a call that ran on a goroutine of
	// its own, and what such a call sends its peer (notifications,
	// partial results, calls), wait for the connection to write what
	// waits before them, so that the call stays in flight (MaxInFlight)
	// and the connection stops reading, as a single call is held back by
	// its own write. Notifications of Push and Publish are bounded by
	// MaxPush and MaxPushBytes instead.
	MaxQueued int

	// MaxPush bounds the notifications a connection holds waiting to be
	// sent by peer.Conn.Push and pubsub.Topic.Publish; <= 0 means 256.
	// Past it they are dropped for that connection only (see
	// pubsub.Topic's Overflow).
	MaxPush int

	// MaxPushBytes bounds the bytes of those notifications; <= 0 means
	// 1 MiB, so that a peer that does not read holds
	// at most that much of them. One notification larger than it is sent
	// when none waits.
	MaxPushBytes int

	// MaxSubscriptions bounds the pubsub.Topic subscriptions of one connection
	// that last at once; <= 0 means 1024. Past
	// it Topic.Subscribe fails with pubsub.ErrTooManySubscriptions.
	MaxSubscriptions int

	// MaxSequences bounds the sequence results of one connection open at
	// once, each waiting for its consumer to pull its next items
	// ($/enumerator/next); <= 0 means 256. Past it a
	// call whose result is a sequence with more items than its first
	// answer carries is answered with jsonrpc.CodeLimitExceeded, and its
	// sequence stopped. An open sequence also counts as a running call
	// of its server, over all connections, and of its client
	// (jsonrpc.Limits.MaxRunning and MaxRunningPerClient): its producer
	// keeps the share its call held, and past either the sequence is
	// refused alike.
	MaxSequences int

	// MaxSeqItems bounds the items of a sequence result that one answer
	// carries (the first, and each to $/enumerator/next); <= 0 means
	// 64. An answer also ends its items once they
	// take 64 KiB. 1 pulls the producer one item at a time, as
	// StreamJsonRpc's default does.
	MaxSeqItems int

	// MaxSeqBytes bounds the bytes of the items of sequence results that
	// one connection has produced and not yet sent (its answers and
	// partial results not yet written, or queued within MaxQueued);
	// <= 0 means 1 MiB. A producer waits for the connection to take what
	// waits before it makes its next item (an answer that has items goes
	// without waiting), and at most 4 of a connection's sequences make an
	// item at once, so that a peer that does not read holds at most this
	// many bytes and 4 items of them. The items of a live sequence
	// (pubsub.Topic.Values) count, but wait only for the bytes.
	MaxSeqBytes int

	// IdleTimeout is how long a connection with no call in flight may wait
	// for its next message to begin before it is closed (the wait starts
	// when the last call in flight is answered, so a call that runs longer
	// is not cut off). 0 means 2 minutes; a negative
	// value, none.
	IdleTimeout time.Duration

	// ReadTimeout bounds the time to read one message once it has begun,
	// so that a peer that stalls inside a message cannot hold the
	// connection's buffers for ever. 0 means 30 s; a
	// negative value, none.
	ReadTimeout time.Duration

	// WriteTimeout bounds each write to the connection: a peer that does
	// not read what it is sent is disconnected when it expires, and never
	// holds up other connections. 0 means 30 s; a
	// negative value, none.
	WriteTimeout time.Duration

	// PingInterval is how long a connection whose transport has pings of
	// its own (WebSocket) waits between pings of its peer, so that a peer
	// that went away without closing (a machine asleep, a network path
	// dropped) is noticed even while calls are in flight, which hold the
	// connection past IdleTimeout. 0 means 30 s; a
	// negative value sends no pings.
	PingInterval time.Duration

	// PongTimeout is how long the peer may take to answer a ping before
	// its connection is closed. Only time during which the connection
	// reads counts: a peer cannot be heard while its connection has paused
	// its reading (MaxInFlight, or a method that runs on the reading
	// goroutine), so a live peer is never closed for that. 0 means
	// 15 s; a negative value sends no pings.
	PongTimeout time.Duration
}

// WithDefaults returns l with each field that means its default (a size
// <= 0, a timeout of 0) set to that default. A negative timeout stays
// negative: none.
func (l Limits) WithDefaults() Limits {
	size(&l.MaxMessage, defaultMaxMessage)
	size(&l.MaxBuffered, defaultMaxBuffered)
	size(&l.MaxConns, defaultMaxConns)
	size(&l.MaxConnsPerClient, max(l.MaxConns/2, 1))
	size(&l.MaxInFlight, defaultMaxInFlight)
	size(&l.MaxQueued, defaultMaxQueued)
	size(&l.MaxPush, defaultMaxPush)
	size(&l.MaxPushBytes, defaultMaxPushBytes)
	size(&l.MaxSubscriptions, defaultMaxSubscriptions)
	size(&l.MaxSequences, defaultMaxSequences)
	size(&l.MaxSeqItems, defaultMaxSeqItems)
	size(&l.MaxSeqBytes, defaultMaxSeqBytes)
	timeout(&l.IdleTimeout, defaultIdleTimeout)
	timeout(&l.ReadTimeout, defaultReadTimeout)
	timeout(&l.WriteTimeout, defaultWriteTimeout)
	timeout(&l.PingInterval, defaultPingInterval)
	timeout(&l.PongTimeout, defaultPongTimeout)
	return l
}

func size[T int | int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

func timeout(v *time.Duration, def time.Duration) {
	if *v == 0 {
		*v = def
	}
}
