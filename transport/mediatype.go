package transport

import (
	"mime"
	"strings"
)

// IsJSONContentType reports whether v, a Content-Type header, names a JSON
// media type an HTTP host should accept: application/json, application/json-rpc or
// application/jsonrequest, compared case-insensitively, with optional
// parameters, of which a charset must be utf-8.
func IsJSONContentType(v string) bool {
	mt, params, hasParams := strings.Cut(v, ";")
	mt = strings.TrimSpace(mt)
	if !strings.EqualFold(mt, "application/json") &&
		!strings.EqualFold(mt, "application/json-rpc") &&
		!strings.EqualFold(mt, "application/jsonrequest") {
		return false
	}
	if !hasParams || strings.TrimSpace(params) == "" {
		return true
	}
	// Parameters are rare enough to leave their syntax (quoting, repeats)
	// to package mime.
	_, ps, err := mime.ParseMediaType(v)
	if err != nil {
		return false
	}
	cs, ok := ps["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}
