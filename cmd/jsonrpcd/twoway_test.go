package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// TestProtocolStdio: under -protocol lsp, progress reports on the call's
// workDoneToken, before its answer; under none (the default) it reports
// nothing; mcp takes the token from _meta.progressToken.
func TestProtocolStdio(t *testing.T) {
	for _, tt := range []struct {
		protocol, req string
		want          []string
	}{
		{"lsp", `{"jsonrpc":"2.0","method":"progress","params":{"steps":2,"workDoneToken":"w"},"id":1}`, []string{
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"w","value":{"progress":1,"total":2}}}`,
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"w","value":{"progress":2,"total":2}}}`,
			`{"jsonrpc":"2.0","result":2,"id":1}`,
		}},
		{"mcp", `{"jsonrpc":"2.0","method":"progress","params":{"steps":1,"_meta":{"progressToken":7}},"id":1}`, []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":7,"total":1}}`,
			`{"jsonrpc":"2.0","result":1,"id":1}`,
		}},
		{"none", `{"jsonrpc":"2.0","method":"progress","params":{"steps":2,"workDoneToken":"w"},"id":1}`, []string{
			`{"jsonrpc":"2.0","result":0,"id":1}`,
		}},
	} {
		// The input stays open until the answer has come: the reports of
		// a call still running when the input ends are not sent.
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		var errOut testutil.Buffer
		done := make(chan int, 1)
		go func() {
			done <- run(context.Background(), []string{"-stdio", "-protocol", tt.protocol}, inR, outW, &errOut)
			outW.Close()
		}()
		io.WriteString(inW, tt.req+"\n")
		lines := bufio.NewScanner(outR)
		var got []string
		for len(got) < len(tt.want) && lines.Scan() {
			got = append(got, lines.Text())
		}
		inW.Close()
		for lines.Scan() {
			got = append(got, lines.Text())
		}
		if code := <-done; code != 0 {
			t.Fatalf("-protocol %s: status %d: %s", tt.protocol, code, errOut.String())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("-protocol %s: got\n%s\nwant\n%s", tt.protocol, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// dialLines connects to the TCP address addr, for wait at most (dial),
// and returns the connection and a reader of its lines.
func dialLines(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := dial(t, addr)
	c.SetDeadline(time.Now().Add(wait))
	return c, bufio.NewReader(c)
}

// readLine reads the next line of br, without its newline.
func readLine(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(line, "\n")
}

// TestTwoWayTCP: over TCP a connection subscribes to the feed and gets
// what another connection publishes; callback calls the caller back.
func TestTwoWayTCP(t *testing.T) {
	r := startRun(t)
	sub, subr := dialLines(t, r.addr["tcp"])
	sub.Write([]byte(`{"jsonrpc":"2.0","method":"subscribe","id":1}` + "\n"))
	answer := readLine(t, subr)
	id, ok := strings.CutPrefix(answer, `{"jsonrpc":"2.0","result":"`)
	if !ok || !strings.HasSuffix(id, `","id":1}`) {
		t.Fatalf("subscribe answered %s", answer)
	}
	id = strings.TrimSuffix(id, `","id":1}`)

	pub, pubr := dialLines(t, r.addr["tcp"])
	pub.Write([]byte(`{"jsonrpc":"2.0","method":"publish","params":["ab",2],"id":2}` + "\n"))
	if got, want := readLine(t, pubr), `{"jsonrpc":"2.0","result":1,"id":2}`; got != want {
		t.Errorf("publish answered %s, want %s", got, want)
	}
	if got, want := readLine(t, subr), `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"`+id+`","result":"abab"}}`; got != want {
		t.Errorf("notification %s, want %s", got, want)
	}

	// callback asks the caller for double(21); the caller answers 42.
	pub.Write([]byte(`{"jsonrpc":"2.0","method":"callback","params":["double",[21]],"id":3}` + "\n"))
	back := readLine(t, pubr)
	sid, ok := strings.CutPrefix(back, `{"jsonrpc":"2.0","method":"double","params":[21],"id":`)
	if !ok {
		t.Fatalf("the server's call: %s", back)
	}
	pub.Write([]byte(`{"jsonrpc":"2.0","result":42,"id":` + sid + "\n"))
	if got, want := readLine(t, pubr), `{"jsonrpc":"2.0","result":42,"id":3}`; got != want {
		t.Errorf("callback answered %s, want %s", got, want)
	}
}
