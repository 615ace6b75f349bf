package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc/internal/bind"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A Codec decodes params and encodes results whose types are not primitives
// (slices, maps, structs, interfaces and types with their own JSON methods).
// Implementations must be safe for concurrent use by multiple goroutines.
type Codec interface {
	// Unmarshal decodes the JSON value data into the value v points to.
	Unmarshal(data []byte, v any) error
	// Append appends the JSON encoding of v to dst and returns the result.
	Append(dst []byte, v any) ([]byte, error)
}

// The default limits; see the options that change them.
const (
	defaultMaxDepth    = wire.DefaultMaxDepth
	defaultMaxBatch    = 1024
	defaultMaxResponse = 16 << 20
)

// An Option configures a Server at construction. Later options win.
type Option func(*config)

// UseCodec sets the codec for the non-primitive params and results of the
// server's methods. The default is encoding/json (json.Unmarshal and
// json.Marshal).
func UseCodec(c Codec) Option { return func(cf *config) { cf.codec = c } }

// MaxDepth limits how deeply a request document may nest arrays and objects:
// 128 levels by default, and when n <= 0. A deeper document is answered
// with CodeParseError.
func MaxDepth(n int) Option { return func(cf *config) { cf.scan.MaxDepth = n } }

// MaxBatch limits the number of requests in a batch: 1024 by default, and
// when n <= 0. A larger batch is answered with one CodeInvalidRequest error
// and none of its requests run.
func MaxBatch(n int) Option {
	return func(cf *config) {
		if n <= 0 {
			n = defaultMaxBatch
		}
		cf.maxBatch = n
	}
}

// MaxResponse limits the size of a response, in bytes: 16 MiB by default,
// and when n <= 0. It is checked as the response is built, so that an
// oversized answer is never sent and a batch stops growing: a response
// object over the limit is replaced by a CodeLimitExceeded error with its id
// and data naming the limit; in a batch, the answers that fit are kept, in
// order, and the request that passes the limit and every later one with an
// id is answered with that error instead, without being run. (The errors
// themselves may take the batch past the limit, by about 100 bytes a
// request.) One result is encoded whole before it is measured.
func MaxResponse(n int) Option {
	return func(cf *config) {
		if n <= 0 {
			n = defaultMaxResponse
		}
		cf.maxResponse = n
	}
}

// ErrorDetails sends the text of errors that are not *Error to the client:
// a method's plain error (errors.New("disk full")) answers with
// CodeServerError and its text as the message. Without it the message is
// the code's standard one, "Server error", so that what a Go error says
// (file names, addresses, SQL) stays on the server; OnError sees the error
// either way and may add detail. Errors that are *Error, params that do not
// fit, and cancellations answer as documented whether it is set or not.
func ErrorDetails() Option { return func(cf *config) { cf.details = true } }

// config is shared, read-only, by a server and its sessions.
type config struct {
	codec        Codec
	scan         wire.Scanner
	maxBatch     int
	maxResponse  int
	errTooLarge  *Error // the answer to a response over maxResponse
	pre          func(ctx context.Context, c *Call) error
	post         func(ctx context.Context, c *Call, result json.RawMessage, err *Error) error
	onError      func(ctx context.Context, c *Call, cause error, e *Error) *Error
	onParseError func(req []byte, cause error, e *Error) *Error
	details      bool // ErrorDetails
	hooks        bool // any call hook is set
}

// A Server holds a method table and answers JSON-RPC 2.0 requests with it.
//
// A Server is safe for concurrent use by multiple goroutines: methods may be
// registered and unregistered while requests are processed, and each request
// sees the table as it was when the request began. The request path takes no
// lock: the table is an immutable map published atomically.
type Server struct {
	methods atomic.Pointer[methodTable]
	cfg     *config
	id      string // the session id, for a server made by Sessions

	mu sync.Mutex // serializes registration; the table is copied on write
}

type method struct {
	name     string
	fn       *bind.Func
	blocking bool // ProcessAsync runs its calls on their own goroutines
	call     bool // its calls need their Call in the context
}

// NewServer returns a server with an empty method table and the given
// options.
func NewServer(opts ...Option) *Server {
	cf := &config{codec: bind.JSON{}, maxBatch: defaultMaxBatch, maxResponse: defaultMaxResponse}
	for _, o := range opts {
		o(cf)
	}
	cf.hooks = cf.pre != nil || cf.post != nil || cf.onError != nil
	cf.errTooLarge = NewError(CodeLimitExceeded, "").WithData(fmt.Sprintf("response exceeds the limit of %d bytes", cf.maxResponse))
	return &Server{cfg: cf}
}

func (s *Server) lookup(name []byte) *method {
	t := s.methods.Load()
	if t == nil {
		return nil
	}
	return t.find(name)
}
