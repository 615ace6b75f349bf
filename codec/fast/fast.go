// Package fast is a jsonrpc.Codec faster than encoding/json, in a module of
// its own so that only a program that asks for it downloads its library:
//
//	srv := jsonrpc.NewServer(jsonrpc.UseCodec(fast.Codec{}))
//
// It is github.com/goccy/go-json, configured to answer as encoding/json
// does, and it passes the suite of package codec/codectest, as the
// server's default codec and package codec/jsonv2 do.
//
// # Why go-json
//
// On the workloads of a server (a record of eight fields with a nested
// struct, a slice and a time.Time; a list of 20 such records; a free-form
// map[string]any), each library configured as the jsonrpc.Codec contract
// asks (sorted map keys, invalid UTF-8 replaced, unknown fields refused),
// go-json encoded and decoded 2 to 3.5 times as fast as encoding/json
// (one run each on Go 1.26 and 1.27, two cores), encoding with
// two allocations where encoding/json makes 3 to 26.
// github.com/bytedance/sonic, so configured, was within about 25% of
// go-json either way (faster at decoding some, slower at encoding all),
// but it runs only on amd64 and arm64 and on the Go releases its build
// tags name (elsewhere it is encoding/json itself), and it brings seven
// modules where go-json brings none; go-json runs on every platform. The
// benchmark is package codecbench of the module bench:
//
//	cd bench && go test -run '^$' -bench Compare ./codecbench
//
// # What it costs
//
// go-json reaches into the runtime's representation of types and values
// with package unsafe, which the Go 1 promise does not cover: new Go
// releases have broken it (a panic encoding maps on Go 1.18,
// goccy/go-json#308), and could again, in ways no test of this module
// sees in advance. So that a new release does not break a program built
// with it, this package uses go-json only on the Go releases it was
// tested on (Go 1.26 and 1.27): on a later one, or with the build tag
// jsonrpc_nogoccy, Codec is encoding/json (jsonrpc.JSONCodec), slower but
// answering alike. Codec.Library reports which one a program was built
// with.
//
// go-json also refuses some values encoding/json takes: the conformance
// suite found that it refuses the largest float32, 3.4028235e+38, as out
// of range. So whenever go-json fails to decode or encode a value,
// encoding/json does it again from the start and has the last word: its
// answer, or its error, is the codec's. Errors therefore cost both
// libraries' time, and their messages are encoding/json's; a value that
// go-json decodes wrongly without an error would not be caught this way,
// and the suite is what guards against that.
//
// As for any library that is not the standard one, its fixes and security
// updates are its maintainers' and come on their schedule.
package fast
