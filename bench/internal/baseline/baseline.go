// Package baseline is a plain JSON-RPC 2.0 processor built on encoding/json
// alone, written the way a Go developer would without this library. The
// benchmarks use it as the reference row: same requests, same answers, no
// library.
package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeServerError    = -32000
)

// Error is a JSON-RPC error object. A method may return one to choose the
// code; any other error is answered with CodeServerError.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// InvalidParams returns a CodeInvalidParams error carrying why as data.
func InvalidParams(why string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params", Data: why}
}

// Handler is a registered method: it gets the raw params (nil when absent)
// and returns a value for json.Marshal or an error.
type Handler func(params json.RawMessage) (any, error)

// Server maps method names to handlers. Register all methods before the
// first Process; Process is then safe for concurrent use.
type Server struct {
	methods map[string]Handler
}

// NewServer returns an empty server.
func NewServer() *Server { return &Server{methods: map[string]Handler{}} }

// Register adds fn under name, replacing any method of that name.
func (s *Server) Register(name string, fn func(params json.RawMessage) (any, error)) {
	s.methods[name] = fn
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	ID      json.RawMessage `json:"id"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  any             `json:"result"`
	ID      json.RawMessage `json:"id"`
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Error   *Error          `json:"error"`
	ID      json.RawMessage `json:"id"`
}

func errorResp(code int, msg string, id json.RawMessage) *errorResponse {
	return &errorResponse{JSONRPC: "2.0", Error: &Error{Code: code, Message: msg}, ID: id}
}

// Process answers the request document req (one request or a batch) and
// returns dst with the response appended; nothing is appended when no
// response is due (notifications).
func (s *Server) Process(dst, req []byte) []byte {
	var out any
	if isBatch(req) {
		var elems []json.RawMessage
		if err := json.Unmarshal(req, &elems); err != nil {
			out = errorResp(CodeParseError, "Parse error", nil)
		} else if len(elems) == 0 {
			out = errorResp(CodeInvalidRequest, "Invalid Request", nil)
		} else {
			resps := make([]any, 0, len(elems))
			for _, e := range elems {
				if r := s.handle(e); r != nil {
					resps = append(resps, r)
				}
			}
			if len(resps) == 0 {
				return dst
			}
			out = resps
		}
	} else if r := s.handle(req); r != nil {
		out = r
	} else {
		return dst
	}
	b, err := json.Marshal(out)
	if err != nil {
		b, _ = json.Marshal(errorResp(-32603, "Internal error", nil))
	}
	return append(dst, b...)
}

func isBatch(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '['
	}
	return false
}

// handle answers one request object; it returns nil for a notification.
func (s *Server) handle(raw []byte) any {
	var req request
	if err := json.Unmarshal(raw, &req); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return errorResp(CodeParseError, "Parse error", nil)
		}
		// A member of the wrong type: encoding/json still decoded the
		// others, so the id can be echoed when it is valid.
		if !validID(req.ID) {
			req.ID = nil
		}
		return errorResp(CodeInvalidRequest, "Invalid Request", req.ID)
	}
	if !validID(req.ID) {
		return errorResp(CodeInvalidRequest, "Invalid Request", nil)
	}
	if req.JSONRPC != "2.0" || req.Method == "" ||
		(req.Params != nil && req.Params[0] != '[' && req.Params[0] != '{') {
		return errorResp(CodeInvalidRequest, "Invalid Request", req.ID)
	}
	fn, ok := s.methods[req.Method]
	if !ok {
		if req.ID == nil {
			return nil
		}
		return errorResp(CodeMethodNotFound, "Method not found", req.ID)
	}
	result, err := fn(req.Params)
	if req.ID == nil {
		return nil
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeServerError, Message: err.Error()}
		}
		return &errorResponse{JSONRPC: "2.0", Error: e, ID: req.ID}
	}
	return &response{JSONRPC: "2.0", Result: result, ID: req.ID}
}

// validID reports whether id is absent, a string, a number or null.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return true
	}
	switch id[0] {
	case '{', '[', 't', 'f':
		return false
	}
	return true
}

// positional decodes params, which must be an array of exactly n values of
// type T.
func positional[T any](params json.RawMessage, n int) ([]T, error) {
	var args []T
	if params == nil || params[0] != '[' {
		return nil, InvalidParams("want an array of params")
	}
	if err := json.Unmarshal(params, &args); err != nil {
		return nil, InvalidParams(err.Error())
	}
	if len(args) != n {
		return nil, InvalidParams(fmt.Sprintf("want %d params, got %d", n, len(args)))
	}
	return args, nil
}

// NewCalculator returns a server with the five calculator methods of
// demo.Calculator, under the same names.
func NewCalculator() *Server {
	s := NewServer()
	s.Register("add", func(params json.RawMessage) (any, error) {
		p, err := positional[float64](params, 2)
		if err != nil {
			return nil, err
		}
		return p[0] + p[1], nil
	})
	s.Register("addInt", func(params json.RawMessage) (any, error) {
		p, err := positional[int](params, 2)
		if err != nil {
			return nil, err
		}
		return p[0] + p[1], nil
	})
	s.Register("NullableFloatToNullableFloat", func(params json.RawMessage) (any, error) {
		p, err := positional[*float64](params, 1)
		if err != nil {
			return nil, err
		}
		return p[0], nil
	})
	s.Register("Test2", func(params json.RawMessage) (any, error) {
		p, err := positional[float64](params, 1)
		if err != nil {
			return nil, err
		}
		return p[0], nil
	})
	s.Register("StringMe", func(params json.RawMessage) (any, error) {
		p, err := positional[string](params, 1)
		if err != nil {
			return nil, err
		}
		return p[0], nil
	})
	return s
}
