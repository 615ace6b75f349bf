package httprpc_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
)

// checkLong is httpCheckRPC for long answers: it reports where an answer
// departs from want instead of printing both.
func checkLong(t *testing.T, where string, a httpAnswer, want string) {
	t.Helper()
	if strings.Contains(where, "HTTP/2 true") && a.proto != 2 {
		t.Errorf("%s: answered over HTTP/%d", where, a.proto)
	}
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" {
		t.Errorf("%s: status %d, Content-Type %q", where, a.status, a.header.Get("Content-Type"))
	}
	if cl := a.header.Get("Content-Length"); cl != strconv.Itoa(len(a.body)) {
		t.Errorf("%s: Content-Length %q for %d bytes", where, cl, len(a.body))
	}
	if a.body == want {
		return
	}
	i := 0
	for i < len(a.body) && i < len(want) && a.body[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d bytes, want %d; from byte %d got %.80q, want %.80q", where, len(a.body), len(want), i, a.body[i:], want[i:])
}

// The server's MaxResponse over HTTP: an answer of exactly the limit is
// written whole, with its Content-Length, and one byte more is answered
// with the -32005 error and the request's id, for limits under net/http's
// buffer (it sets the Content-Length), over the handler's pooled buffer,
// and larger still; for methods that run inline and Blocking ones; and a
// batch keeps the answers that fit; over HTTP/1.1 and HTTP/2.
func TestHTTPMaxResponse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit int
		h2    bool
	}{{1000, false}, {10000, false}, {100000, false}, {1000, true}, {100000, true}} {
		limit := tc.limit
		srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: limit}))
		srv.MustRegister("big", func(n int) string { return strings.Repeat("x", n) })
		srv.MustRegister("slow", func(n int) string { return strings.Repeat("y", n) }, jsonrpc.Blocking())
		ts := httptest.NewUnstartedServer(handler(srv))
		if tc.h2 {
			ts.EnableHTTP2 = true
			ts.StartTLS()
		} else {
			ts.Start()
		}
		c := httpClientOf(ts)
		tooLarge := func(id string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"response exceeds the limit of %d bytes"},"id":%s}`, limit, id)
		}
		result := func(s, id string) string { return `{"jsonrpc":"2.0","result":"` + s + `","id":` + id + `}` }
		fits := limit - len(result("", "7")) // a result string that fills the limit
		for _, m := range []string{"big", "slow"} {
			letter := map[string]string{"big": "x", "slow": "y"}[m]
			where := fmt.Sprintf("limit %d, HTTP/2 %v, %s", limit, tc.h2, m)
			call := func(n int, id string) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":[%d],"id":%s}`, m, n, id)
			}

			atLimit := result(strings.Repeat(letter, fits), "7")
			if len(atLimit) != limit {
				t.Fatalf("%s: an answer of %d bytes", where, len(atLimit))
			}
			checkLong(t, where+", at the limit", httpPostJSON(t, c, ts.URL, call(fits, "7")), atLimit)
			checkLong(t, where+", one byte over", httpPostJSON(t, c, ts.URL, call(fits+1, "7")), tooLarge("7"))
			checkLong(t, where+", far over", httpPostJSON(t, c, ts.URL, call(4*limit, "7")), tooLarge("7"))

			// A batch: the first answer takes half the room, the second
			// passes the limit.
			half := limit/2 - len(result("", "1"))
			batch := "[" + call(half, "1") + "," + call(half, "2") + "," + call(1, "3") + "]"
			a := httpPostJSON(t, c, ts.URL, batch)
			if m == "big" {
				// Inline calls stop at the limit: the third is answered
				// with the error without running.
				checkLong(t, where+", batch", a, "["+result(strings.Repeat(letter, half), "1")+","+tooLarge("2")+","+tooLarge("3")+"]")
				continue
			}
			// Blocking calls of a batch have all run; the answers that
			// pass the limit are the error.
			var got []json.RawMessage
			if err := json.Unmarshal([]byte(a.body), &got); err != nil || len(got) != 3 {
				t.Errorf("%s, batch: %d answers, %v", where, len(got), err)
				continue
			}
			if string(got[0]) != result(strings.Repeat(letter, half), "1") || string(got[1]) != tooLarge("2") {
				t.Errorf("%s, batch: answers %.80s…, %.200s", where, got[0], got[1])
			}
			if len(a.body) > limit+len(tooLarge("3")) {
				t.Errorf("%s, batch: %d bytes, over the limit and an error", where, len(a.body))
			}
		}
		ts.Close()
	}
}
