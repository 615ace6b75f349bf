package jsonrpc

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc/internal/bind"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/ratelog"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A Codec decodes the params and encodes the results that the server does
// not. A codec of your own encodes every result that is not a primitive or
// a json.RawMessage; with one of this module's codecs, the server encodes
// the structs, pointers and slices of them that it can itself (see
// Registration in the package documentation). A codec decodes maps,
// interfaces, arrays, []byte, slices of non-primitives, and structs with
// JSON methods of their own, embedded structs or ",string" fields. The
// server decodes primitives,
// json.RawMessage, slices of primitives, types with an UnmarshalJSON
// method, and the other structs member by member, handing the codec only
// the fields it does not decode itself (see Registration in the package
// documentation). Implementations must be safe for concurrent use by
// multiple goroutines.
//
// Every codec of this module answers alike: package codec/codectest is the
// suite that checks it, and a Codec of your own can run it too. What a
// codec must do:
//
//   - Unknown fields: unless allowUnknown (the server's
//     AllowUnknownFields), an object member that names no field of the
//     struct it is decoded into is an error naming the member, at every
//     depth. Names match fields as encoding/json matches them: exactly, or
//     else case-insensitively.
//   - Non-finite floats: JSON has no NaN or infinities, so Append fails for
//     a float that is NaN or infinite with an error that is, or wraps, a
//     *json.UnsupportedValueError whose Str is "NaN", "+Inf" or "-Inf", as
//     json.Marshal's is. The server answers it as documented under Errors
//     in the package documentation.
//   - Nil slices and maps encode as null; map keys are sorted; invalid
//     UTF-8 in a string encodes as U+FFFD; time.Time is RFC 3339; []byte is
//     base64; a number decoded into an interface is a float64; these are
//     encoding/json's answers.
type Codec interface {
	// Unmarshal decodes the JSON value data into the value v points to.
	// Unless allowUnknown, an object member that names no field of the
	// struct it is decoded into is an error, at every depth.
	Unmarshal(data []byte, v any, allowUnknown bool) error
	// Append appends the JSON encoding of v to dst and returns the result.
	Append(dst []byte, v any) ([]byte, error)
}

// JSONCodec is the Codec of encoding/json, a server's default. Unmarshal is
// json.Unmarshal, or a json.Decoder with DisallowUnknownFields unless
// allowUnknown; Append is json.Marshal with the HTML characters (<, >, &)
// written as they are, as the server's own encoder writes them (U+2028 and
// U+2029 stay escaped), so that a string reads the same whoever encodes
// it. Its zero value is ready to use.
type JSONCodec struct{}

func init() { bind.MarkStandard(JSONCodec{}) }

// Unmarshal implements Codec.
func (JSONCodec) Unmarshal(data []byte, v any, allowUnknown bool) error {
	return bind.JSON{}.Unmarshal(data, v, allowUnknown)
}

// Append implements Codec.
func (JSONCodec) Append(dst []byte, v any) ([]byte, error) { return bind.JSON{}.Append(dst, v) }

// An Option configures a Server at construction. Later options win.
type Option func(*config)

// UseCodec sets the codec for the params and results of the server's
// methods that go through a codec (see Codec); MethodCodec sets it for one
// method. The default is JSONCodec (encoding/json).
func UseCodec(c Codec) Option { return func(cf *config) { cf.codec = c } }

// AllowUnknownFields makes the server's methods ignore what names no param
// or field: named params that match no param name (all of them, for a
// method that takes none) and object members, at any depth, that match no
// field of the struct they are decoded into. Under MCP, where every request
// of 2026-07-28 carries a "_meta" in its params, it lets every method take
// them (package mcpserver serves with it).
// Without it, the default, both are refused with CodeInvalidParams and data
// naming the member.
func AllowUnknownFields() Option { return func(cf *config) { cf.allowUnknown = true } }

// AcceptNullParams makes the server take "params": null as a request
// without params. The specification asks for an array or an object when
// params is present, and without this option, the default, a null params
// is answered with CodeInvalidRequest; but an explicit null is unambiguous,
// and language clients in the field send it (Emacs's, for shutdown and
// exit). A connection that speaks LSP (lsp.Protocol()) takes null params as
// absent whatever the option says.
func AcceptNullParams() Option { return func(cf *config) { cf.nullParams = true } }

