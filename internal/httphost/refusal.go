package httphost

import (
	"context"
	"net/http"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A Request is the context of the calls of one HTTP request, as the hosts
// make it: what transport.WithContextValues gives (the host's context
// value, the client's name, the Principal) and the slot in which the
// server records a call it refused for who was calling (keys.Refused),
// in one allocation.
type Request struct {
	context.Context
	v       any
	client  string
	p       *jsonrpc.Principal // nil: ctx's
	refused keys.RefusalSlot
}

// WithRequest returns the context of the calls of a request, as
// transport.WithContextValues(ctx, v, client, p) with a slot for the
// server's refusals.
func WithRequest(ctx context.Context, v any, client string, p *jsonrpc.Principal) *Request {
	return &Request{Context: ctx, v: v, client: client, p: p}
}

func (c *Request) Value(key any) any {
	switch key.(type) {
	case keys.ContextValue:
		return c.v
	case keys.Client:
		return c.client
	case keys.Principal:
		if c.p != nil {
			return c.p
		}
	case keys.Refused:
		return &c.refused
	}
	return c.Context.Value(key)
}

// Refused returns the last call of the request the server refused for
// who was calling, nil for none.
func (c *Request) Refused() *keys.Refusal { return c.refused.Load() }

// Single reports whether the request document doc is one object, not a
// batch: a refusal of its call answers it with the refusal's status.
func Single(doc []byte) bool {
	i := wire.SkipSpace(doc, 0)
	return i < len(doc) && doc[i] == '{'
}

// RefusalAnswer returns the HTTP status and the WWW-Authenticate challenge
// of the answer to a request whose one call the server refused for r: 401
// and a Bearer challenge without error (RFC 6750, section 3: no
// credentials, or none that the method takes) when it wanted a Principal,
// 403 and error="insufficient_scope" with the scopes it requires when the
// Principal lacked one. metadata, when not "", is the URL of the protected
// resource's metadata (RFC 9728), added as resource_metadata.
func RefusalAnswer(r *keys.Refusal, metadata string) (status int, challenge string) {
	if !r.Forbidden {
		return http.StatusUnauthorized, Challenge("", "", metadata)
	}
	return http.StatusForbidden, Challenge("insufficient_scope", strings.Join(r.Scopes, " "), metadata)
}

// Challenge returns a WWW-Authenticate challenge of the Bearer scheme
// with the error, scope and resource_metadata attributes that are not "",
// in that order, each a quoted string.
func Challenge(errCode, scope, metadata string) string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	for _, a := range [...]struct{ name, value string }{{"error", errCode}, {"scope", scope}, {"resource_metadata", metadata}} {
		if a.value == "" {
			continue
		}
		b.WriteString(sep)
		b.WriteString(a.name)
		b.WriteString(`="`)
		for i := 0; i < len(a.value); i++ {
			if c := a.value[i]; c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(a.value[i])
		}
		b.WriteByte('"')
		sep = ", "
	}
	return b.String()
}

// RefusalIn returns the refusal a response carries when it is the answer
// to one call that the server refused for who was calling, in the codes
// c (with their defaults): an error whose code is c.Unauthenticated, or
// c.Forbidden with the scopes of its data's "scope"; nil for any other
// response. It is for the hosts that cannot give the server a slot for
// the request (a session's calls share their context). The names of the
// response's members are read up to "result" or "error", so that a long
// result is not scanned: the library writes "jsonrpc" first.
func RefusalIn(resp []byte, c jsonrpc.Codes) *keys.Refusal {
	if len(resp) == 0 || resp[0] != '{' {
		return nil
	}
	var errObj []byte
	for pos := 0; errObj == nil; {
		name, value, ok := wire.NextName(resp, pos)
		switch {
		case !ok, wire.NameIs(name, "result"):
			return nil
		case wire.NameIs(name, "error"):
			errObj = resp[value:wire.SkipValue(resp, value)]
		}
		pos = wire.SkipValue(resp, value)
	}
	code, ok := wire.ParseInt(wire.Member(errObj, "code"), 64)
	if !ok {
		return nil
	}
	c = c.WithDefaults()
	switch jsonrpc.Code(code) {
	case c.Unauthenticated:
		return &anonymous
	case c.Forbidden:
		scope, _ := wire.Unquote(wire.Member(wire.Member(errObj, "data"), "scope"), false)
		return &keys.Refusal{Forbidden: true, Scopes: strings.Fields(scope)}
	}
	return nil
}

// anonymous is the refusal of a call for want of a Principal.
var anonymous keys.Refusal
