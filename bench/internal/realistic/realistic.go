// Package realistic is the workload of methods typical of real services that
// the benchmarks serve: createUser takes a struct by named params and
// returns it, search returns a list of twenty items, getBlock returns a
// go-ethereum style block as a map, and echoRaw returns its raw params.
//
// Each method has a floor: what any server must do for it, with a given
// codec, without a JSON-RPC envelope: decode the params into the typed
// values, call the method and encode the result. The benchmarks set this
// library's calls against it.
package realistic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// Address is the nested struct of a User.
type Address struct {
	Street   string `json:"street"`
	City     string `json:"city"`
	Country  string `json:"country"`
	Postcode string `json:"postcode"`
}

// User is the param and result of createUser: eight fields, among them a
// nested struct, a slice and a time.Time.
type User struct {
	ID      int64     `json:"id"`
	Name    string    `json:"name"`
	Email   string    `json:"email"`
	Age     int       `json:"age"`
	Admin   bool      `json:"admin"`
	Tags    []string  `json:"tags"`
	Address Address   `json:"address"`
	Created time.Time `json:"created"`
}

// Item is one search result.
type Item struct {
	ID      int64   `json:"id"`
	Title   string  `json:"title"`
	URL     string  `json:"url"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
}

// NewUserID is the id createUser gives every user.
const NewUserID = 1001

// errNoName is createUser's answer to a user without a name.
var errNoName = jsonrpc.ErrInvalidParams.WithData("name is required")

// CreateUser returns u with its id set.
func CreateUser(_ context.Context, u User) (User, error) {
	if u.Name == "" {
		return User{}, errNoName
	}
	u.ID = NewUserID
	return u, nil
}

// MaxLimit is the most items Search returns.
const MaxLimit = 20

var items = func() []Item {
	is := make([]Item, MaxLimit)
	for i := range is {
		is[i] = Item{
			ID:      int64(i + 1),
			Title:   fmt.Sprintf("JSON-RPC in practice, part %d", i+1),
			URL:     fmt.Sprintf("https://example.com/a/%d", i+1),
			Score:   float64(100-i) / 100,
			Snippet: "Any transport.",
		}
	}
	return is
}()

// Search returns up to limit items matching query (the same items for
// every query, as a cache would).
func Search(query string, limit int) ([]Item, error) {
	if query == "" {
		return nil, errors.New("empty query")
	}
	return items[:max(0, min(limit, MaxLimit))], nil
}

var block = func() map[string]any {
	hash := func(seed uint64) string {
		return fmt.Sprintf("0x%016x%016x%016x%016x", seed*0x9e3779b97f4a7c15, seed, ^seed, seed<<7)
	}
	txs := make([]any, 12)
	for i := range txs {
		txs[i] = hash(uint64(1000 + i))
	}
	return map[string]any{
		"number":           "0x121eac0",
		"hash":             hash(1),
		"parentHash":       hash(2),
		"nonce":            "0x0000000000000000",
		"sha3Uncles":       hash(3),
		"logsBloom":        "0x" + strings.Repeat("0", 512),
		"transactionsRoot": hash(4),
		"stateRoot":        hash(5),
		"receiptsRoot":     hash(6),
		"miner":            "0x95222290dd7278aa3ddd389cc1e1d165cc4bafe5",
		"difficulty":       "0x0",
		"totalDifficulty":  "0xc70d815d562d3cfa955",
		"extraData":        "0x6265617665726275696c642e6f7267",
		"size":             "0x1a2b3",
		"gasLimit":         "0x1c9c380",
		"gasUsed":          "0x1c9a5d7",
		"timestamp":        "0x65b6c4a3",
		"baseFeePerGas":    "0x3b9aca00",
		"uncles":           []any{},
		"transactions":     txs,
	}
}()

// GetBlock returns the block number, with its transactions in full when
// full is set (here their hashes either way).
func GetBlock(number uint64, full bool) (map[string]any, error) {
	if number == 0 {
		return nil, errors.New("no such block")
	}
	return block, nil
}

// EchoRaw returns its param unchanged.
func EchoRaw(v json.RawMessage) json.RawMessage { return v }

// Register adds the four methods to s with Register, as most services
// would register them.
func Register(s *jsonrpc.Server) error {
	return errors.Join(
		s.Register("createUser", CreateUser),
		s.Register("search", Search, jsonrpc.ParamNames("query", "limit")),
		s.Register("getBlock", GetBlock, jsonrpc.ParamNames("number", "full")),
		s.Register("echoRaw", EchoRaw),
	)
}

// SearchParams are the params of search for RegisterTyped, by position
// (["json-rpc",20]) or by name.
type SearchParams struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// BlockParams are the params of getBlock for RegisterTyped.
type BlockParams struct {
	Number uint64 `json:"number"`
	Full   bool   `json:"full"`
}

// RegisterTyped adds the four methods to s as typed methods (see
// jsonrpc.Typed), the two of two params taking a struct of them.
func RegisterTyped(s *jsonrpc.Server) error {
	return errors.Join(
		s.Register("createUser", jsonrpc.Typed(CreateUser)),
		s.Register("search", jsonrpc.TypedNoContext(func(p SearchParams) ([]Item, error) { return Search(p.Query, p.Limit) })),
		s.Register("getBlock", jsonrpc.TypedNoContext(func(p BlockParams) (map[string]any, error) { return GetBlock(p.Number, p.Full) })),
		s.Register("echoRaw", jsonrpc.TypedNoContext(func(v json.RawMessage) (json.RawMessage, error) { return EchoRaw(v), nil })),
	)
}

// NewServer returns a server with the four methods, made with opts.
func NewServer(opts ...jsonrpc.Option) (*jsonrpc.Server, error) {
	s := jsonrpc.NewServer(opts...)
	return s, Register(s)
}

// NewTypedServer returns a server with the four methods registered with
// RegisterTyped, made with opts.
func NewTypedServer(opts ...jsonrpc.Option) (*jsonrpc.Server, error) {
	s := jsonrpc.NewServer(opts...)
	return s, RegisterTyped(s)
}

// A Method is one method of the workload: its name, a request and its
// response, the request's params, and the floor.
type Method struct {
	Name     string
	Request  string // a JSON-RPC request object
	Response string // the response to Request
	Params   string // the params of Request
	Result   string // the result of Response
	// Floor decodes params into the method's typed values with c, calls
	// the method and appends its result encoded with c to dst.
	Floor func(c jsonrpc.Codec, dst, params []byte) ([]byte, error)
}

const userParams = `{"name":"Ada Lovelace","email":"ada.lovelace@engines.example.org","age":36,"admin":false,` +
	`"tags":["mathematics","analytical-engine","poetry","notes","computing-history"],` +
	`"address":{"street":"12 St James's Square, Westminster","city":"London","country":"GB","postcode":"SW1Y 4JH"},` +
	`"created":"2025-11-27T10:15:00Z"}`

var echoParams = func() string {
	var b strings.Builder
	b.WriteString(`[{"kind":"document","entries":[`)
	for i := range 12 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"key":"entry-%02d","value":%d,"ok":true,"note":"kept as sent, byte for byte"}`, i, i*37)
	}
	b.WriteString(`]}]`)
	return b.String()
}()

// Methods are the four methods, in table order.
var Methods = []Method{
	{
		Name:   "createUser",
		Params: userParams,
		Floor: func(c jsonrpc.Codec, dst, params []byte) ([]byte, error) {
			var u User
			if err := c.Unmarshal(params, &u, false); err != nil {
				return dst, err
			}
			r, err := CreateUser(context.Background(), u)
			if err != nil {
				return dst, err
			}
			return c.Append(dst, r)
		},
	},
	{
		Name:   "search",
		Params: `["json-rpc",20]`,
		Floor: func(c jsonrpc.Codec, dst, params []byte) ([]byte, error) {
			var (
				q string
				n int
			)
			if err := c.Unmarshal(params, &[]any{&q, &n}, false); err != nil {
				return dst, err
			}
			r, err := Search(q, n)
			if err != nil {
				return dst, err
			}
			return c.Append(dst, r)
		},
	},
	{
		Name:   "getBlock",
		Params: `[19000000,true]`,
		Floor: func(c jsonrpc.Codec, dst, params []byte) ([]byte, error) {
			var (
				n    uint64
				full bool
			)
			if err := c.Unmarshal(params, &[]any{&n, &full}, false); err != nil {
				return dst, err
			}
			r, err := GetBlock(n, full)
			if err != nil {
				return dst, err
			}
			return c.Append(dst, r)
		},
	},
	{
		Name:   "echoRaw",
		Params: echoParams,
		Floor: func(c jsonrpc.Codec, dst, params []byte) ([]byte, error) {
			var v json.RawMessage
			if err := c.Unmarshal(params, &[]any{&v}, false); err != nil {
				return dst, err
			}
			return c.Append(dst, EchoRaw(v))
		},
	},
}

func init() {
	for i := range Methods {
		m := &Methods[i]
		m.Request = `{"jsonrpc":"2.0","method":"` + m.Name + `","params":` + m.Params + `,"id":` + fmt.Sprint(i+1) + `}`
		out, err := m.Floor(jsonrpc.JSONCodec{}, nil, []byte(m.Params))
		if err != nil {
			panic("realistic: " + m.Name + ": " + err.Error())
		}
		m.Result = string(out)
		m.Response = `{"jsonrpc":"2.0","result":` + m.Result + `,"id":` + fmt.Sprint(i+1) + `}`
	}
}
