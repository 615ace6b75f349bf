package testutil

import (
	"encoding/json"
	"testing"
)

func TestSameResponse(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{`{"result":19,"id":1}`, `{"id":1,"result":19}`, true},
		{`{"result":19,"id":1}`, `{"result":19,"id":2}`, false},
		{`[1,2,2]`, `[2,1,2]`, true},
		{`[1,2,2]`, `[1,1,2]`, false},
		{`[1,2]`, `[1,2,2]`, false},
		{`[]`, `[]`, true},
		{`[{"id":1},{"id":2}]`, `[{"id":2},{"id":1}]`, true},
		{`{"r":[1,2]}`, `{"r":[2,1]}`, false}, // only top-level arrays are unordered
		{`[[1,2]]`, `[[2,1]]`, false},
		{`[1]`, `{"0":1}`, false},
		{`{"a":null}`, `{}`, false},
	} {
		var a, b any
		if err := json.Unmarshal([]byte(tt.a), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tt.b), &b); err != nil {
			t.Fatal(err)
		}
		if got := SameResponse(a, b); got != tt.same {
			t.Errorf("SameResponse(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
		if got := SameResponse(b, a); got != tt.same {
			t.Errorf("SameResponse(%s, %s) = %v, want %v", tt.b, tt.a, got, tt.same)
		}
	}
}
