package testutil

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseTranscript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []Exchange
		wantErr bool
	}{
		{
			name: "request and response",
			in:   "# comment\n\n--> {\"a\":1}\n<-- {\"b\":2}\n",
			want: []Exchange{{Line: 3, Req: `{"a":1}`, Want: `{"b":2}`}},
		},
		{
			name: "no response line",
			in:   "--> 1\n--> 2\n",
			want: []Exchange{{Line: 1, Req: "1"}, {Line: 2, Req: "2"}},
		},
		{
			name: "empty response line",
			in:   "--> 1\n<--\n--> 2\n<-- \r\n",
			want: []Exchange{{Line: 1, Req: "1"}, {Line: 3, Req: "2"}},
		},
		{
			name: "request kept as written",
			in:   "-->  [ 1 ] \n",
			want: []Exchange{{Line: 1, Req: " [ 1 ] "}},
		},
		{name: "response first", in: "<-- 1\n", wantErr: true},
		{name: "two responses", in: "--> 1\n<-- 1\n<-- 2\n", wantErr: true},
		{name: "stray text", in: "--> 1\nhello\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTranscript(strings.NewReader(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseTranscript(%q) = %+v, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTranscript(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseTranscript(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidateResponse(t *testing.T) {
	t.Parallel()
	valid := []string{
		``,
		`{"jsonrpc":"2.0","result":null,"id":null}`,
		`{"jsonrpc":"2.0","result":{"a":" x "},"id":"1"}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`,
		`{"jsonrpc":"2.0","error":{"code":1,"message":"m","data":[1,{"a":1}]},"id":1e400}`,
		`[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":2,"id":1}]`,
	}
	invalid := []string{
		`{"jsonrpc":"2.0","result":1,"id":1}x`,
		`{"jsonrpc":"2.0","result":1, "id":1}`,
		`{"jsonrpc":"2.0","result":1,"id":1}` + "\n",
		`{"jsonrpc":"2.0","result":1,"result":2,"id":1}`,
		`{"jsonrpc":"2.0","result":{"a":1,"a":2},"id":1}`,
		`{"jsonrpc":"1.0","result":1,"id":1}`,
		`{"result":1,"id":1}`,
		`{"jsonrpc":"2.0","result":1}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"m"},"id":1}`,
		`{"jsonrpc":"2.0","result":1,"id":[1]}`,
		`{"jsonrpc":"2.0","result":1,"id":1,"extra":1}`,
		`{"jsonrpc":"2.0","error":{"code":1.5,"message":"m"},"id":1}`,
		`{"jsonrpc":"2.0","error":{"code":1},"id":1}`,
		`{"jsonrpc":"2.0","error":"bad","id":1}`,
		`[]`,
		`[1]`,
		`1`,
	}
	for _, s := range valid {
		if err := ValidateResponse([]byte(s)); err != nil {
			t.Errorf("ValidateResponse(%q) = %v, want nil", s, err)
		}
	}
	for _, s := range invalid {
		if err := ValidateResponse([]byte(s)); err == nil {
			t.Errorf("ValidateResponse(%q) = nil, want an error", s)
		}
	}
}