// Limits bound what a request can make a Server do. A zero field means its
// default, as does a negative one.
type Limits struct {
	// MaxDepth is how deeply a request document may nest arrays and
	// objects: 128 levels by default. A deeper document is answered with
	// CodeParseError.
	MaxDepth int

	// MaxBatch is the number of requests a batch may hold: 1024 by
	// default. A larger batch is answered with one CodeInvalidRequest error
	// and none of its requests run.
	MaxBatch int

	// MaxResponse is the size of a response, in bytes: 16 MiB by default.
	// It is checked as the response is built, so that an oversized answer is
	// never sent and a batch stops growing: a response object over the limit
	// is replaced by a CodeLimitExceeded error with its id and data naming
	// the limit; in a batch the answers that fit are kept, in order, and the
	// request that passes the limit and every later one with an id is
	// answered with that error instead, without being run (calls of
	// Blocking methods of the batch have run by then). The errors themselves
	// may take a batch past the limit, by about 100 bytes a request. A
	// single result is encoded whole before it is measured.
	MaxResponse int

	// MaxRunning is how many calls of Blocking methods ProcessAsync runs at
	// once on goroutines of their own, for the whole server (for its
	// sessions, each its own): 4096 by default. When that many run, a
	// further call runs on the caller's goroutine, as Process runs it, so
	// that the transport that called stops reading until it returns: the
	// number of goroutines stays bounded and nothing is refused. A
	// sequence result left open on a connection (package
	// protocol/enumerator), its producer waiting to be pulled, counts as a
	// running call until it ends; a call of such a method that finds
	// MaxRunning, or its client's share, full is refused with the limit
	// code.
	MaxRunning int

	// MaxRunningPerClient is how many of those calls one client may run
	// at once, over all its connections and requests: half of MaxRunning
	// by default (at least 1), so that one client cannot take every
	// goroutine and leave another's calls to run one at a time on its
	// transport's goroutine (where a method cannot wait for a call back
	// to its caller). Past it the client's further calls run on its own
	// transport's goroutine, as past MaxRunning. A client is what its
	// transport names (transport.WithClient): the hosts of this module
	// name the remote IP address, or the key they are given.
	MaxRunningPerClient int

	// MaxHeld bounds the bytes of the request copies that calls running on
	// goroutines of their own hold, for the whole server: 64 MiB by
	// default. ProcessAsync copies a request (a whole batch) before it
	// returns and its calls of Blocking methods go on; a request whose copy
	// would pass the bound runs those calls on the caller's goroutine
	// instead, as past MaxRunning, without a copy, so that many large
	// requests of waiting methods cannot hold MaxRunning copies at once.
	MaxHeld int

	// MaxHeldPerClient is how many of those bytes the request copies of
	// one client may hold at once, over all its connections and requests:
	// half of MaxHeld by default (at least 1), so that one client's large
	// requests cannot take the whole of MaxHeld and leave another's
	// calls to run on their transport's goroutine (where a method cannot
	// wait for a call back to its caller). A request whose copy would
	// pass its client's share is not refused: its Blocking calls run on
	// the caller's goroutine, without a copy, as past MaxHeld, so that
	// the client's own transport stops reading until they return. The
	// client is the one MaxRunningPerClient counts (transport.WithClient);
	// the requests of no client ("") count against MaxHeld alone.
	MaxHeldPerClient int

	// LargeRequest is the size from which a request document is large, in
	// bytes: 64 KiB by default. MaxLarge is how many large requests
	// ProcessAsync works on at once on its callers' goroutines, for the
	// whole server (for its sessions, each its own): half of GOMAXPROCS
	// when the server is made, at least one, by default; a negative
	// MaxLarge gives large requests no turns. A further large request
	// waits for its turn (the transport that called it stops reading
	// meanwhile), or until its context ends. The turn covers what runs on
	// the caller's goroutine: the scan, the calls of methods that are not
	// Blocking, and their encoding; it ends before the reply is written,
	// and calls of Blocking methods run on their own goroutines outside
	// it. Scanning and decoding a 1 MiB request takes a processor for some
	// milliseconds; without turns, a few clients that send large requests
	// at once hold every processor, and the small requests of every other
	// client wait for the scheduler and the network poller behind them (a
	// healthy client's p99 went from 47 ms to 5 ms beside eight clients
	// sending 1 MiB calls, on two cores). A ProcessAsync called by a
	// method during its request's turn does not wait for another.
	LargeRequest int
	MaxLarge     int
}

// The default limits; see Limits.
const (
	defaultMaxDepth    = wire.DefaultMaxDepth
	defaultMaxBatch    = 1024
	defaultMaxResponse = 16 << 20
	defaultMaxRunning  = 4096
	defaultMaxHeld     = 64 << 20
	defaultLarge       = 64 << 10
)

// UseLimits sets the server's limits. Later calls replace every field.
func UseLimits(l Limits) Option { return func(cf *config) { cf.limits = l } }

// ErrorDetails sends the text of errors that are not *Error to the client:
// a method's plain error (errors.New("disk full")) answers with
// CodeServerError and its text as the message. Without it the message is
// the code's standard one, "Server error", so that what a Go error says
// (file names, addresses, SQL) stays on the server; an interceptor (see
// Intercept) sees the error either way and may answer with more detail. Errors that are *Error, params that do not
// fit, and cancellations answer as documented whether it is set or not.
func ErrorDetails() Option { return func(cf *config) { cf.details = true } }

