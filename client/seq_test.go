package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
)

// TestCallSeqPages: CallSeq reads an answer of the enumerator shape by
// its members' decoded names (escaped, or given twice: the last), an
// array as the whole sequence, and refuses, with an error, an answer
// that is no page.
func TestCallSeqPages(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("page", func(raw string) json.RawMessage { return json.RawMessage(raw) })
	c := client.New(client.Local(srv))
	defer c.Close()
	for _, tc := range []struct {
		answer string
		want   string // the items, or the error's text
	}{
		{`{"values":[1,2,3]}`, "1 2 3"},
		{`{"v\u0061lues":[1,2],"token":null}`, "1 2"},
		{`{"values":[9],"values":[4,5],"finished":true}`, "4 5"},
		{`[6,7]`, "6 7"},
		{`{"values":null}`, ""},
		{`{"values":{"a":1}}`, "error: jsonrpc: result of page: its values are not an array"},
		{`{"values":[1],"finished":"yes"}`, "error: jsonrpc: result of page: its finished is not a boolean"},
		{`"values"`, "error: jsonrpc: result of page: the answer is neither an object nor an array"},
	} {
		var got []string
		for v, err := range client.CallSeq[int](context.Background(), c, "page", []string{tc.answer}) {
			if err != nil {
				got = append(got, "error: "+err.Error())
				break
			}
			got = append(got, fmt.Sprint(v))
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("an answer of %s: %q, want %q", tc.answer, s, tc.want)
		}
	}
}
