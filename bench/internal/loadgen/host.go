package loadgen

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/valyala/fasthttp"
)

// A Host is the HTTP server of a measured row: net/http's or fasthttp's.
type Host interface {
	Serve(ln net.Listener) error
	Shutdown(ctx context.Context) error // graceful
	Close() error                       // at once, when Shutdown fails
}

// NetHTTP is a net/http.Server serving h, logging nothing.
func NetHTTP(h http.Handler) Host {
	return &http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0), ReadHeaderTimeout: time.Minute}
}

// FastHTTP is a fasthttp.Server serving h with its defaults, logging
// nothing; errorHandler may be nil.
func FastHTTP(h fasthttp.RequestHandler, errorHandler func(*fasthttp.RequestCtx, error)) Host {
	return fastHost{&fasthttp.Server{Handler: h, ErrorHandler: errorHandler, ReadTimeout: time.Minute, Logger: quiet{}}}
}

type fastHost struct{ *fasthttp.Server }

func (f fastHost) Shutdown(ctx context.Context) error { return f.ShutdownWithContext(ctx) }

// Close stops serving at once: fasthttp's Shutdown with a done context.
func (f fastHost) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return f.ShutdownWithContext(ctx)
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// A Serving is a Host serving a listener on a goroutine of its own.
type Serving struct {
	host Host
	done chan struct{}
}

// Serve starts host on ln.
func Serve(host Host, ln net.Listener) *Serving {
	s := &Serving{host: host, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		host.Serve(ln)
	}()
	return s
}

// Stop shuts the host down, gracefully for up to timeout and then at once,
// and waits for its Serve to return.
func (s *Serving) Stop(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := s.host.Shutdown(ctx); err != nil {
		s.host.Close()
	}
	<-s.done
}
