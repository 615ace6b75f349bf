package transport

import "testing"

func TestIsJSONContentTypeContentType(t *testing.T) {
	for v, want := range map[string]bool{
		"application/json":                       true,
		"Application/JSON":                       true,
		"application/json-rpc":                   true,
		"application/jsonrequest":                true,
		"application/json; charset=utf-8":        true,
		`application/json; charset="UTF-8"`:      true,
		"application/json;":                      true,
		"application/json; charset=latin1":       false,
		"application/json; charset":              false,
		"text/plain":                             false,
		"":                                       false,
		"application/jsonx":                      false,
		"multipart/form-data; boundary=x":        false,
		"application/json; foo=bar":              true,
		"application/json; charset=utf-8; q=0.1": true,
	} {
		if got := IsJSONContentType(v); got != want {
			t.Errorf("IsJSONContentType(%q) = %v, want %v", v, got, want)
		}
	}
}
