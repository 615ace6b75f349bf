package peer

// Ordering says in which order a Conn runs the peer's messages. Methods
// not registered with jsonrpc.Blocking always run at once, on the
// goroutine that reads the connection, so that a burst of them is answered
// in order and at the cost of jsonrpc.Server.ProcessAsync; the Ordering
// decides what happens while calls of Blocking methods run on goroutines
// of their own. Whatever the Ordering, the answers to the Conn's own calls
// and the peer's cancel notifications are handled as soon as they are
// read, never behind a method.
type Ordering int

const (
	// Ordered runs calls concurrently, up to MaxInFlight, and
	// notifications in order: a notification that runs on makes every
	// later message wait until it returns, so that the changes it makes
	// (an editor's edit of a document) are seen by the calls that follow
	// it. It is the default.
	Ordered Ordering = iota
	// Sequential runs the peer's messages one after another: a message
	// waits until the one before it has been answered, and the answers
	// come in the order of the requests.
	Sequential
	// Concurrent runs every message at once, up to MaxInFlight; answers
	// come as they are ready.
	Concurrent
)

func (o Ordering) String() string {
	switch o {
	case Ordered:
		return "Ordered"
	case Sequential:
		return "Sequential"
	case Concurrent:
		return "Concurrent"
	}
	return "Ordering(?)"
}

// A policy is an Ordering at work: admit says whether the next message
// may start, and barrier whether a message that runs on holds back those
// after it.
type policy interface {
	admit(st *state, maxInFlight int) bool
	barrier(in *incoming) bool
}

func (o Ordering) policy() policy {
	switch o {
	case Sequential:
		return sequential{}
	case Concurrent:
		return concurrent{}
	}
	return ordered{}
}

type ordered struct{}

func (ordered) admit(st *state, max int) bool { return st.barriers == 0 && st.running < max }
func (ordered) barrier(in *incoming) bool     { return in.notify }

type sequential struct{}

func (sequential) admit(st *state, _ int) bool { return st.running == 0 }
func (sequential) barrier(*incoming) bool      { return true }

type concurrent struct{}

func (concurrent) admit(st *state, max int) bool { return st.running < max }
func (concurrent) barrier(*incoming) bool        { return false }
