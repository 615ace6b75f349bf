package peer

import (
	"time"

	"github.com/jsonrpc-go/jsonrpc/framing"
)

// The defaults of Limits, for every host and Conn.
const (
	// DefaultMaxMessage is the default of Limits.MaxMessage.
	DefaultMaxMessage = framing.DefaultMaxMessage
	// DefaultMaxBuffered is the default of Limits.MaxBuffered.
	DefaultMaxBuffered = 64 << 20
	// DefaultMaxConns is the default of Limits.MaxConns.
	DefaultMaxConns = 4096
	// DefaultMaxInFlight is the default of Limits.MaxInFlight.
	DefaultMaxInFlight = 64
	// DefaultMaxQueued is the default of Limits.MaxQueued.
	DefaultMaxQueued = 4 << 20
	// DefaultMaxPush is the default of Limits.MaxPush.
	DefaultMaxPush = 256
	// DefaultMaxPushBytes is the default of Limits.MaxPushBytes.
	DefaultMaxPushBytes = 1 << 20
	// DefaultMaxSubscriptions is the default of Limits.MaxSubscriptions.
	DefaultMaxSubscriptions = 1024
	// DefaultMaxSequences is the default of Limits.MaxSequences.
	DefaultMaxSequences = 256
	// DefaultMaxSeqItems is the default of Limits.MaxSeqItems.
	DefaultMaxSeqItems = 64
	// DefaultIdleTimeout is the default of Limits.IdleTimeout.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultReadTimeout is the default of Limits.ReadTimeout.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout is the default of Limits.WriteTimeout.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultPingInterval is the default of Limits.PingInterval.
	DefaultPingInterval = 30 * time.Second
	// DefaultPongTimeout is the default of Limits.PongTimeout.
	DefaultPongTimeout = 15 * time.Second
)

