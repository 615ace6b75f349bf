package ws

import (
	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// ShutdownData is the data member of the error that answers a request a
// Handler received but did not start because it was shutting down; the
// error's code is jsonrpc.CodeLimitExceeded.
const ShutdownData = "server shutting down"

// maxRefusedBatch is the largest batch refused request by request, as
// jsonrpc.Limits.MaxBatch allows by default; a larger one is refused with one
// error, so that a refusal is never much larger than its request.
const maxRefusedBatch = 1024

// appendRefusal appends to dst the answer to the request document msg, which
// will not be run: an error with code jsonrpc.CodeLimitExceeded and data
// ShutdownData for each request with an id, with that id; none for a
// notification; and one error with id null for a document that holds no
// request (invalid JSON, an empty or oversized batch). It runs only while
// shutting down, and allocates.
func appendRefusal(dst, msg []byte) []byte {
	e := jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData(ShutdownData)
	var r wire.Request
	kind, err := wire.Scanner{}.ScanRequest(msg, &r)
	switch {
	case err != nil:
		return transport.AppendError(dst, e, nil)
	case kind != wire.Array:
		if id, answer := refusedID(kind, &r); answer {
			return transport.AppendError(dst, e, id)
		}
		return dst
	}
	arr := r.Value
	n := 0
	for _, pos, ok := wire.NextElement(arr, 0); ok; _, pos, ok = wire.NextElement(arr, pos) {
		n++
	}
	if n == 0 || n > maxRefusedBatch {
		return transport.AppendError(dst, e, nil)
	}
	start := len(dst)
	dst = append(dst, '[')
	for _, isObject, pos, ok := wire.NextRequest(arr, 0, &r); ok; _, isObject, pos, ok = wire.NextRequest(arr, pos, &r) {
		kind := wire.Object
		if !isObject {
			kind = wire.Invalid
		}
		id, answer := refusedID(kind, &r)
		if !answer {
			continue
		}
		if len(dst) > start+1 {
			dst = append(dst, ',')
		}
		dst = transport.AppendError(dst, e, id)
	}
	if len(dst) == start+1 {
		return dst[:start] // notifications only
	}
	return append(dst, ']')
}

// refusedID returns the id to answer a refused request with (nil for null),
// and whether it is answered at all: a notification, a valid request without
// an id, is not. kind is the request's kind; r holds its members when it is
// an object.
func refusedID(kind wire.Kind, r *wire.Request) (id []byte, answer bool) {
	switch {
	case kind != wire.Object || r.Dup:
		return nil, true
	case r.ID != nil:
		switch wire.KindOf(r.ID) {
		case wire.String, wire.Number, wire.Null:
			return r.ID, true
		}
		return nil, true
	}
	valid := string(r.Version) == `"2.0"` && wire.KindOf(r.Method) == wire.String
	if r.Params != nil {
		k := wire.KindOf(r.Params)
		valid = valid && (k == wire.Array || k == wire.Object)
	}
	return nil, !valid
}
