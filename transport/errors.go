package transport

import (
	"encoding/json"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// AppendErrors appends to dst the answer to the complete message msg as if
// each request in it had failed with e: an error with its id for a request,
// an array of them for a batch. Notifications get none, nor does a message
// that is not JSON; a request whose id is not valid is answered with id
// null, as the server answers it. It is how a transport answers a message
// it will not pass to the server, such as one read as it shuts down.
func AppendErrors(dst, msg []byte, e *jsonrpc.Error) []byte {
	var r wire.Request
	var scan wire.Scanner // the default depth: deeper is not a request
	if i := wire.SkipSpace(msg, 0); i == len(msg) || msg[i] != '[' {
		if kind, err := scan.ScanRequest(msg, &r); err == nil && kind == wire.Object && r.ID != nil {
			dst = AppendError(dst, e, answerID(&r))
		}
		return dst
	}
	arr, _, err := scan.ScanBatch(msg, nil)
	if err != nil {
		return dst
	}
	start := len(dst)
	for _, isObject, pos, ok := wire.NextRequest(arr, 0, &r); ok; _, isObject, pos, ok = wire.NextRequest(arr, pos, &r) {
		if !isObject || r.ID == nil {
			continue
		}
		if len(dst) == start {
			dst = append(dst, '[')
		} else {
			dst = append(dst, ',')
		}
		dst = AppendError(dst, e, answerID(&r))
	}
	if len(dst) > start {
		dst = append(dst, ']')
	}
	return dst
}

// answerID is the id the answer to r carries: r's id, or null when it is
// not a valid id or r gives a member twice.
func answerID(r *wire.Request) json.RawMessage {
	switch wire.KindOf(r.ID) {
	case wire.String, wire.Number:
		if !r.Dup {
			return json.RawMessage(r.ID)
		}
	}
	return nil
}
