package keys

import (
	"context"
	"errors"
)

// Sequencer is the context key of the sender of a call's sequence result
// (a SeqSender), which the connection a call came over puts in its
// context.
type Sequencer struct{}

// Items is a sequence result being sent: the items a method's iter.Seq or
// iter.Seq2 yields, pulled one at a time, by one goroutine at a time.
type Items interface {
	// Next appends the JSON of the next item to dst. At the end it returns
	// ok false and a nil error; when the method yields an error, or an
	// item cannot be encoded, ok false and the error.
	Next(dst []byte) (out []byte, ok bool, err error)
	// Stop ends the sequence early: the method's yield returns false. It
	// may be called more than once, and after the end.
	Stop()
}

// A SeqSender sends a call's sequence result as its connection's
// protocol shapes it. Send appends the JSON of the call's result to dst
// (which the call's answer then carries), or returns an error to answer
// with; it owns items from then on, and stops them when it is done with
// them. ctx is the call's.
//
// A sender that does not stream this call's items returns
// ErrNotStreamed, having used none of them: they are collected into one
// array instead.
type SeqSender interface {
	SendSeq(ctx context.Context, dst []byte, items Items) ([]byte, error)
}

// ErrNotStreamed is what a SeqSender returns for a call whose items it
// leaves to be collected.
var ErrNotStreamed = errors.New("the sequence is not streamed")
