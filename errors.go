package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jsonrpc-go/jsonrpc/internal/bind"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A Code is a JSON-RPC error code.
type Code int64

// The codes defined by the JSON-RPC 2.0 specification, and the
// implementation-defined codes this package uses.
const (
	CodeParseError     Code = -32700 // invalid JSON
	CodeInvalidRequest Code = -32600 // not a valid request object
	CodeMethodNotFound Code = -32601 // no such method
	CodeInvalidParams  Code = -32602 // params do not fit the method
	CodeInternalError  Code = -32603 // the method panicked or its result could not be encoded
	CodeServerError    Code = -32000 // a method returned an error that is not an *Error
	CodeCancelled      Code = -32800 // the call's context was cancelled (LSP's RequestCancelled)
	CodeDeadline       Code = -32010 // the call's deadline passed
	CodeLimitExceeded  Code = -32005 // a limit of the server refused the request or its answer (as in EIP-1474)
)

var codeNames = map[Code]string{
	CodeParseError:      "Parse error",
	CodeInvalidRequest:  "Invalid Request",
	CodeMethodNotFound:  "Method not found",
	CodeInvalidParams:   "Invalid params",
	CodeInternalError:   "Internal error",
	CodeServerError:     "Server error",
	CodeCancelled:       "Request cancelled",
	CodeDeadline:        "Deadline exceeded",
	CodeLimitExceeded:   "Limit exceeded",
	CodeUnauthenticated: "Authentication required",
	CodeForbidden:       "Insufficient scope",
}

// String returns the standard message of a known code, or the code in
// decimal.
func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return strconv.FormatInt(int64(c), 10)
}

// Error is a JSON-RPC error object. A method that returns an error which is,
// or wraps, an *Error answers with that object. Error values are used through
// pointers.
type Error struct {
	Code    Code            `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"` // a JSON value, or nil for none
}

// NewError returns an error with the given code and message. An empty message
// is replaced by the code's standard message.
func NewError(code Code, message string) *Error {
	if message == "" {
		message = code.String()
	}
	return &Error{Code: code, Message: message}
}

// WithData returns a copy of e whose data member is the JSON encoding of v.
// A v that cannot be encoded is carried as its fmt %v string.
func (e *Error) WithData(v any) *Error {
	c := *e
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(fmt.Sprint(v))
	}
	c.Data = wire.UnescapeHTML(b)
	return &c
}

// Error returns "jsonrpc: " followed by the message, the code and, when the
// error carries data, a short form of it: a string's text, or the JSON value,
// cut after 200 bytes (on a rune boundary, followed by "…"), with control
// characters written as Go escapes (\n, \x00, \u2028), so that the text
// of an error from a peer stays on one line of a log.
//
//	jsonrpc: Invalid params (-32602): param "name": want a string
func (e *Error) Error() string {
	if e == nil {
		return "jsonrpc: <nil>"
	}
	msg := fmt.Sprintf("jsonrpc: %s (%d)", e.Message, int64(e.Code))
	if d := dataText(e.Data); d != "" {
		msg += ": " + d
	}
	return msg
}

// maxDataText is how much of an error's data Error.Error shows.
const maxDataText = 200

// dataText is the short form of an error's data for Error.Error.
func dataText(data json.RawMessage) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return ""
	}
	text := string(data)
	if data[0] == '"' {
		var s string
		if json.Unmarshal(data, &s) == nil {
			text = s
		}
	}
	cut := len(text) > maxDataText
	if cut {
		n := maxDataText
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	text = escapeControls(text)
	if cut {
		text += "…"
	}
	return text
}

// escapeControls returns s with its control characters, U+2028 and U+2029
// written as strconv.Quote writes them, and the rest as it is.
func escapeControls(s string) string {
	i := strings.IndexFunc(s, isLineBreaking)
	if i < 0 {
		return s
	}
	b := []byte(s[:i])
	for _, r := range s[i:] {
		if isLineBreaking(r) {
			q := strconv.QuoteRune(r)
			b = append(b, q[1:len(q)-1]...)
		} else {
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b)
}

func isLineBreaking(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, jsonrpc.ErrMethodNotFound) matches any method-not-found
// error, whatever its message and data.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// PanicError is the error a call reports when its method or an interceptor
// panicked. An interceptor sees it as the error next returns (see
// Intercept); the client sees CodeInternalError.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the panicking goroutine's stack
}

func (e *PanicError) Error() string { return fmt.Sprintf("jsonrpc: method panicked: %v", e.Value) }

// ErrorCode returns the code a response carries for err: the code of an
// *Error found in err's chain; CodeInvalidParams for params that do not fit;
// CodeInternalError for panics and results that cannot be encoded;
// CodeCancelled and CodeDeadline for the context errors; CodeServerError for
// any other non-nil error; 0 for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return 0
	}
	return toError(nil, err, nil).Code
}

