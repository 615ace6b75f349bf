// Command openrpc-gen writes the Go package of an OpenRPC document: the
// types of its schemas, the errors it declares, a typed client and a
// server interface with the function that registers an implementation on
// a *jsonrpc.Server (see package openrpc/gen for what it writes).
//
// Usage:
//
//	openrpc-gen -pkg NAME -out DIR [-name PREFIX] [-type SCHEMA=import/path.Type]... DOCUMENT
//
// DOCUMENT is a file ("-" for standard input), an http:// or https:// URL,
// or a live server's address as tcp://host:port. A URL is first asked for
// rpc.discover (a JSON-RPC call over HTTP POST); when that fails, the
// document is what a GET of the URL answers. A tcp:// address is asked
// for rpc.discover over a TCP connection with newline framing.
//
// The flags:
//
//	-pkg NAME      the package name of the generated files (required)
//	-out DIR       the directory to write them to, made if need be (default ".")
//	-name PREFIX   prefixes the client's and server's names: with Eth, EthClient,
//	               NewEthClient, EthServer, RegisterEth, EthInfo
//	-type S=T      maps the schema component S to the Go type T, written
//	               import/path.Name (repeatable): a big quantity as a type of
//	               your own, say
//
// It writes PREFIX_types.go, PREFIX_client.go and PREFIX_server.go (the
// prefix "openrpc" without -name), formatted as gofmt formats them, and
// the same document gives the same bytes, so that a go:generate line
//
//	//go:generate go run github.com/jsonrpc-go/jsonrpc/cmd/openrpc-gen -pkg ethrpc -out . openrpc.json
//
// keeps a package current, and a CI step can regenerate and compare.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/openrpc"
	"github.com/jsonrpc-go/jsonrpc/openrpc/gen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stderr))
}

// typeFlags is the repeatable -type flag.
type typeFlags map[string]string

func (t typeFlags) String() string { return fmt.Sprint(map[string]string(t)) }

func (t typeFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return fmt.Errorf("want SCHEMA=import/path.Type, not %q", s)
	}
	t[k] = v
	return nil
}

// run runs the command with args and returns the exit status.
func run(args []string, stdin io.Reader, stderr io.Writer) int {
	fs := flag.NewFlagSet("openrpc-gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pkg := fs.String("pkg", "", "the package name of the generated files (required)")
	out := fs.String("out", ".", "the directory to write the files to")
	name := fs.String("name", "", "the prefix of the client's and server's names")
	types := typeFlags{}
	fs.Var(types, "type", "SCHEMA=import/path.Type: map a schema component to a Go type (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: openrpc-gen -pkg NAME -out DIR [-name PREFIX] [-type SCHEMA=import/path.Type]... DOCUMENT")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *pkg == "" || fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	src := fs.Arg(0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	doc, err := load(ctx, src, stdin)
	if err != nil {
		fmt.Fprintln(stderr, "openrpc-gen:", err)
		return 1
	}
	files, err := gen.Generate(doc, gen.Config{Package: *pkg, Name: *name, Types: types, Source: sourceName(src)})
	if err != nil {
		fmt.Fprintln(stderr, "openrpc-gen:", err)
		return 1
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(stderr, "openrpc-gen:", err)
		return 1
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(*out, f.Name), f.Data, 0o644); err != nil {
			fmt.Fprintln(stderr, "openrpc-gen:", err)
			return 1
		}
	}
	return 0
}

// sourceName is how the files' header names the document: a file by its
// base name, so that the header does not depend on where it was run.
func sourceName(src string) string {
	switch {
	case src == "-":
		return ""
	case strings.Contains(src, "://"):
		return src
	}
	return filepath.Base(src)
}

// load reads the document src names.
func load(ctx context.Context, src string, stdin io.Reader) ([]byte, error) {
	switch {
	case src == "-":
		return io.ReadAll(stdin)
	case strings.HasPrefix(src, "http://"), strings.HasPrefix(src, "https://"):
		c := client.New(client.HTTP(src, nil))
		defer c.Close()
		doc, err := c.CallRaw(ctx, openrpc.DiscoverMethod, nil)
		if err == nil {
			return doc, nil
		}
		body, gerr := get(ctx, src)
		if gerr != nil {
			return nil, fmt.Errorf("%s: %s: %w; GET: %w", src, openrpc.DiscoverMethod, err, gerr)
		}
		return body, nil
	case strings.HasPrefix(src, "tcp://"):
		ch, err := client.Dial(ctx, "tcp", strings.TrimPrefix(src, "tcp://"), framing.Line)
		if err != nil {
			return nil, err
		}
		c := client.New(ch)
		defer c.Close()
		doc, err := c.CallRaw(ctx, openrpc.DiscoverMethod, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", src, openrpc.DiscoverMethod, err)
		}
		return doc, nil
	}
	return os.ReadFile(src)
}

// maxDocument is the largest document a GET reads: 64 MiB.
const maxDocument = 64 << 20

func get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxDocument {
		return nil, errors.New("the document is over 64 MiB")
	}
	if !bytes.Contains(b, []byte(`"openrpc"`)) {
		return nil, errors.New("the answer is no OpenRPC document")
	}
	return b, nil
}
