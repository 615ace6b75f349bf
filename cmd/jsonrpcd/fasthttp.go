package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
)

// newFastHTTPServer returns the fasthttp server of -fasthttp: the same
// protocol as the HTTP listener's, with fasthttprpc, the body limit of
// -max-message and the timeouts of cfg, and request bodies streamed to the
// handler (see fasthttprpc's Request bodies). With a logger, the handler
// logs the requests it refuses and fasthttp's own errors at Warn.
func newFastHTTPServer(srv *jsonrpc.Server, cfg config, logger *slog.Logger) *fasthttp.Server {
	h := &fasthttprpc.Handler{Server: srv, MaxBody: cfg.maxMessage, Budget: cfg.budget, Logger: logger, Health: cfg.probes,
		AllowedHosts: cfg.allowedHosts, AllowedOrigins: cfg.allowedOrigins, Tokens: cfg.tokens, ResourceMetadata: cfg.resource}
	s := &fasthttp.Server{
		Handler:                      h.ServeFastHTTP,
		ErrorHandler:                 h.ErrorHandler,
		Name:                         "jsonrpcd",
		MaxRequestBodySize:           cfg.maxMessage,
		ReadTimeout:                  cfg.readTimeout,  // 0: none
		WriteTimeout:                 cfg.writeTimeout, // 0: none
		IdleTimeout:                  cfg.idleTimeout,  // 0 would mean ReadTimeout; see below
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		Logger:                       fastHTTPLogger{logger},
	}
	if cfg.idleTimeout == 0 && cfg.readTimeout > 0 {
		// fasthttp's IdleTimeout 0 means its ReadTimeout; -idle-timeout 0
		// means none, which fasthttp cannot say: the longest it can.
		s.IdleTimeout = 1<<63 - 1
	}
	return s
}

// serveFastHTTP serves -fasthttp on nl and returns its host.
func serveFastHTTP(nl net.Listener, srv *jsonrpc.Server, cfg config, logger *slog.Logger, errc chan<- error) host {
	logger = with(logger, "transport", "fasthttp")
	l := httpListener(nl, cfg, logger)
	fs := newFastHTTPServer(srv, cfg, logger)
	served := l
	if cfg.tls != nil {
		served = tls.NewListener(l, cfg.tls)
	}
	go func() { errc <- fs.Serve(served) }()
	return host{l: l,
		shutdown: fs.ShutdownWithContext,
		// fasthttp cannot close the connections that still run a
		// handler; the process exits after this.
		close: func() {},
	}
}

// fastHTTPLogger is fasthttp's Logger: its lines at Warn, or nowhere. The
// line is an attribute, so that every line has the one message.
type fastHTTPLogger struct{ l *slog.Logger }

func (f fastHTTPLogger) Printf(format string, args ...any) {
	if f.l != nil {
		f.l.LogAttrs(context.Background(), slog.LevelWarn, "fasthttp error", slog.String("error", fmt.Sprintf(format, args...)))
	}
}
