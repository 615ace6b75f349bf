package pubsub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
)

// ErrBrokerUnavailable matches (errors.Is) the error of a Topic's
// Publish, PublishContext or Subscribe whose Broker failed: the value was
// not published, or the subscription not made, and the same call may
// succeed once the broker is back. The error also matches the Broker's
// own error, and holds (errors.As) the *jsonrpc.Error that a method
// returning it is answered with:
//
//   - the code of a call the server could not serve for now, not one of
//     its own: the Shutdown code of the codes of the context given to
//     PublishContext or Subscribe (those of the call's connection, under
//     its protocol's profile; jsonrpc.WithCodes), jsonrpc.CodeLimitExceeded
//     (-32005) by default;
//   - the message "Broker unavailable" (BrokerUnavailable);
//   - the data {"subject": S}, S the Topic's subject.
//
// A failure that is the context's own (cancelled, or its deadline passed)
// is not an outage: the error is the context's, answered as such.
var ErrBrokerUnavailable = errors.New("jsonrpc: broker unavailable")

// BrokerUnavailable is the message of the answer to a call whose Topic's
// Broker failed (see ErrBrokerUnavailable), by which a client tells a
// broker outage from the other answers of the same code.
const BrokerUnavailable = "Broker unavailable"

// brokerError is the error of a Topic whose Broker failed: its message
// says what failed, errors.Is matches ErrBrokerUnavailable and the
// Broker's error, and errors.As finds the answer.
type brokerError struct {
	op, subject string
	err         error          // the Broker's
	answer      *jsonrpc.Error // what a method returning it is answered with
}

func (e *brokerError) Error() string {
	return fmt.Sprintf("jsonrpc: broker unavailable: %s %q: %v", e.op, e.subject, e.err)
}

func (e *brokerError) Unwrap() []error { return []error{e.answer, ErrBrokerUnavailable, e.err} }

// brokerFailed returns the error of a Broker's failure err to op (publish
// or subscribe) subject under ctx: err wrapped as it is when it is ctx's
// own end, a brokerError otherwise.
func brokerFailed(ctx context.Context, op, subject string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return fmt.Errorf("jsonrpc: %s %q: %w", op, subject, err)
	}
	codes := jsonrpc.Codes{}
	if c, ok := ctx.Value(keys.Codes{}).(*jsonrpc.Codes); ok && c != nil {
		codes = *c
	}
	data, _ := json.Marshal(struct {
		Subject string `json:"subject"`
	}{subject})
	answer := &jsonrpc.Error{Code: codes.WithDefaults().Shutdown, Message: BrokerUnavailable, Data: data}
	return &brokerError{op: op, subject: subject, err: err, answer: answer}
}
