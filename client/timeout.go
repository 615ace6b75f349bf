package client

import (
	"context"
	"fmt"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// Timeout bounds each call, notification and batch of the client whose
// context has no deadline of its own to d, retries (Retry) and the waits
// between them included; d <= 0 sets no bound. A call it ends returns a
// *TimeoutError, which is both a JSON-RPC error and a context error:
//
//	var e *jsonrpc.Error
//	errors.As(err, &e)                         // e.Code == jsonrpc.CodeDeadline (-32010)
//	errors.Is(err, context.DeadlineExceeded)   // true
//
// A context with a deadline keeps it, and its expiry returns the context's
// error, as without the option.
func Timeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// A TimeoutError is the error of a call that the Timeout option ended. It
// wraps a *jsonrpc.Error with code jsonrpc.CodeDeadline (-32010), message
// "Deadline exceeded" (the code's standard message) and as data the string
// "<method>: no answer within the client's timeout of <d>", so that a
// caller that handles JSON-RPC errors handles it as one, and it wraps
// context.DeadlineExceeded, so that a caller that handles the end of its
// context handles it as that.
type TimeoutError struct {
	Method   string        // the method called ("batch" for a batch)
	Timeout  time.Duration // the Timeout option's
	Attempts int           // how many times the call was sent, or tried to be
	// Last is the error of the last attempt, when the timeout ended the
	// wait before the next one (Retry); nil when it ended an attempt.
	Last error

	rpc *jsonrpc.Error
}

func newTimeoutError(method string, d time.Duration, attempts int, last error) *TimeoutError {
	e := &TimeoutError{Method: method, Timeout: d, Attempts: attempts, Last: last}
	e.rpc = jsonrpc.NewError(jsonrpc.CodeDeadline, "").
		WithData(fmt.Sprintf("%s: no answer within the client's timeout of %v", method, d))
	return e
}

// Error returns the *jsonrpc.Error's text, with the last attempt's error
// when there is one:
//
//	jsonrpc: Deadline exceeded (-32010): add: no answer within the client's timeout of 2s
func (e *TimeoutError) Error() string {
	if e.Last != nil {
		return fmt.Sprintf("%s (after %d attempt(s); the last: %v)", e.rpc.Error(), e.Attempts, e.Last)
	}
	return e.rpc.Error()
}

// Unwrap returns the *jsonrpc.Error and context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() []error { return []error{e.rpc, context.DeadlineExceeded} }