// UseLogger sets the logger of what the server recovers from and what it
// refuses, which the client is never sent in full: a panic of a method
// ("method panicked") or of an interceptor ("interceptor panicked"), at
// slog.LevelError, with the method ("method"), the value passed to panic
// ("panic") and the goroutine's stack ("stack"), while the client gets
// CodeInternalError only; and a request document that is not
// JSON, at slog.LevelWarn, with the syntax error ("error"). Records carry
// the context of the call or of Process, for handlers that read it. The
// default, and a nil l, logs nothing and costs nothing. The transports
// (stream, httprpc) have loggers of their own, for their connections and
// limits.
//
// A client decides how often these happen (a line that is not JSON costs
// it two bytes), so the server bounds what it logs through l: at most 10
// records of one level and message in 10 seconds, then one record of how
// many it dropped (package ratelog). A logger whose handler was made by
// ratelog.New keeps its own bounds.
func UseLogger(l *slog.Logger) Option { return func(cf *config) { cf.logger = ratelog.Wrap(l) } }

// config holds a server's settings, read-only after NewServer, and the
// count of its running Blocking calls.
type config struct {
	codec        Codec
	allowUnknown bool // AllowUnknownFields
	nullParams   bool // AcceptNullParams
	scan         wire.Scanner
	limits       Limits // as given; the fields below have the defaults applied
	maxBatch     int
	maxResponse  int
	maxRunning   int64
	perClient    int // MaxRunningPerClient
	maxHeld      int64
	heldClient   int64         // MaxHeldPerClient
	large        int           // LargeRequest
	turns        chan struct{} // a token per large request at work (MaxLarge); nil: no turns
	codes        Codes         // UseCodes, with the defaults applied by NewServer
	errTooLarge  *Error        // the answer to a response over maxResponse, in codes.Limit
	onParseError func(req []byte, cause error, e *Error) *Error
	intercepts   []func(ctx context.Context, c *Call, next func(context.Context) error) error
	nexts        []func(context.Context) error // the interceptors' next functions (chain); nil without interceptors
	details      bool                          // ErrorDetails
	requireAuth  bool                          // RequireAuth
	logger       *slog.Logger                  // UseLogger; nil logs nothing

	// running counts the calls of Blocking methods on goroutines of their
	// own. It is written by each such call, so it is kept off the cache
	// line of the fields above, which every request reads.
	_       [64]byte
	running atomic.Int64
	held    atomic.Int64 // bytes of request copies held by them (MaxHeld)

	clientsMu sync.Mutex // protects the field below
	clients   map[string]share
}

// A share is what one client named by its transport holds of a server: an
// entry of config.clients while either count is above zero.
type share struct {
	running int   // calls on goroutines of their own (MaxRunningPerClient)
	held    int64 // bytes of their request copies (MaxHeldPerClient)
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
	blocking bool   // ProcessAsync runs its calls on their own goroutines
	call     bool   // its calls need their Call in the context
	guard    *guard // who may call it; nil: anybody
	public   bool   // declared Public
}

// NewServer returns a server with an empty method table and the given
// options.
func NewServer(opts ...Option) *Server {
	cf := &config{codec: JSONCodec{}}
	for _, o := range opts {
		o(cf)
	}
	l := cf.limits
	cf.scan.MaxDepth = orDefault(l.MaxDepth, defaultMaxDepth)
	cf.maxBatch = orDefault(l.MaxBatch, defaultMaxBatch)
	cf.maxResponse = orDefault(l.MaxResponse, defaultMaxResponse)
	cf.maxRunning = int64(orDefault(l.MaxRunning, defaultMaxRunning))
	cf.perClient = orDefault(l.MaxRunningPerClient, max(int(cf.maxRunning)/2, 1))
	cf.maxHeld = int64(orDefault(l.MaxHeld, defaultMaxHeld))
	cf.heldClient = int64(orDefault(l.MaxHeldPerClient, int(max(cf.maxHeld/2, 1))))
	cf.large = orDefault(l.LargeRequest, defaultLarge)
	if l.MaxLarge >= 0 {
		cf.turns = make(chan struct{}, orDefault(l.MaxLarge, max(1, runtime.GOMAXPROCS(0)/2)))
	}
	cf.chain()
	cf.codes = cf.codes.WithDefaults()
	cf.errTooLarge = &Error{Code: cf.codes.Limit, Message: CodeLimitExceeded.String(), Data: jsonString(fmt.Sprintf("response exceeds the limit of %d bytes", cf.maxResponse))}
	return &Server{cfg: cf}
}

