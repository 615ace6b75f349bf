// Package gen writes Go code from an OpenRPC document (1.x, JSON Schema
// draft 7): the types of its schemas, the errors it declares, a typed
// client and a server interface, so that both ends of an API written down
// in OpenRPC are typed Go. Command openrpc-gen runs it from the command
// line and from go:generate:
//
//	//go:generate go run github.com/jsonrpc-go/jsonrpc/cmd/openrpc-gen -pkg ethrpc -out . openrpc.json
//
// Generate returns three files, PREFIX_types.go, PREFIX_client.go and
// PREFIX_server.go (PREFIX is "openrpc", or Config.Name in lower case),
// formatted as gofmt formats them; the same document and Config give the
// same bytes. The code imports the standard library and this module's
// packages jsonrpc, client and openrpc, and the packages of the types
// Config.Types maps components to.
//
// # Types
//
// Each schema of components.schemas is a named type, in the order of
// their names; schemas written in place (a member's object, an enum) are
// named after where they are: the type, then the member.
//
//   - boolean is bool; number float64 (float32 with the format float);
//     integer int64, or the type its format names (int32, uint64, ...), or
//     uint64 with a minimum of 0 or more; string is string, time.Time with
//     the format date-time, []byte with the content encoding base64.
//   - A string enum is a string type with a constant per value.
//   - array is a slice, and an object with properties a struct: a field
//     per member, sorted by name, with the member's json name; a member
//     that is not required is a pointer (or a slice, map or
//     json.RawMessage) with omitempty. An object of any members
//     (additionalProperties, patternProperties) is a map.
//   - allOf is one struct of the members of all; oneOf and anyOf of
//     objects one struct of the members of any, required where every
//     variant requires them.
//   - null among the types, or a variant that is null (a reference to a
//     null schema included), makes the type nullable: a pointer, unless its
//     zero value is null already.
//   - oneOf and anyOf of one kind of value (strings, say) are that kind;
//     of several kinds, a union: a struct with a field per kind, one of
//     which is set, whose JSON methods choose the field by the kind of the
//     value, and for arrays by the kind of their first element (an array
//     of hashes or of transaction objects). Two variants of one kind share
//     a field: JSON Schema's validation keywords (pattern, const, not),
//     which would tell them apart, have no Go type.
//   - {} and values no Go type holds are json.RawMessage.
//   - $ref to a component is its type; a $ref into the document (to a
//     member of another schema) is the type of what it points to.
//   - Config.Types maps a component to a type of the user's own,
//     "import/path.Name", of which the component is then an alias: big
//     quantities, say, that the document writes as hex strings.
//
// # Client
//
// The client, made by NewClient over a client.Client or the peer.Conn of
// a method's caller, has a Go method per method of the document, named by
// it (eth_getBlockByNumber is EthGetBlockByNumber), that takes the
// params as Go params and returns the result's type and an error:
//
//	block, err := eth.EthGetBlockByNumber(ctx, "latest", true)
//
// Params go by position, as an array, unless the method's paramStructure
// is by-name, when they go as an object. An optional param is a pointer
// (or a nil slice, map or json.RawMessage), left out of the array when it
// and the params after it are nil; a variadic param (the extension
// x-variadic that package openrpc writes) is a variadic Go param. A
// method whose result is null returns only an error, and has a second Go
// method, Notify and its name, that sends it as a notification.
//
// The calls are client.Call with the result's type: an error answer is the
// *jsonrpc.Error it is, and the errors the methods declare are package
// variables (ErrExecutionReverted) that errors.Is matches by code.
//
// # Server
//
// The server interface (Server) has a method per method of the document,
// with the client's params, and Register registers an implementation on a
// *jsonrpc.Server under the document's names: with ParamNames unless the
// document names its params param0, param1, ... and takes them by
// position only; with Defaults for optional params that have a default; as
// one struct of params (the type METHODParams) when a param is optional
// without a default, or the only param is an object, which Register would
// otherwise take member by member. Register takes options per method (a
// Blocking method, say), and registers all methods or none.
// UnimplementedServer answers every method with jsonrpc.ErrMethodNotFound:
// embed it to serve part of a large API. Info returns the document's info
// and its methods' summaries, descriptions and errors, so that
//
//	ethrpc.Register(srv, impl, nil)
//	openrpc.Register(srv, ethrpc.Info())
//
// serves, as rpc.discover, a document of the methods that says what the
// input said, as far as openrpc.Describe can say it (see the package's
// round-trip test).
//
// # Limits
//
// What Go cannot say is left out, each time the same way: validation
// keywords (pattern, minimum, maxItems, const, not) are not checked;
// variants of one kind of value share a union field; a method that takes
// params by name only is registered to take them both ways; by position
// with names of its own, both ways too; a required array is a slice, which
// may be nil. References to other documents, and methods that are
// references, are refused.
package gen
