package jsonrpc

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/keys"
)

// The codes of a call refused for who is calling (see Codes).
const (
	// CodeUnauthenticated is the default of Codes.Unauthenticated: a call
	// that requires a Principal made by none.
	CodeUnauthenticated Code = -32012
	// CodeForbidden is the default of Codes.Forbidden: a call whose
	// Principal lacks a scope the method requires.
	CodeForbidden Code = -32013
)

// RequireScopes makes the method's calls require a Principal (see
// PrincipalOf) that holds every scope listed, compared byte for byte; with
// none listed, any Principal. A call made by none, or by one whose Expiry
// has passed, is refused with Codes.Unauthenticated; a call by a Principal
// without one of the scopes, with Codes.Forbidden and data naming the
// scopes the method requires, {"scope":"files:read files:write"}. The
// method does not run. Later options win: RequireScopes after Public
// replaces it, and Public after RequireScopes.
//
// The check runs where the method would: after the server's interceptors,
// with the Principal of the context they pass on (an interceptor that
// maps a Principal to another, with WithPrincipal, decides what the check
// sees), and the interceptors see a refusal as the error next returns.
// A notification refused is not run, and answered with nothing.
//
// Over HTTP a single request refused so is answered with the status the
// host gives it (401 with a Bearer challenge without a Principal, 403
// with error="insufficient_scope" and the scopes), the error object as
// its body; a batch answers each element on its own, with 200.
func RequireScopes(scopes ...string) MethodOption {
	scopes = slices.Clone(scopes)
	return func(c *methodConfig) { c.access, c.scopes = accessScoped, scopes }
}

// Public declares that anyone may call the method, anonymous callers
// included, on a server that requires authentication (RequireAuth): the
// method a client calls before it has credentials, a health check. On a
// server that does not, it changes nothing. Later options win (see
// RequireScopes).
func Public() MethodOption {
	return func(c *methodConfig) { c.access, c.scopes = accessPublic, nil }
}

// RequireAuth makes the server fail closed: a method registered without a
// policy of its own requires a Principal, as RequireScopes() with no scope
// requires one, unless it is declared Public. It applies to the methods
// registered on the server, and on the sessions made with it among their
// Options (Sessions), from then on; among them openrpc's rpc.discover.
//
// Without it, a method without a policy is anybody's.
func RequireAuth() Option { return func(cf *config) { cf.requireAuth = true } }

// access is a method's policy as its options give it.
type access uint8

const (
	accessDefault access = iota // the server's: RequireAuth or anybody's
	accessPublic                // Public
	accessScoped                // RequireScopes
)

// A guard is the policy of a method that checks who calls it, made at
// registration; a method with none has a nil guard, and its calls check
// nothing.
type guard struct {
	scopes    []string
	forbidden *Error       // the refusal for a missing scope, with its data, in the default code
	missing   keys.Refusal // what the host learns of it
}

// newGuard returns the guard of a method registered with mc on a server
// whose settings are cf, or nil when its calls check nothing.
func newGuard(mc *methodConfig, cf *config) *guard {
	switch {
	case mc.access == accessPublic:
		return nil
	case mc.access == accessDefault && !cf.requireAuth:
		return nil
	}
	g := &guard{scopes: mc.scopes, missing: keys.Refusal{Forbidden: true, Scopes: mc.scopes}}
	if len(mc.scopes) > 0 {
		g.forbidden = errForbidden.WithData(scopeData{Scope: strings.Join(mc.scopes, " ")})
	}
	return g
}

// scopeData is the data of a Forbidden refusal: the scopes required, as
// the scope attribute of RFC 6750's challenge writes them.
type scopeData struct {
	Scope string `json:"scope"`
}

var (
	errUnauthenticated = &Error{Code: CodeUnauthenticated, Message: "Authentication required"}
	errForbidden       = &Error{Code: CodeForbidden, Message: "Insufficient scope"}
)

// check returns nil when the Principal of ctx may call the guarded method,
// and otherwise its refusal, in the codes of the call (cf's, or those ctx
// carries), which it records for the host (keys.Refused).
func (g *guard) check(ctx context.Context, cf *config) error {
	switch missing(PrincipalOf(ctx), g.scopes) {
	case refusedNone:
		return nil
	case refusedAnonymous:
		refused(ctx, &anonymous)
		return inCode(errUnauthenticated, cf.codesOf(ctx).Unauthenticated)
	}
	refused(ctx, &g.missing)
	return inCode(g.forbidden, cf.codesOf(ctx).Forbidden)
}

// The outcomes of missing.
const (
	refusedNone      = iota
	refusedAnonymous // no Principal, or an expired one
	refusedScope     // a Principal without one of the scopes
)

// missing tells whether p may make a call that requires scopes.
func missing(p *Principal, scopes []string) int {
	if p == nil || !p.Expiry.IsZero() && !time.Now().Before(p.Expiry) {
		return refusedAnonymous
	}
	for _, s := range scopes {
		if !slices.Contains(p.Scopes, s) {
			return refusedScope
		}
	}
	return refusedNone
}

// anonymous is what the host learns of a call refused for want of a
// Principal.
var anonymous keys.Refusal

// CheckScopes returns nil when the Principal of ctx holds every scope
// listed (with none, when ctx has a Principal), and otherwise the error
// RequireScopes refuses a call with, in the codes of the call whose
// context ctx is (see Codes): for the protocol layers that guard what a
// method does for its params rather than the method, such as one tool of
// an MCP server's tools/call. Returned by the method, the error refuses
// its call as the policy would, the HTTP status and challenge included.
func CheckScopes(ctx context.Context, scopes ...string) error {
	var cf *config
	if c := CallOf(ctx); c != nil {
		cf = c.server.cfg
	}
	switch missing(PrincipalOf(ctx), scopes) {
	case refusedNone:
		return nil
	case refusedAnonymous:
		refused(ctx, &anonymous)
		return inCode(errUnauthenticated, cf.codesOf(ctx).Unauthenticated)
	}
	scopes = slices.Clone(scopes) // what the host learns outlives the call
	refused(ctx, &keys.Refusal{Forbidden: true, Scopes: scopes})
	return inCode(errForbidden, cf.codesOf(ctx).Forbidden).WithData(scopeData{Scope: strings.Join(scopes, " ")})
}

// inCode returns e, or a copy of it with code when its code differs.
func inCode(e *Error, code Code) *Error {
	if e.Code == code {
		return e
	}
	c := *e
	c.Code = code
	return &c
}

// refused records r for the host of ctx, if it asked (keys.Refused).
func refused(ctx context.Context, r *keys.Refusal) {
	if slot, ok := ctx.Value(keys.Refused{}).(*keys.RefusalSlot); ok {
		slot.Store(r)
	}
}
