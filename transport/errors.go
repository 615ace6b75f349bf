package transport

import (
	"encoding/json"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// AppendErrors appends to dst the answer to the complete message msg as if
// each request in it had failed with e, as a server answers a message it
// will not run (one read as it shuts down): an error with its id for each
// request that has one, and none for a notification; for a batch, an array
// of them, or nothing when it holds only notifications. What is not a
// valid request is answered as the server would refuse it, with id null:
// a member that is not a request object, a request whose id is not valid,
// a document that holds no request (invalid JSON, an empty batch), and a
// batch of more than MaxRefusedBatch elements, which gets one error, so
// that a refusal is never much larger than its request.
func AppendErrors(dst, msg []byte, e *jsonrpc.Error) []byte {
	var r wire.Request
	kind, err := wire.Scanner{}.ScanRequest(msg, &r)
	switch {
	case err != nil:
		return AppendError(dst, e, nil)
	case kind != wire.Array:
		if id, answer := refusedID(kind, &r); answer {
			return AppendError(dst, e, id)
		}
		return dst
	}
	arr := r.Value
	n := 0
	for _, pos, ok := wire.NextElement(arr, 0); ok && n <= MaxRefusedBatch; _, pos, ok = wire.NextElement(arr, pos) {
		n++
	}
	if n == 0 || n > MaxRefusedBatch {
		return AppendError(dst, e, nil)
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
		dst = AppendError(dst, e, id)
	}
	if len(dst) == start+1 {
		return dst[:start] // notifications only
	}
	return append(dst, ']')
}

// MaxRefusedBatch is the largest batch that AppendErrors answers request by
// request, as jsonrpc.Limits.MaxBatch allows by default.
const MaxRefusedBatch = 1024

// refusedID returns the id to answer a refused request with (nil for
// null), and whether it is answered at all: a notification, a valid
// request without an id, is not. kind is the request's kind; r holds its
// members when it is an object.
func refusedID(kind wire.Kind, r *wire.Request) (id json.RawMessage, answer bool) {
	switch {
	case kind != wire.Object || r.Dup:
		return nil, true
	case r.ID != nil:
		switch wire.KindOf(r.ID) {
		case wire.String, wire.Number, wire.Null:
			return json.RawMessage(r.ID), true
		}
		return nil, true
	}
	valid := wire.NameIs(r.Version, "2.0") && wire.KindOf(r.Method) == wire.String
	if r.Params != nil {
		k := wire.KindOf(r.Params)
		valid = valid && (k == wire.Array || k == wire.Object)
	}
	return nil, !valid
}