// Limits bound what the connections of a host (stream.Server, ws.Handler)
// and each Conn may hold and how long they may wait. It is one type,
// embedded in each host and in Options, so that a limit means the same on
// every connection: the zero value of each field means its default (the
// constants above), and a negative timeout means none. Each host's
// documentation says what its peer sees when a limit is reached (an error
// answer, or a close status over WebSocket).
//
// MaxMessage, MaxBuffered, MaxConns, WriteTimeout, PingInterval and
// PongTimeout are the host's: its transport reads and writes the bytes,
// counts the connections and pings the peers. A Conn applies the others
// itself.
type Limits struct {
	// MaxMessage is the size limit of one incoming message, in bytes;
	// <= 0 means DefaultMaxMessage (4 MiB). Nothing is ever allocated
	// from a length the peer declares beyond it.
	MaxMessage int

	// MaxBuffered bounds the memory that messages larger than 64 KiB hold
	// while they are read, over all the host's connections together,
	// counting twice the bytes read past 64 KiB (a buffer that grows as
	// they arrive holds up to that); <= 0 means DefaultMaxBuffered
	// (64 MiB). A message that would pass it is refused and its
	// connection closed, so that peers that send large messages slowly
	// cannot hold MaxConns × MaxMessage bytes between them. Messages up to
	// 64 KiB do not count.
	MaxBuffered int64

	// MaxConns is how many connections the host serves at once; <= 0
	// means DefaultMaxConns (4096). The connections being served are not
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
	// to run; <= 0 means DefaultMaxInFlight (64). Past it, and while the
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
	// wait to run (see MaxInFlight); <= 0 means DefaultMaxQueued (4 MiB).
	MaxQueued int

	// MaxPush bounds the notifications a connection holds waiting to be
	// sent by Conn.Push and Topic.Publish; <= 0 means DefaultMaxPush
	// (256). Past it they are dropped for that connection only (see
	// Topic's Overflow).
	MaxPush int

	// MaxPushBytes bounds the bytes of those notifications; <= 0 means
	// DefaultMaxPushBytes (1 MiB), so that a peer that does not read holds
	// at most that much of them. One notification larger than it is sent
	// when none waits.
	MaxPushBytes int

	// MaxSubscriptions bounds the Topic subscriptions of one connection
	// that last at once; <= 0 means DefaultMaxSubscriptions (1024). Past
	// it Topic.Subscribe fails with ErrTooManySubscriptions.
	MaxSubscriptions int

	// MaxSequences bounds the sequence results of one connection open at
	// once, each waiting for its consumer to pull its next items
	// ($/enumerator/next); <= 0 means DefaultMaxSequences (256). Past it a
	// call whose result is a sequence with more items than its first
	// answer carries is answered with jsonrpc.CodeLimitExceeded, and its
	// sequence stopped.
	MaxSequences int

	// MaxSeqItems bounds the items of a sequence result that one answer
	// carries (the first, and each to $/enumerator/next); <= 0 means
	// DefaultMaxSeqItems (64). An answer also ends its items once they
	// take 64 KiB. 1 pulls the producer one item at a time, as
	// StreamJsonRpc's default does.
	MaxSeqItems int

	// IdleTimeout is how long a connection with no call in flight may wait
	// for its next message to begin before it is closed (the wait starts
	// when the last call in flight is answered, so a call that runs longer
	// is not cut off). 0 means DefaultIdleTimeout (2 minutes); a negative
	// value, none.
	IdleTimeout time.Duration

	// ReadTimeout bounds the time to read one message once it has begun,
	// so that a peer that stalls inside a message cannot hold the
	// connection's buffers for ever. 0 means DefaultReadTimeout (30 s); a
	// negative value, none.
	ReadTimeout time.Duration

	// WriteTimeout bounds each write to the connection: a peer that does
	// not read what it is sent is disconnected when it expires, and never
	// holds up other connections. 0 means DefaultWriteTimeout (30 s); a
	// negative value, none.
	WriteTimeout time.Duration

	// PingInterval is how long a connection whose transport has pings of
	// its own (WebSocket) waits between pings of its peer, so that a peer
	// that went away without closing (a machine asleep, a network path
	// dropped) is noticed even while calls are in flight, which hold the
	// connection past IdleTimeout. 0 means DefaultPingInterval (30 s); a
	// negative value sends no pings.
	PingInterval time.Duration

	// PongTimeout is how long the peer may take to answer a ping before
	// its connection is closed. Only time during which the connection
	// reads counts: a peer cannot be heard while its connection has paused
	// its reading (MaxInFlight, or a method that runs on the reading
	// goroutine), so a live peer is never closed for that. 0 means
	// DefaultPongTimeout (15 s); a negative value sends no pings.
	PongTimeout time.Duration
}

// WithDefaults returns l with each field that means its default (a size
// <= 0, a timeout of 0) set to that default. A negative timeout stays
// negative: none.
func (l Limits) WithDefaults() Limits {
	size(&l.MaxMessage, DefaultMaxMessage)
	size(&l.MaxBuffered, DefaultMaxBuffered)
	size(&l.MaxConns, DefaultMaxConns)
	size(&l.MaxConnsPerClient, max(l.MaxConns/2, 1))
	size(&l.MaxInFlight, DefaultMaxInFlight)
	size(&l.MaxQueued, DefaultMaxQueued)
	size(&l.MaxPush, DefaultMaxPush)
	size(&l.MaxPushBytes, DefaultMaxPushBytes)
	size(&l.MaxSubscriptions, DefaultMaxSubscriptions)
	size(&l.MaxSequences, DefaultMaxSequences)
	size(&l.MaxSeqItems, DefaultMaxSeqItems)
	timeout(&l.IdleTimeout, DefaultIdleTimeout)
	timeout(&l.ReadTimeout, DefaultReadTimeout)
	timeout(&l.WriteTimeout, DefaultWriteTimeout)
	timeout(&l.PingInterval, DefaultPingInterval)
	timeout(&l.PongTimeout, DefaultPongTimeout)
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
