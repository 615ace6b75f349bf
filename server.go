package jsonrpc

import (
	"context"
	"encoding/json"
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

// JSONCodec is the default Codec, backed by encoding/json.
type JSONCodec struct{}

// Unmarshal implements Codec with json.Unmarshal.
func (JSONCodec) Unmarshal(data []byte, v any) error { return bind.JSON{}.Unmarshal(data, v) }

// Append implements Codec with json.Marshal.
func (JSONCodec) Append(dst []byte, v any) ([]byte, error) { return bind.JSON{}.Append(dst, v) }

// Default limits.
const (
	// DefaultMaxDepth is the default nesting limit of a request document.
	DefaultMaxDepth = wire.DefaultMaxDepth
	// DefaultMaxBatch is the default number of requests a batch may hold.
	DefaultMaxBatch = 1024
)

// An Option configures a Server at construction. Later options win.
type Option func(*config)

// WithCodec sets the codec for non-primitive params and results of methods
// registered afterwards. The default is JSONCodec{}.
func WithCodec(c Codec) Option { return func(cf *config) { cf.codec = c } }

// MaxDepth limits how deeply a request document may nest arrays and objects
// (DefaultMaxDepth when n <= 0). A deeper document is answered with
// CodeParseError.
func MaxDepth(n int) Option { return func(cf *config) { cf.scan.MaxDepth = n } }

// MaxBatch limits the number of requests in a batch (DefaultMaxBatch when
// n <= 0). A larger batch is answered with one CodeInvalidRequest error and
// none of its requests run.
func MaxBatch(n int) Option {
	return func(cf *config) {
		if n <= 0 {
			n = DefaultMaxBatch
		}
		cf.maxBatch = n
	}
}

// OnPreProcess sets a hook that runs before each method call. A non-nil
// error aborts the call and becomes its outcome; so does an error set with
// Call.SetError.
func OnPreProcess(f func(ctx context.Context, c *Call) error) Option {
	return func(cf *config) { cf.pre = f }
}

// OnPostProcess sets a hook that runs after each method call, with the call
// and its outcome: the JSON result, or the error object the call will answer
// with. A non-nil error it returns, or sets with Call.SetError, replaces the
// outcome.
func OnPostProcess(f func(ctx context.Context, c *Call, result json.RawMessage, err *Error) error) Option {
	return func(cf *config) { cf.post = f }
}

// OnError sets a hook that sees every error a method call ends with (its
// returned error, a pending error, a param error, a panic as *PanicError) as
// cause, with the error object mapped from it, and returns the error object
// to answer with.
func OnError(f func(ctx context.Context, c *Call, cause error, e *Error) *Error) Option {
	return func(cf *config) { cf.onError = f }
}

// OnParseError sets a hook that sees each request document that is not valid
// JSON, with the syntax error as cause, and returns the error object to
// answer with (by default CodeParseError without data).
func OnParseError(f func(req []byte, cause error, e *Error) *Error) Option {
	return func(cf *config) { cf.onParseError = f }
}

// config is shared, read-only, by a server and its sessions.
type config struct {
	codec        Codec
	scan         wire.Scanner
	maxBatch     int
	pre          func(ctx context.Context, c *Call) error
	post         func(ctx context.Context, c *Call, result json.RawMessage, err *Error) error
	onError      func(ctx context.Context, c *Call, cause error, e *Error) *Error
	onParseError func(req []byte, cause error, e *Error) *Error
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
	cf := &config{codec: JSONCodec{}, maxBatch: DefaultMaxBatch}
	for _, o := range opts {
		o(cf)
	}
	cf.hooks = cf.pre != nil || cf.post != nil || cf.onError != nil
	return &Server{cfg: cf}
}

func (s *Server) lookup(name []byte) *method {
	t := s.methods.Load()
	if t == nil {
		return nil
	}
	return t.find(name)
}
