package transport

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The errors of CheckHost and CheckOrigin. A host answers them with 403
// Forbidden.
var (
	// ErrHostNotAllowed: a request came to a loopback address with a
	// Host that is neither a loopback name nor one of the allowed hosts,
	// as a page of another site sends it after DNS rebinding.
	ErrHostNotAllowed = errors.New("jsonrpc: Host not allowed on a loopback address; allow the name (AllowedHosts)")
	// ErrOriginNotAllowed: a request carries the Origin of a page that is
	// neither of the request's host nor one of the allowed origins.
	ErrOriginNotAllowed = errors.New("jsonrpc: Origin not allowed; allow it (AllowedOrigins)")
)

// CheckHost returns nil when host, a Host header value ("name",
// "name:port", "[::1]:port"), may be served on a connection that came to
// the local address local, and ErrHostNotAllowed otherwise. A connection
// to a loopback address (127.0.0.0/8, ::1) is served only for a loopback
// name (localhost, a name under .localhost, a loopback IP address) or a
// name of allowed, compared without regard to case: a server on loopback
// trusts the machine's own clients, and a page of another site that
// rebinds its name to 127.0.0.1 sends its own name as Host. A connection
// to any other address, or whose address is unknown (nil, a Unix
// socket), is served whatever its Host: such a server is reached by the
// names its clients know, and is protected by other means.
//
// Every HTTP host of this module (httprpc, fasthttprpc, ws, streamhttp)
// checks it, with its AllowedHosts field.
func CheckHost(local net.Addr, host string, allowed []string) error {
	if local == nil || !isLoopbackAddr(local) {
		return nil
	}
	name := hostname(host)
	if isLoopbackName(name) || slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, name) }) {
		return nil
	}
	return ErrHostNotAllowed
}

// CheckOrigin returns nil when a request with the Origin header origin,
// made to host (its Host header), may be served, and ErrOriginNotAllowed
// otherwise. A request without an Origin ("", as clients other than
// browsers send it) is served; a browser's is served when its origin is
// of the same host (scheme http or https, its host and port equal to
// host's, without regard to case), when both are loopback names (a page
// of localhost:3000 calling 127.0.0.1:8080), or when allowed names it
// ("https://app.example.com"; "*" allows every origin). "null", the
// origin of sandboxed and local pages, is refused unless allowed names
// it.
//
// Every HTTP host of this module checks it, with its AllowedOrigins
// field.
func CheckOrigin(origin, host string, allowed []string) error {
	if origin == "" || slices.Contains(allowed, origin) || slices.Contains(allowed, "*") {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return ErrOriginNotAllowed // "null", and origins that name no host
	}
	if strings.EqualFold(u.Host, host) || isLoopbackName(u.Hostname()) && isLoopbackName(hostname(host)) {
		return nil
	}
	return ErrOriginNotAllowed
}

// CheckRequest is CheckHost and CheckOrigin for a request of net/http:
// its local address (http.LocalAddrContextKey), Host and Origin.
func CheckRequest(r *http.Request, allowedHosts, allowedOrigins []string) error {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if err := CheckHost(local, r.Host, allowedHosts); err != nil {
		return err
	}
	return CheckOrigin(r.Header.Get("Origin"), r.Host, allowedOrigins)
}

// hostname is the host of a Host header value, without its port and the
// brackets of an IPv6 address.
func hostname(hostport string) string {
	if strings.HasPrefix(hostport, "[") {
		if i := strings.IndexByte(hostport, ']'); i > 0 {
			return hostport[1:i]
		}
		return hostport[1:]
	}
	if i := strings.IndexByte(hostport, ':'); i >= 0 && strings.LastIndexByte(hostport, ':') == i {
		return hostport[:i] // name:port; more colons are an IPv6 address without brackets
	}
	return hostport
}

// isLoopbackName reports whether the host name names the loopback
// interface. It keeps nothing of name, so that a host that converts its
// bytes to call it need not allocate.
func isLoopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") || len(name) > len(".localhost") && strings.EqualFold(name[len(name)-len(".localhost"):], ".localhost") {
		return true
	}
	if v4, ok := loopbackV4(name); ok {
		return v4
	}
	ip := net.ParseIP(strings.Clone(name)) // the rare other forms: ::1
	return ip != nil && ip.IsLoopback()
}

// loopbackV4 reports, for a dotted IPv4 address (ok), whether it is in
// 127.0.0.0/8.
func loopbackV4(name string) (loopback, ok bool) {
	parts, n := 0, 0
	first := -1
	for i := 0; i <= len(name); i++ {
		if i == len(name) || name[i] == '.' {
			if n == 0 || n > 3 {
				return false, false
			}
			parts, n = parts+1, 0
			continue
		}
		c := name[i]
		if c < '0' || c > '9' {
			return false, false
		}
		if parts == 0 {
			first = max(first, 0)*10 + int(c-'0')
		}
		n++
	}
	if parts != 4 || first > 255 {
		return false, false
	}
	return first == 127, true
}

// isLoopbackAddr reports whether a is a loopback address.
func isLoopbackAddr(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return false
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
