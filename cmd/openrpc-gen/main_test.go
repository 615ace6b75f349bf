package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/openrpc"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

const (
	demoDoc = "../../openrpc/gen/testdata/demo.json"
	demoPkg = "../../openrpc/gen/internal/demorpc"
)

// generate runs the command on src into a new directory, which it
// returns.
func generate(t *testing.T, src string, args ...string) string {
	t.Helper()
	out := t.TempDir()
	var stderr bytes.Buffer
	args = append(append([]string{"-pkg", "demorpc", "-out", out}, args...), src)
	if status := run(args, strings.NewReader(""), &stderr); status != 0 {
		t.Fatalf("openrpc-gen %s: status %d: %s", strings.Join(args, " "), status, stderr.String())
	}
	return out
}

// sameFiles fails t unless dir holds the files of the demorpc package,
// their first line (which names the document) aside when skipHeader.
func sameFiles(t *testing.T, dir string, skipHeader bool) {
	t.Helper()
	for _, name := range []string{"openrpc_types.go", "openrpc_client.go", "openrpc_server.go"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(demoPkg, name))
		if err != nil {
			t.Fatal(err)
		}
		if skipHeader {
			_, got, _ = bytes.Cut(got, []byte("\n"))
			_, want, _ = bytes.Cut(want, []byte("\n"))
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the checked-in %s", name, filepath.Join(demoPkg, name))
		}
	}
}

func TestFromFile(t *testing.T) {
	sameFiles(t, generate(t, demoDoc), false)
}

func TestFromStdin(t *testing.T) {
	doc, err := os.ReadFile(demoDoc)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stderr bytes.Buffer
	if status := run([]string{"-pkg", "demorpc", "-out", out, "-"}, bytes.NewReader(doc), &stderr); status != 0 {
		t.Fatalf("status %d: %s", status, stderr.String())
	}
	sameFiles(t, out, true)
}

// liveDemo is the demo server with rpc.discover, answering the document
// of testdata.
func liveDemo(t *testing.T) *jsonrpc.Server {
	b, err := os.ReadFile(demoDoc)
	if err != nil {
		t.Fatal(err)
	}
	var d openrpc.Document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	srv := demo.NewServer()
	if _, err := demo.RegisterTwoWay(srv); err != nil {
		t.Fatal(err)
	}
	if err := openrpc.Register(srv, d.Info); err != nil {
		t.Fatal(err)
	}
	return srv
}

func TestFromLiveServerOverHTTP(t *testing.T) {
	ts := httptest.NewServer(&httprpc.Handler{Server: liveDemo(t)})
	defer ts.Close()
	sameFiles(t, generate(t, ts.URL), true)
}

func TestFromLiveServerOverTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ss := &stream.Server{Server: liveDemo(t), Framing: framing.Line}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ss.Serve(l)
	}()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ss.Shutdown(ctx)
		<-done
	}()
	sameFiles(t, generate(t, "tcp://"+l.Addr().String()), true)
}

// TestFromURLByGET reads the document a URL answers to GET when it does
// not answer rpc.discover.
func TestFromURLByGET(t *testing.T) {
	doc, err := os.ReadFile(demoDoc)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		w.Write(doc)
	}))
	defer ts.Close()
	sameFiles(t, generate(t, ts.URL+"/openrpc.json"), true)
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{demoDoc},                               // no -pkg
		{"-pkg", "x"},                           // no document
		{"-pkg", "x", "-type", "uint", demoDoc}, // a -type without =
	} {
		var stderr bytes.Buffer
		if status := run(args, strings.NewReader(""), &stderr); status != 2 {
			t.Errorf("openrpc-gen %s: status %d, want 2", strings.Join(args, " "), status)
		}
	}
	var stderr bytes.Buffer
	if status := run([]string{"-pkg", "x", "-out", t.TempDir(), "-type", "nosuch=a/b.C", demoDoc}, strings.NewReader(""), &stderr); status != 1 || !strings.Contains(stderr.String(), "no schema nosuch") {
		t.Errorf("a -type of a schema the document lacks: status %d, %s", status, stderr.String())
	}
	if status := run([]string{"-pkg", "x", "-out", t.TempDir(), "nosuch.json"}, strings.NewReader(""), &stderr); status != 1 {
		t.Errorf("a missing document: status %d, want 1", status)
	}
}