// codesOf returns the codes the calls of ctx are answered with: those of
// the call's connection (WithCodes), or the server's; cf may be nil, for
// the defaults.
func (cf *config) codesOf(ctx context.Context) *Codes {
	if ctx != nil {
		if c, ok := ctx.Value(keys.Codes{}).(*Codes); ok {
			return c
		}
	}
	if cf == nil {
		return &defaultCodes
	}
	return &cf.codes
}

var defaultCodes = Codes{}.WithDefaults()

// tooLarge returns the answer to a call of ctx whose response is over
// maxResponse, in the limit code of the call's codes.
func (cf *config) tooLarge(ctx context.Context) *Error {
	if c := cf.codesOf(ctx); c.Limit != cf.errTooLarge.Code {
		e := *cf.errTooLarge
		e.Code = c.Limit
		return &e
	}
	return cf.errTooLarge
}

func (s *Server) lookup(name []byte) *method {
	t := s.methods.Load()
	if t == nil {
		return nil
	}
	return t.find(name)
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// clientOf is the client that ctx's transport named (transport.WithClient),
// "" for none.
func clientOf(ctx context.Context) string {
	client, _ := ctx.Value(keys.Client{}).(string)
	return client
}

// acquire takes one of the MaxRunning slots for a call of client (see
// MaxRunningPerClient; "" for none) that runs on a goroutine of its own,
// and reports whether there was one.
func (cf *config) acquire(client string) bool {
	return cf.take(client, 1, 0)
}

// hold takes n bytes of MaxHeld for a request copy of client (see
// MaxHeldPerClient), or reports false, taking none, when they would pass
// either bound.
func (cf *config) hold(client string, n int) bool {
	return cf.take(client, 0, n)
}

// take takes calls slots of MaxRunning and n bytes of MaxHeld for client,
// and their share of client's, all or none, and reports which.
func (cf *config) take(client string, calls, n int) bool {
	if calls > 0 && cf.running.Add(int64(calls)) > cf.maxRunning {
		cf.running.Add(-int64(calls))
		return false
	}
	if n > 0 && cf.held.Add(int64(n)) > cf.maxHeld {
		cf.held.Add(-int64(n))
		cf.running.Add(-int64(calls))
		return false
	}
	if client == "" {
		return true
	}
	cf.clientsMu.Lock()
	sh := cf.clients[client]
	if sh.running+calls > cf.perClient || sh.held+int64(n) > cf.heldClient {
		cf.clientsMu.Unlock()
		cf.held.Add(-int64(n))
		cf.running.Add(-int64(calls))
		return false
	}
	if cf.clients == nil {
		cf.clients = map[string]share{}
	}
	sh.running += calls
	sh.held += int64(n)
	cf.clients[client] = sh
	cf.clientsMu.Unlock()
	return true
}

// give gives back calls slots and n bytes taken by take for client.
func (cf *config) give(client string, calls, n int) {
	if client != "" {
		cf.clientsMu.Lock()
		sh := cf.clients[client]
		sh.running -= calls
		sh.held -= int64(n)
		if sh.running <= 0 && sh.held <= 0 {
			delete(cf.clients, client)
		} else {
			cf.clients[client] = sh
		}
		cf.clientsMu.Unlock()
	}
	if n > 0 {
		cf.held.Add(-int64(n))
	}
	if calls > 0 {
		cf.running.Add(-int64(calls))
	}
}

// unhold gives back n bytes taken by hold for client.
func (cf *config) unhold(client string, n int) { cf.give(client, 0, n) }

// release gives back a slot taken by acquire for client.
func (cf *config) release(client string) { cf.give(client, 1, 0) }

// A slot is the share of MaxRunning (and of its client's) that a call of
// a method whose result is a sequence holds while it runs on a goroutine
// of its own: a sequence left open past the call's answer, its producer
// waiting to be pulled, keeps it (keepRunning), so that open sequences
// count against MaxRunning and MaxRunningPerClient as the calls do. It is
// used by the call's goroutine alone.
type slot struct {
	client string
	kept   bool // handed to the sequence: the call's end does not give it back
}

// keepRunning keeps a share of MaxRunning for the call of ctx past its
// answer (registry.KeepRunning): the call's own slot, when it ran on a
// goroutine of its own, or else a new one for its client, and returns the
// function that gives it back, or false when none is free.
func keepRunning(ctx context.Context) (func(), bool) {
	c := CallOf(ctx)
	if c == nil {
		return func() {}, true
	}
	cf, client := c.server.cfg, clientOf(ctx)
	if sl := c.slot; sl != nil && !sl.kept {
		sl.kept = true
		client = sl.client
	} else if !cf.acquire(client) {
		return nil, false
	}
	var once sync.Once
	return func() { once.Do(func() { cf.release(client) }) }, true
}
