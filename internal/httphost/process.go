package httphost

import (
	"context"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// ErrGoexit answers the calls of a document whose method ended the host's
// goroutine with runtime.Goexit instead of returning, as the connection
// core (package peer) answers them.
var ErrGoexit = jsonrpc.NewError(jsonrpc.CodeInternalError, "").WithData("the call ended without returning (runtime.Goexit)")

// Process answers req with h.ProcessAsync(ctx, dst, req, reply) and waits
// for done, which reply signals once it has written the answer.
//
// A method that is not Blocking runs on the goroutine that calls Process,
// and may end it with runtime.Goexit: the HTTP servers then neither answer
// nor, for fasthttp, close the connection, whose descriptor stays open.
// Process sees the goroutine end and calls abandoned in its last moments,
// with the answer in the method's place (ErrGoexit for each call of req
// that has an id; nil when reply had written the answer already), so that
// the host writes it and ends the connection, which no server goroutine
// serves any more. req must stay valid until then: the host keeps its
// buffer out of its pools. A panic that reaches Process (the methods' are
// recovered by the Server) goes on as it came, to the HTTP server.
func Process(ctx context.Context, h transport.Handler, dst, req []byte, reply func([]byte), done <-chan struct{}, abandoned func(answer []byte)) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if p := recover(); p != nil {
			panic(p) // a panic of the handler's or reply's goes on as it came
		}
		select {
		case <-done:
			abandoned(nil)
		default:
			abandoned(transport.AppendErrors(nil, req, ErrGoexit))
		}
	}()
	h.ProcessAsync(ctx, dst, req, reply)
	<-done
	returned = true
}