// toError maps any error to the error object a response carries to a call
// of ctx (nil: none), under the settings of cf (nil: the defaults), in the
// codes of the call (Codes). An error that is not an *Error carries its
// text as the message only with details on (ErrorDetails); otherwise the
// code's standard message.
func toError(ctx context.Context, err error, cf *config) *Error {
	if e, ok := errors.AsType[*Error](err); ok {
		if e == nil {
			// A typed nil *Error returned as an error: a bug in the method.
			return &Error{Code: CodeInternalError, Message: "Internal error"}
		}
		return e
	}
	if pe, ok := errors.AsType[*bind.ParamError](err); ok {
		return &Error{Code: CodeInvalidParams, Message: "Invalid params", Data: jsonString(pe.Error())}
	}
	re, isResult := errors.AsType[*bind.ResultError](err)
	_, isPanic := errors.AsType[*PanicError](err)
	switch {
	case isResult && re.NonFinite() != "":
		return &Error{Code: CodeInternalError, Message: "Internal error", Data: jsonString(nonFiniteData(re.NonFinite()))}
	case isResult, isPanic:
		return &Error{Code: CodeInternalError, Message: "Internal error"}
	}
	codes := cf.codesOf(ctx)
	switch {
	case bind.TooLarge(err):
		// A sequence result collected into one array past MaxResponse.
		return &Error{Code: codes.Limit, Message: CodeLimitExceeded.String(), Data: jsonString(err.Error())}
	case errors.Is(err, context.Canceled):
		return &Error{Code: codes.Cancelled, Message: "Request cancelled"}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: codes.Deadline, Message: "Deadline exceeded"}
	}
	if cf != nil && cf.details {
		return &Error{Code: codes.ServerError, Message: err.Error()}
	}
	if codes.ServerError != CodeServerError {
		return &Error{Code: codes.ServerError, Message: "Server error"}
	}
	return errServerError
}

// nonFiniteData is the data of the answer to a result holding the float
// spelled f in Go (NaN, +Inf, -Inf).
func nonFiniteData(f string) string {
	return "result: " + f + " cannot be encoded: JSON has no NaN or infinities"
}

func jsonString(s string) json.RawMessage { return wire.AppendQuote(nil, s) }

// appendError writes a complete error response for e with the given id.
func appendError(dst []byte, e *Error, id []byte) []byte {
	return wire.AppendErrorData(dst, int64(e.Code), e.Message, e.Data, id)
}

// maxMethodData is how many bytes of an unknown method's name the
// answer CodeMethodNotFound carries as its data: a longer name is cut on a
// rune boundary at that length and ends with "…" (U+2026), so that a
// hostile name cannot grow the answer, nor a log of it, past this bound.
const maxMethodData = 64

// appendMethodNotFound writes the answer to a call of the method name,
// which the server does not have: "Method not found", with the name, cut
// to maxMethodData bytes, as a JSON string in its data, escaped as
// AppendQuote escapes (invalid UTF-8 as U+FFFD).
func appendMethodNotFound(dst, name, id []byte) []byte {
	dst = append(dst, wire.ErrorPrefix...)
	dst = wire.AppendInt(dst, int64(CodeMethodNotFound))
	dst = append(dst, `,"message":"Method not found","data":`...)
	if len(name) > maxMethodData {
		cut := maxMethodData
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		dst = wire.AppendQuote(dst, name[:cut])
		dst = append(dst[:len(dst)-1], `…"`...) // the name goes on; its text is cut
	} else {
		dst = wire.AppendQuote(dst, name)
	}
	dst = append(dst, '}')
	return wire.AppendIDEnd(dst, id)
}

// Sentinels for the error codes of the specification. Each matches, in
// errors.Is, any *Error with its code (see Error.Is):
//
//	if errors.Is(err, jsonrpc.ErrMethodNotFound) { ... }
//
// A method may return one to answer with its code and standard message.
// They must not be modified.
var (
	ErrParse          = &Error{Code: CodeParseError, Message: "Parse error"}
	ErrInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "Invalid Request"}
	ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	ErrInvalidParams  = &Error{Code: CodeInvalidParams, Message: "Invalid params"}
	ErrInternal       = &Error{Code: CodeInternalError, Message: "Internal error"}
)

// The error objects the server answers with, apart from the exported
// sentinels so that nothing a user does to those changes a response.
var (
	errParse          = &Error{Code: CodeParseError, Message: "Parse error"}
	errInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "Invalid Request"}
	errMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	errServerError    = &Error{Code: CodeServerError, Message: "Server error"}
	errGoexit         = &Error{Code: CodeInternalError, Message: "Internal error", Data: jsonString("the method called runtime.Goexit")}
)

// Sentinel errors of the Go API.
var (
	// ErrInvalidMethod is returned by Register for a function or method that
	// cannot be served; the returned error wraps it and says why.
	ErrInvalidMethod = errors.New("jsonrpc: invalid method")
	// ErrDuplicate is returned by Register and RegisterService for a
	// method name already registered, and by Sessions.Create for a session
	// id already in use.
	ErrDuplicate = errors.New("jsonrpc: name already in use")
)
