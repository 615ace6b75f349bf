package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
	"github.com/jsonrpc-go/jsonrpc/bench/peers/calcpb"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// TestRows builds and validates every row, runs each briefly, and checks
// the answers again after the run.
func TestRows(t *testing.T) {
	ts, _, err := setup()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, x := range ts {
			x.close()
		}
	}()
	if want := wantRows(); len(ts) != want {
		t.Fatalf("%d rows, want %d", len(ts), want)
	}
	// Rows that must not fall back to skips.
	for _, want := range []struct {
		scenario, peer string
		workers        int
	}{
		{"tcp", "google.golang.org/grpc", 0},
		{"http", "creachadair/jrpc2", 1},
		{"http", "creachadair/jrpc2", 16},
	} {
		if !slices.ContainsFunc(ts, func(x *target) bool {
			return x.scenario == want.scenario && x.peer == want.peer && x.workers == want.workers
		}) {
			t.Errorf("no row %s %s (%d connections)", want.scenario, want.peer, want.workers)
		}
	}
	for _, x := range ts {
		m, err := x.run(30 * time.Millisecond)
		if err != nil {
			t.Errorf("%s %s: %v", x.scenario, x.peer, err)
			continue
		}
		if m.calls <= 0 || m.rps() <= 0 {
			t.Errorf("%s %s: %d calls", x.scenario, x.peer, m.calls)
		}
	}
}

// TestRefusesWrongAnswers checks that a peer answering wrongly is refused
// before it is measured.
func TestRefusesWrongAnswers(t *testing.T) {
	srv, err := floorTCP()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	c, err := dialClient(srv.addr, srv.reqs, mixWant, nil) // the floor's answers are not the calculator's
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if err := c.check(); err == nil {
		t.Fatal("wrong answers accepted")
	}
}

func TestWithID(t *testing.T) {
	got, err := withID(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, 321)
	if err != nil || got != `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":321}` {
		t.Fatalf("got %s, %v", got, err)
	}
	if _, err := withID(`{"id":"x"}`, 1); err == nil {
		t.Fatal("string id accepted")
	}
}

