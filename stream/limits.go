package stream

import (
	"encoding/json"
	"fmt"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// responseTooLarge returns what to send instead of resp, a response longer
// than limit: for a response object, an error response with its id; for a
// batch response, the elements that fit in order, and an error response for
// each later element. It runs only on this rare path, and allocates.
func responseTooLarge(resp []byte, limit int) []byte {
	e := jsonrpc.NewError(jsonrpc.CodeInternalError, "response too large")
	if !json.Valid(resp) {
		return transport.AppendError(nil, e, nil)
	}
	if resp[0] != '[' {
		e = e.WithData(fmt.Sprintf("response of %d bytes exceeds the limit of %d bytes", len(resp), limit))
		return transport.AppendError(nil, e, responseID(resp))
	}
	e = e.WithData(fmt.Sprintf("batch response exceeds the limit of %d bytes", limit))
	out := []byte{'['}
	full := false
	for elem, pos, ok := wire.NextElement(resp, 0); ok; elem, pos, ok = wire.NextElement(resp, pos) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		if !full && len(out)+len(elem)+1 <= limit {
			out = append(out, elem...)
			continue
		}
		full = true
		out = transport.AppendError(out, e, responseID(elem))
	}
	return append(out, ']')
}

// responseID returns the id member of the valid response object resp, or nil.
func responseID(resp []byte) json.RawMessage {
	if len(resp) == 0 || resp[0] != '{' {
		return nil
	}
	var id []byte
	for name, value, _, pos, ok := wire.NextMember(resp, 0); ok; name, value, _, pos, ok = wire.NextMember(resp, pos) {
		if string(name) == "id" {
			id = value
		}
	}
	return id
}
