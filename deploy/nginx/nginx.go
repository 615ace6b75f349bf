// Package nginx holds the nginx configuration of the recipe "More than one
// process" (see its README.md): nginx in front of several jsonrpcd
// processes on loopback, HTTP round-robin, WebSocket sticky by connection,
// and state that one process holds reached by path or header. Its test
// runs the recipe.
package nginx

import (
	_ "embed"
	"io"
	"text/template"
)

// Template is the configuration, a text/template of Params.
//
//go:embed nginx.conf.tmpl
var Template string

// Params fill in Template.
type Params struct {
	Dir      string   // nginx's pid, error log and temporary files
	Listen   string   // the address nginx listens on: "127.0.0.1:8000"
	Backends []string // the jsonrpcd processes' HTTP addresses; process N is Backends[N]
	Workers  int      // worker_processes
	Root     bool     // nginx runs as root: keep its workers root too (user root), for Dir
}

var tmpl = template.Must(template.New("nginx.conf").Parse(Template))

// Write writes the configuration for p to w.
func Write(w io.Writer, p Params) error { return tmpl.Execute(w, p) }
