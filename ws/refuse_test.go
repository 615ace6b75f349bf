//go:build !js

package ws

import (
	"strings"
	"testing"
)

func TestAppendRefusal(t *testing.T) {
	const e = `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"server shutting down"},"id":`
	big := "[" + strings.Repeat(`{"jsonrpc":"2.0","method":"m","id":1},`, maxRefusedBatch) + `{"jsonrpc":"2.0","method":"m","id":1}]`
	for _, tc := range []struct{ req, want string }{
		{`{"jsonrpc":"2.0","method":"m","id":7}`, e + `7}`},
		{` {"id":"a","method":"m","jsonrpc":"2.0","params":[1]} `, e + `"a"}`},
		{`{"jsonrpc":"2.0","method":"m","id":null}`, e + `null}`},
		{`{"jsonrpc":"2.0","method":"m","id":1.5e3}`, e + `1.5e3}`},
		{`{"jsonrpc":"2.0","method":"m","id":[1]}`, e + `null}`},
		{`{"jsonrpc":"2.0","method":"m","id":1,"id":2}`, e + `null}`},
		{`{"jsonrpc":"2.0","method":"m"}`, ``},
		{`{"jsonrpc":"2.0","method":"m","params":{}}`, ``},
		{`{"jsonrpc":"2.0","method":"m","params":3}`, e + `null}`},
		{`{"jsonrpc":"1.0","method":"m"}`, e + `null}`},
		{`{"method":"m"}`, e + `null}`},
		{`{}`, e + `null}`},
		{`3`, e + `null}`},
		{`not json`, e + `null}`},
		{``, e + `null}`},
		{`[]`, e + `null}`},
		{`[1,{"jsonrpc":"2.0","method":"m","id":2},{"jsonrpc":"2.0","method":"m"}]`, `[` + e + `null},` + e + `2}]`},
		{`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":"n"}]`, ``},
		{big, e + `null}`},
	} {
		if got := string(appendRefusal([]byte("x"), []byte(tc.req))); got != "x"+tc.want {
			t.Errorf("%.60s:\ngot  %s\nwant x%s", tc.req, got, tc.want)
		}
	}
}
