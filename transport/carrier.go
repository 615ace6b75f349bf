package transport

import (
	"encoding/json"
	"fmt"

	"github.com/jsonrpc-go/jsonrpc"
)

// A Carrier is a Conn and what it declares of itself: what a two-way
// connection (peer.New) runs on and a client (client.New) calls over. The
// carriers of this module's hosts and dialers come with their Traits set;
// a Conn of a program's own is carried as Carrier{Conn: c}, whose zero
// Traits ask nothing of it beyond its four methods.
type Carrier struct {
	Conn
	Traits
}

// Traits declare what a Conn can do beyond its interface, once, when it is
// made. The connection that runs on it reads them; it never looks for
// methods of the Conn's own, and the Conn never calls the connection. The
// zero Traits are right for any Conn.
type Traits struct {
	// Ready, when set, reports whether Read would return without waiting
	// for input: a whole message is buffered (or Read would fail at once).
	// The connection sends what it has answered before each Read that
	// may wait, and reads on first while Ready is true, so that a burst
	// of messages is answered with few writes. It is called by the
	// goroutine that calls Read, between Reads. nil: any Read may wait,
	// and the connection sends its answers before each. The Readers of
	// package framing have a Ready method for this.
	Ready func() bool

	// Exchanges says that each message travels in an exchange of its own,
	// as an HTTP client sends each in a request: Write may take as long as
	// the exchange, and is called by every goroutine that sends, at once,
	// so that no message waits for another's exchange.
	Exchanges bool

	// InputInHand says that Read never waits for the peer to read what
	// Write sends, as the one request of an HTTP exchange is read whole
	// before it is answered: a two-way connection's read loop then writes
	// its answers itself, where it otherwise leaves them to a writer
	// goroutine (a read loop blocked writing to a peer blocked writing to
	// it would never read again).
	InputInHand bool

	// Classified, when set, is the classification of the message the
	// carrier's first Read returns (the same bytes), by a carrier that
	// read that message whole and classified it before the connection
	// began (the Streamable HTTP host, to route the request): the
	// connection takes it rather than scan the message again. It is read
	// once, by the goroutine that calls Read.
	Classified *jsonrpc.Request

	// Clock, when set, times the Conn's reads (see ReadClock): the
	// connection tells it when calls are in flight and when none is, so
	// that the wait for the next message times out only once the
	// connection is idle. nil: the Conn's reads are not timed.
	Clock *ReadClock
}

// A MessageError is the error of a Conn's Read that refused a message in
// place of returning it, such as one over the Conn's size limit or one its
// host had no memory for. The connection answers it, in that message's
// turn, with an error response carrying Err under the message's id (ID),
// with the code its protocol gives a refusal, and calls Read again when
// Recoverable; otherwise the MessageError ends the connection as any other
// error of Read does.
type MessageError struct {
	// Err is the error the answer carries: a code and data saying why,
	// such as jsonrpc.CodeLimitExceeded and "message exceeds the limit of
	// 4194304 bytes".
	Err *jsonrpc.Error
	// ID is the refused message's id as sent, when the Conn found one,
	// or nil: the answer then has a null id.
	ID json.RawMessage
	// Recoverable says that the message was skipped and the next one can
	// be read.
	Recoverable bool
	// Cause is the Conn's own error (a *framing.TooLargeError), which
	// Unwrap returns.
	Cause error
}

func (e *MessageError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("transport: message refused: %v", e.Cause)
	}
	return "transport: message refused: " + e.Err.Error()
}

// Unwrap returns Cause.
func (e *MessageError) Unwrap() error { return e.Cause }
