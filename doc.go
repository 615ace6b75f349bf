// Package jsonrpc is the JSON-RPC 2.0 protocol: register Go functions on a
// Server, then hand it request bytes.
//
//	srv := jsonrpc.NewServer()
//	srv.MustRegister("add", func(a, b float64) float64 { return a + b })
//	out := srv.Process(ctx, buf[:0], []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
//	// out: {"jsonrpc":"2.0","result":3,"id":1}
//
// Process appends the response to a buffer the caller owns and, for methods
// over primitive types called without reflection (see Registration),
// allocates nothing; the methods get a context derived from ctx. ProcessString is the same for strings, and ProcessAsync lets
// methods registered with Blocking wait without holding up the caller.
//
// This package does no I/O. Its subpackages carry requests to a Server:
// httprpc (net/http), stream (TCP, Unix sockets, pipes, standard input and
// output), ws (WebSocket) and, in a module of its own, fasthttprpc; client
// calls a server over any of them. Package transport is what a transport
// of your own needs from this package.
//
// # Registration
//
// Register accepts any function that fits these rules:
//
//   - It may take a leading context.Context, which carries the call's
//     information (see Contexts and sessions).
//   - It may take any number of params of types JSON can carry: bool, the
//     integer and float kinds, string, pointers (a nil pointer is JSON
//     null), slices, arrays, maps, structs, interfaces and types with their
//     own JSON methods. Channels, functions and complex numbers are refused.
//   - It returns nothing, a value, an error, or a value and an error.
//   - A variadic function takes the rest of a positional params array.
//
// Schematically:
//
//	func([ctx context.Context,] [p1 T1, ...])
//	func([ctx context.Context,] [p1 T1, ...]) error
//	func([ctx context.Context,] [p1 T1, ...]) R
//	func([ctx context.Context,] [p1 T1, ...]) (R, error)
//
// A function that breaks a rule fails at registration with an error wrapping
// ErrInvalidMethod; it never fails at call time. Names starting with "rpc."
// are reserved by the specification and refused.
//
// Params come in two forms, and a function may take both:
//
//   - Positional, a JSON array: every function takes them, in the order of
//     its params. A function whose only param is a struct takes them in
//     field order, or the struct whole as the only element of the array
//     ([{"name":"x"}], as go-ethereum's client sends it) when the object's
//     members all name fields or the first field cannot take an object.
//   - Named, a JSON object: a function whose only param is a struct takes
//     them by the struct's json field names, as it is; any other function
//     takes them once ParamNames has named its params.
//
// Defaults makes trailing params optional. RegisterService registers every
// exported method of a value, or of the values a factory makes per call;
// its naming rule is documented there.
//
// Options are typed by where they apply: an Option configures NewServer, a
// MethodOption one method (Register, or ForMethod inside RegisterService),
// and a ServiceOption RegisterService. An option passed where it does not
// apply does not compile.
//
// Typed and TypedNoContext make a TypedMethod, which Register takes in
// place of a function: a function of one value P, the params (a struct
// bound by field, as above, or the only param), with or without a leading
// context, that returns one result R and an error. Generics make its calls
// direct Go calls, never through reflect.Value.Call, whatever P and R are.
//
//	srv.MustRegister("createUser", jsonrpc.Typed(func(ctx context.Context, u User) (User, error) { ... }))
//	srv.MustRegister("double", jsonrpc.TypedNoContext(func(x int) (int, error) { return 2 * x, nil }))
//
// Register calls a plain function, or a method of a service that is a
// value (not a factory), without reflect.Value.Call through generic
// adapters chosen at registration, when it is not variadic, takes no
// struct bound by field, and, besides a leading context:
//
//   - takes no param, one param of a primitive type (bool, any integer or
//     float kind, string, or any pointer), or two params each a bool, a
//     string, a float64, an int64 or a uint64 (or int and uint where they
//     are 64 bits), or any pointer, types defined on them included (type
//     celsius float64; not json.Number, a number that the codec decodes);
//   - returns nothing, an error, or a result, with or without an error,
//     that is a bool, a string, a float64, an int64 or a uint64 (or a
//     64-bit int or uint), any pointer, a slice, a map, an interface (any
//     included) or a json.RawMessage:
//     func(query string, limit int) ([]Item, error) and func(number uint64,
//     full bool) (map[string]any, error) are called directly.
//
// Every other function is called through reflection: func(a, b int32) int32,
// func(id int) User (a struct result), func(u User) User, three params,
// variadic functions, a service factory's methods, and every function in a
// program built with the build tag jsonrpc_noadapters, which leaves the
// adapters out of the binary (3.7 MB stripped).
//
// Whatever the path, params are decoded from the request's bytes, which
// the server validated as it read them: primitives and json.RawMessage
// without a codec (a json.RawMessage param is a copy of its span, a
// json.RawMessage result is sent as it is, without white space); a struct
// without JSON methods of its own, embedded structs or ",string" fields
// is decoded member by member, matching names in the same pass, its fields
// of primitive types, slices of them, json.RawMessage, nested structs of
// the same kind and types with an UnmarshalJSON method decoded by the
// server; the rest of the params (maps, interfaces, arrays, []byte, other
// slices and structs) by the Codec.
//
// Results that are not primitives or a json.RawMessage are encoded by the
// server itself, as encoding/json encodes them, when the codec is one of
// this module's (JSONCodec, codec/jsonv2, codec/fast) and the result's type,
// at every depth, is made of structs without embedded structs or JSON
// methods of their own (",omitempty" is kept; a ",string" or ",omitzero"
// field leaves the struct to the codec), pointers, slices (not []byte),
// primitives and time.Time: a User, a *User or a []Item is encoded with
// neither reflection nor an allocation. Like string results, their
// strings are not HTML-escaped ("<" stays "<"). A value such a type holds
// that JSON cannot carry (a NaN, a year past 9999, a cycle) goes to the
// codec, whose answer is the result's. Maps, interfaces, arrays, []byte
// and every result of a method whose codec is not one of this module's
// (one that embeds JSONCodec included) are encoded by the Codec.
//
// # Codecs
//
// A Codec decodes the params and encodes the results that the server does
// not (see Registration). A server has one, JSONCodec (encoding/json) unless UseCodec
// sets another, and MethodCodec gives one method its own. Package
// codec/jsonv2 is encoding/json/v2 (the standard library's from Go 1.27,
// github.com/go-json-experiment/json before), and the module
// github.com/jsonrpc-go/jsonrpc/codec/fast is a faster codec of its own, so
// that no program downloads its dependencies unasked. They answer alike,
// as encoding/json does, and pass one conformance suite, package
// codec/codectest, which a Codec of your own can run.
//
// Unknown fields have one policy, at every depth: a named param that names
// no param of the function, and an object member that names no field of
// the struct it is decoded into, however deeply nested, are refused with
// CodeInvalidParams and data naming the member. AllowUnknownFields ignores
// them instead, at every depth. Names match params exactly and fields as
// encoding/json matches them, exactly or else case-insensitively.
//
// # Errors
//
// A method that returns an error which is, or wraps, an *Error answers with
// that error object. Any other error answers with CodeServerError and its
// standard message, "Server error": the error's text stays on the server
// unless ErrorDetails is set. context.Canceled and context.DeadlineExceeded
// answer with CodeCancelled and CodeDeadline. Params that do not fit give
// CodeInvalidParams with data naming the param, and the field when the
// codec names it; a number too large for its param's type (1e400 for a
// float64, 300 for a uint8) is such a param. A call of a method the server
// does not have answers CodeMethodNotFound with the name as a JSON string
// in its data, cut to 64 bytes on a rune boundary (ending with "…" when
// cut), so that neither the answer nor a log of it grows with a hostile
// name. JSON has no NaN or
// infinities: a result that is or holds one, whichever codec encodes it
// and for primitive results too, answers with CodeInternalError and data
// naming it, "result: +Inf cannot be encoded: JSON has no NaN or
// infinities" (add(1e308, 1e308) answers so). A panicking method answers
// with CodeInternalError; the panic does not leave the call, and the server
// keeps serving. An interceptor sees every such error, as the Go error the
// call failed with (a *PanicError for a panic), and may answer with another
// error object (see Interceptors). Client code
// tells the standard errors apart with errors.Is and the sentinels
// (errors.Is(err, jsonrpc.ErrMethodNotFound)).
//
// # Interceptors
//
// Intercept wraps every method call: an interceptor runs before the
// method, may refuse the call, hands the method a context of its own, and
// sees and may replace the call's outcome, as next returns it:
//
//	jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
//		if c.Method() == "admin" && !allowed(ctx) {
//			return jsonrpc.NewError(-32001, "forbidden") // the method does not run
//		}
//		err := next(ctx)                       // the method; c.Result() holds its result
//		log.Printf("%s: %v", c.Method(), err) // the Go error, a *PanicError for a panic
//		return err                            // nil, or the error to answer with
//	})
//
// Interceptors nest, and a server without one pays nothing for them.
// OnParseError rewrites the answer to a document that is not JSON, which
// has no Call to intercept. Inside a method or interceptor, Call.SetError
// sets the call's error without returning it.
//
// # Contexts and sessions
//
// A method that takes a context.Context gets a context derived from the one
// passed to Process. CallOf returns its Call: the request id as sent, the
// method name, the params, the transport's context value (package httprpc
// attaches the *http.Request, stream and ws the connection) and the server
// and session serving the call. Each call has its own Call; nothing in it is
// shared with another call.
//
// PrincipalOf returns who is calling: the Principal (subject, scopes,
// audience, expiry, raw claims) that the host set from what authenticated
// the connection or request, a verified client certificate or a bearer
// token its TokenVerifier accepted (see the hosts and transport), or nil
// when nothing did. Over a transport that authenticates nothing, such as
// standard input and output, a program gives one with WithPrincipal on
// the context it serves with; an interceptor gives its next another the
// same way.
//
// Who may call a method is declared when it is registered, and checked
// where it would run, after the interceptors: RequireScopes makes its
// calls require a Principal holding the scopes listed (with none, any
// Principal), and RequireAuth makes a server fail closed, every method
// without a policy of its own requiring a Principal unless it is declared
// Public. A call refused so answers Codes.Unauthenticated (no Principal,
// or an expired one) or Codes.Forbidden (a scope missing, named in its
// data), and its method does not run; a batch refuses element by
// element; an HTTP host answers a single request refused so with 401 or
// 403 and a Bearer challenge. A call of a method with no policy checks
// nothing and costs nothing more. CheckScopes makes the same check inside
// a method, for what it guards by its params.
//
// Sessions are method tables of their own, addressed by an id: Sessions
// holds them, each made with its Options; Create makes one, Lookup
// finds one without creating it, Destroy removes it and IDs lists them. A
// host routes requests to sessions (httprpc by URL path); clients cannot
// create them.
//
// # Specification
//
// The server follows JSON-RPC 2.0 strictly. "jsonrpc" must be "2.0"; the
// method must be a string; params, when present, an array or an object; the
// id a string, number or null, and it is echoed byte for byte as sent, so
// large and fractional numbers are not altered. A request without an id is a
// notification and gets no response, even when it fails. Members other than
// the four of the specification are ignored.
//
// The answers to bad input:
//
//   - Not JSON, including invalid UTF-8 in a string, a byte-order mark, text
//     after the value, empty input and nesting deeper than Limits.MaxDepth:
//     CodeParseError with id null.
//   - Not a request object (a number, a string, a member of the wrong type,
//     or a member given twice): CodeInvalidRequest, with the request's id
//     when it had a valid one and no member was repeated, otherwise null.
//   - An empty batch: one CodeInvalidRequest error object, not an array. A
//     batch larger than Limits.MaxBatch: one CodeInvalidRequest object, and none of
//     its requests run. Invalid elements of a batch: one error each.
//   - An unknown method: CodeMethodNotFound.
//
// # Concurrency
//
// A Server is safe for concurrent use by multiple goroutines, including
// registration while requests are processed. The request path takes no lock:
// the method table is an immutable map replaced atomically on each change.
//
// # Limits
//
// Every limit is on by default; UseLimits changes them (see Limits):
//
//   - MaxDepth, 128: how deeply a request document may nest;
//   - MaxBatch, 1024: the requests of a batch;
//   - MaxResponse, 16 MiB: the size of a response, checked as it is built;
//     past it a request is answered with CodeLimitExceeded (or the code of
//     the Codes of UseCodes) and its id, and a batch runs no more calls;
//   - MaxRunning, 4096: the calls of Blocking methods on goroutines of
//     their own, server-wide; past it they run on the caller's goroutine.
//     MaxRunningPerClient, half of it: those of one client;
//   - MaxHeld, 64 MiB: the bytes of the request copies those calls hold,
//     server-wide; past it a request runs its calls on the caller's
//     goroutine, uncopied. MaxHeldPerClient, half of it: those of one
//     client.
//
// A client is what the transport names (transport.WithClient): the hosts
// of this module name the remote IP address, or what their ClientKey
// says. A client past its share is refused nothing: its further calls run
// on its own transport's goroutine, which stops reading until they
// return, while the other clients' calls run on.
//
// The limits of the bytes on the wire (message and body sizes, connections,
// time to send a message, idle time) belong to the transport that reads
// them; each documents its own.
package jsonrpc