// TestMainJSON runs the command with a tiny duration and parses its JSON.
func TestMainJSON(t *testing.T) {
	file := filepath.Join(t.TempDir(), "peers.json")
	var out, errb bytes.Buffer
	if code := run([]string{"-d", "20ms", "-runs", "1", "-json", file}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Mode != "peers" || len(rep.Rows) == 0 {
		t.Fatalf("mode %q, %d rows", rep.Mode, len(rep.Rows))
	}
	protocols := map[string]string{
		reference:                        "JSON-RPC 2.0",
		"net/rpc/jsonrpc (JSON-RPC 1.0)": "JSON-RPC 1.0",
		"creachadair/jrpc2":              "JSON-RPC 2.0",
		"sourcegraph/jsonrpc2":           "JSON-RPC 2.0",
		"go.lsp.dev/jsonrpc2":            "JSON-RPC 2.0",
		"gorilla/rpc/v2 json2":           "JSON-RPC 2.0",
		"ethereum/go-ethereum/rpc":       "JSON-RPC 2.0",
		"google.golang.org/grpc":         "gRPC (protobuf)",
		"floor (tokenizer)":              "none (floor)",
		"jsonrpc-go (fasthttp)":          "JSON-RPC 2.0",
		"floor (fasthttp)":               "none (floor)",
	}
	for _, r := range rep.Rows {
		if want, ok := protocols[r.Peer]; r.Protocol == "" || !ok || r.Protocol != want {
			t.Errorf("row %s: protocol %q, want %q", r.Name, r.Protocol, want)
		}
		if r.MedianRPS <= 0 || r.Note == "" || r.RatioToRef <= 0 || len(r.Runs) != 1 {
			t.Errorf("row %+v", r)
		}
		if r.Peer == reference && r.RatioToRef != 1 {
			t.Errorf("reference row %s has ratio %v", r.Name, r.RatioToRef)
		}
	}
	for _, want := range []string{"tcp", "inproc", "floor (tokenizer)", "net/rpc/jsonrpc (JSON-RPC 1.0)", "creachadair/jrpc2", "sourcegraph/jsonrpc2", "go.lsp.dev/jsonrpc2", "http 1", "http 16", "gorilla/rpc/v2 json2", "ethereum/go-ethereum/rpc", "google.golang.org/grpc"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if code := run([]string{"-d", "0"}, &out, &errb); code != 2 {
		t.Errorf("-d 0: exit %d, want 2", code)
	}
}

// wantRows is the number of rows the peers define.
func wantRows() int {
	n := 0
	for _, p := range peers {
		if p.tcp != nil || p.tcpOwn != nil {
			n++
		}
		if p.inproc != nil {
			n++
		}
		if p.http != nil {
			n += len(httpConns)
		}
	}
	return n
}

// TestHTTPRefusesWrongAnswers checks that the http client refuses a handler
// whose answers are wrong before it is measured.
func TestHTTPRefusesWrongAnswers(t *testing.T) {
	fp, err := floorHTTP()
	if err != nil {
		t.Fatal(err)
	}
	ht, err := newHTTPTarget(loadgen.NetHTTP(fp.handler), fp.reqs, mixWant, 1) // the floor's answers are not the calculator's
	if err == nil {
		ht.close()
		t.Fatal("wrong answers accepted")
	}
}

// The fasthttp rows are compared too: the floor's answers are not the
// calculator's, nor the other way round.
func TestFastHTTPRefusesWrongAnswers(t *testing.T) {
	fp, err := floorFastHTTP()
	if err != nil {
		t.Fatal(err)
	}
	if ht, err := newHTTPTarget(loadgen.FastHTTP(fp.fast, nil), fp.reqs, mixWant, 1); err == nil {
		ht.close()
		t.Error("floor (fasthttp) accepted with the calculator's answers")
	}
	jp, err := jsonrpcFastHTTP()
	if err != nil {
		t.Fatal(err)
	}
	if ht, err := newHTTPTarget(loadgen.FastHTTP(jp.fast, nil), jp.reqs, floorWant(), 1); err == nil {
		ht.close()
		t.Error("jsonrpc-go (fasthttp) accepted with the floor's answers")
	}
	ht, err := newHTTPTarget(loadgen.FastHTTP(jp.fast, nil), jp.reqs, jp.want, 2)
	if err != nil {
		t.Fatalf("jsonrpc-go (fasthttp) refused with its own answers: %v", err)
	}
	ht.close()
}

// TestJRPC2HTTPRefusesWrongAnswers checks that the jrpc2 bridge's answers
// are compared: the floor's answers are not the calculator's.
func TestJRPC2HTTPRefusesWrongAnswers(t *testing.T) {
	jp, err := jrpc2HTTP()
	if err != nil {
		t.Fatal(err)
	}
	defer jp.close()
	ht, err := newHTTPTarget(loadgen.NetHTTP(jp.handler), demo.Requests, floorWant(), 1)
	if err == nil {
		ht.close()
		t.Fatal("wrong answers accepted")
	}
}

// wrongAdd subtracts instead of adding from its after+1st call on.
type wrongAdd struct {
	grpcCalc
	after int64
	calls atomic.Int64
}

func (w *wrongAdd) Add(ctx context.Context, p *calcpb.Pair) (*calcpb.Double, error) {
	if w.calls.Add(1) > w.after {
		return &calcpb.Double{X: p.A - p.B}, nil
	}
	return w.grpcCalc.Add(ctx, p)
}

// TestGRPCRefusesWrongAnswers checks that the gRPC row refuses a server
// whose answers are wrong before measuring, or that fails calls, and fails
// a run during which answers go wrong.
func TestGRPCRefusesWrongAnswers(t *testing.T) {
	for name, impl := range map[string]calcpb.CalculatorServer{
		"wrong result":  &wrongAdd{},
		"unimplemented": calcpb.UnimplementedCalculatorServer{},
	} {
		t.Run(name, func(t *testing.T) {
			o, err := grpcTarget(impl)
			if err != nil {
				t.Fatal(err)
			}
			defer o.close()
			if err := o.check(); err == nil {
				t.Fatal("wrong answers accepted")
			}
		})
	}
	t.Run("during the run", func(t *testing.T) {
		o, err := grpcTarget(&wrongAdd{after: 1}) // check's one call of Add is right
		if err != nil {
			t.Fatal(err)
		}
		defer o.close()
		if err := o.check(); err != nil {
			t.Fatal(err)
		}
		if _, err := o.run(30 * time.Millisecond); err == nil {
			t.Fatal("run with wrong answers accepted")
		}
	})
}

// TestParseStatCPU: utime and stime are read past a command with spaces
// and parentheses.
func TestParseStatCPU(t *testing.T) {
	const stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 4 0 1 2 3"
	if got, want := parseStatCPU(stat), 3*time.Second; got != want {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := parseStatCPU("garbage"); got != 0 {
		t.Errorf("garbage: %v", got)
	}
}

// TestSumFields: the counters of /proc/PID/io and a task's status are
// added by name, and a line that only begins like one is not.
func TestSumFields(t *testing.T) {
	const io = "rchar: 10\nwchar: 20\nsyscr: 7\nsyscw: 5\nread_bytes: 0\n"
	if got := sumFields(io, "syscr:", "syscw:"); got != 12 {
		t.Errorf("io: got %d, want 12", got)
	}
	const status = "Name:\tpeers\nvoluntary_ctxt_switches:\t30\nnonvoluntary_ctxt_switches:\t4\n"
	if got := sumFields(status, "voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"); got != 34 {
		t.Errorf("status: got %d, want 34", got)
	}
	if got := sumFields("syscr: x\n", "syscr:"); got != 0 {
		t.Errorf("not a number: %d", got)
	}
}
