package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// An attack is what one hostile client does. run does it until ctx ends,
// then releases everything it holds, and returns what it managed (for the
// report) and an error: a *brokenError when it saw the server break a
// bound, another when it could not attack at all.
type attack struct {
	name  string
	what  string
	run   func(ctx context.Context, a addrs) (string, error)
	needs string   // a flag of jsonrpcd the attack needs, such as fasthttp, or ""
	args  []string // flags of jsonrpcd for the attack's server
	// callback adds the healthy client whose Blocking calls call it back:
	// beside the attacks that hold Blocking calls, another client's
	// must still run on goroutines of their own.
	callback bool
	// streamable adds the healthy client of Streamable HTTP: beside the
	// attacks on /mcp, another client's calls there must be answered.
	streamable bool
	// setup, when set, makes what the attack's server needs beside
	// jsonrpcd (a redis-server), or returns errSkip when it cannot.
	setup func() (*environment, error)
}

// An environment is what an attack's setup made: flags for its jsonrpcd,
// what the soak does beside the attacker while it runs, and its end.
type environment struct {
	args   []string
	during func(ctx context.Context) // until ctx ends; nil: nothing
	stop   func()
}

// close ends e; a nil e is nothing to end.
func (e *environment) close() {
	if e != nil && e.stop != nil {
		e.stop()
	}
}

// errSkip is the error of an attack's setup that cannot run here.
var errSkip = errors.New("skipped")

// attacks are the findings of the bounding work, each as a client does it.
var attacks = []attack{
	{name: "idle-tcp", what: "6,000 idle TCP connections", run: func(ctx context.Context, a addrs) (string, error) {
		return holdConns(ctx, a.tcp, 6000, nil)
	}},
	{name: "idle-http", what: "6,000 idle HTTP connections", run: func(ctx context.Context, a addrs) (string, error) {
		return holdConns(ctx, a.http, 6000, nil)
	}},
	{name: "blocking-tcp", what: "4 TCP connections pipelining batches of 1,024 Blocking calls, beside the healthy client's Blocking calls that call it back", callback: true, run: func(ctx context.Context, a addrs) (string, error) {
		return flood(ctx, a.tcp, 4, func(w io.Writer) error { _, err := io.WriteString(w, sleepBatch+"\n"); return err })
	}},
	{name: "blocking-http", what: "64 HTTP requests at once, each a batch of 1,024 Blocking calls, beside the healthy client's Blocking calls that call it back", callback: true, run: func(ctx context.Context, a addrs) (string, error) {
		return posts(ctx, a.http, 64, sleepBatch, nil)
	}},
	{name: "busy-then-idle", what: "4,000 TCP connections that each echo 20 KB once and then wait", run: func(ctx context.Context, a addrs) (string, error) {
		return holdConns(ctx, a.tcp, 4000, echoOnce)
	}},
	{name: "stalled-bodies", what: "100 HTTP requests that send all of a large body but its last byte", run: func(ctx context.Context, a addrs) (string, error) {
		return holdConns(ctx, a.http, 100, stalledBody)
	}},
	{name: "stalled-tcp", what: "100 TCP connections that send all of a large message but its last byte", run: func(ctx context.Context, a addrs) (string, error) {
		return holdConns(ctx, a.tcp, 100, stalledLine)
	}},
	{name: "stalled-ws", what: "100 WebSocket connections that send all of a large message but its last byte", run: func(ctx context.Context, a addrs) (string, error) {
		return holdConns(ctx, a.http, 100, stalledWS)
	}},
	{name: "big-responses", what: "a TCP connection asking for batches of 256 results of 1 MiB", run: func(ctx context.Context, a addrs) (string, error) {
		return flood(ctx, a.tcp, 1, func(w io.Writer) error { _, err := io.WriteString(w, bigBatch+"\n"); return err })
	}},
	{name: "slow-reader", what: "4 TCP connections that ask for large results and never read", run: func(ctx context.Context, a addrs) (string, error) {
		return holdConns(ctx, a.tcp, 4, slowReader)
	}},
	{name: "big-variadic", what: "8 HTTP requests at once of a variadic call with 1 MiB of params", run: func(ctx context.Context, a addrs) (string, error) {
		return posts(ctx, a.http, 8, bigSum, nil)
	}},
	{name: "alike-names", what: "2 TCP connections pipelining batches of 1,024 unknown methods with alike names", run: func(ctx context.Context, a addrs) (string, error) {
		return flood(ctx, a.tcp, 2, func(w io.Writer) error { _, err := io.WriteString(w, alikeBatch+"\n"); return err })
	}},
	{name: "fasthttp-bodies", what: "100 requests at once to the fasthttp host, each a 4 MiB body: a call of sleep padded", needs: "fasthttp", run: func(ctx context.Context, a addrs) (string, error) {
		return posts(ctx, a.fasthttp, 100, paddedSleep, nil)
	}},
	{name: "fasthttp-gzip", what: "100 requests at once to the fasthttp host, each a gzip body of 4 KiB that inflates to 4 MiB", needs: "fasthttp", run: func(ctx context.Context, a addrs) (string, error) {
		return posts(ctx, a.fasthttp, 100, gzipped(paddedSleep), http.Header{"Content-Encoding": {"gzip"}})
	}},
	{name: "junk-lines", what: "a TCP connection sending up to 64 MB of lines that are not JSON, as fast as the server reads", run: func(ctx context.Context, a addrs) (string, error) {
		return junkLines(ctx, a.tcp, 64<<20)
	}},
	{name: "push-unread", what: "20 TCP connections subscribed to the feed that never read, while another publishes 2,048 values of 64 KiB", run: func(ctx context.Context, a addrs) (string, error) {
		return pushUnread(ctx, a.tcp)
	}},
	{name: "many-subs", what: "one TCP connection asking for 100,000 subscriptions, in batches of 1,024", run: func(ctx context.Context, a addrs) (string, error) {
		return manySubs(ctx, a.tcp)
	}},
	{name: "progress-token", what: "8 TCP connections calling progress with a 1 MiB token and 200 reports asked for (jsonrpcd -protocol lsp)", needs: "protocol", args: []string{"-protocol", "lsp"}, run: func(ctx context.Context, a addrs) (string, error) {
		return progressToken(ctx, a.tcp)
	}},
	{name: "huge-lines", what: "a TCP connection sending 32 lines of 33 MiB, each a call to be answered -32005 with its id and skipped", run: func(ctx context.Context, a addrs) (string, error) {
		return hugeLines(ctx, a.tcp)
	}},
	{name: "get-streams", what: "1,000 Streamable HTTP sessions each holding its GET stream open, every one of which must get a value published to the feed (jsonrpcd -sessions subscribe)", needs: "sessions", args: []string{"-sessions", "subscribe"}, streamable: true, run: func(ctx context.Context, a addrs) (string, error) {
		return getStreams(ctx, a.http, maxStreams)
	}},
	{name: "call-streams", what: "1,000 POSTs of callback to /mcp at once, each answered with an event stream carrying the server's call back, which the attacker never answers: each method waits, its stream open", callback: true, streamable: true, run: func(ctx context.Context, a addrs) (string, error) {
		return callStreams(ctx, a.http, maxStreams)
	}},
	{name: "idle-sessions", what: "10,000 idle Streamable HTTP sessions (jsonrpcd -sessions subscribe -max-sessions 10000 -max-sessions-per-client 10000)", needs: "sessions", args: []string{"-sessions", "subscribe", "-max-sessions", "10000", "-max-sessions-per-client", "10000"}, streamable: true, run: func(ctx context.Context, a addrs) (string, error) {
		return idleSessions(ctx, a.http, maxIdleSessions)
	}},
	{name: "conns-per-client", what: "TCP connections from 127.0.0.1 until one is refused, held, while the healthy clients connect from 127.0.0.2", run: func(ctx context.Context, a addrs) (string, error) {
		return connsUntilRefused(ctx, a.tcp)
	}},
	{name: "http-conns-per-client", what: "HTTP keep-alive connections from 127.0.0.1 until one is refused (429, -max-conns-per-client), held, while the healthy clients connect from 127.0.0.2", run: func(ctx context.Context, a addrs) (string, error) {
		return httpConnsUntilRefused(ctx, a.http)
	}},
	{name: "unpulled-seqs", what: "256 TCP connections each opening 256 sequence results of a million items that it never pulls, beside the healthy client's Blocking calls that call it back (jsonrpcd -items)", needs: "items", args: []string{"-items"}, callback: true, run: func(ctx context.Context, a addrs) (string, error) {
		return unpulledSeqs(ctx, a.tcp)
	}},
	{name: "seq-unread", what: "8 TCP connections each calling 256 times for a sequence of items of 1 MiB, reading nothing (jsonrpcd -items)", needs: "items", args: []string{"-items"}, run: func(ctx context.Context, a addrs) (string, error) {
		return seqUnread(ctx, a.tcp, unreadConns, unreadCalls, unreadItem, false)
	}},
	{name: "partial-unread", what: "4 TCP connections under LSP each calling 64 times for items of 64 KiB as partial results, reading nothing (jsonrpcd -protocol lsp -items)", needs: "items", args: []string{"-protocol", "lsp", "-items"}, run: func(ctx context.Context, a addrs) (string, error) {
		return seqUnread(ctx, a.tcp, lspConns, lspCalls, lspItem, true)
	}},
	{name: "get-stream-times", what: "200 Streamable HTTP sessions each holding its GET stream, busy with a value published every 250 ms then idle, each of whose responses must end at its lifetime, then once idle (jsonrpcd -sessions subscribe -stream-idle 1s -stream-lifetime 2s)", needs: "stream-lifetime", args: []string{"-sessions", "subscribe", "-stream-idle", streamIdle.String(), "-stream-lifetime", streamLife.String()}, streamable: true, run: func(ctx context.Context, a addrs) (string, error) {
		return getStreamTimes(ctx, a.http, a.tcp)
	}},
	{name: "kept-bytes", what: "128 Streamable HTTP sessions each reading its GET stream, while values of 256 KiB are published every 500 ms, each kept for the streams' resumption (jsonrpcd -sessions subscribe)", needs: "sessions", args: []string{"-sessions", "subscribe"}, streamable: true, run: func(ctx context.Context, a addrs) (string, error) {
		return keptBytes(ctx, a.http, a.tcp)
	}},
	{name: "store-asleep", what: "32 Streamable HTTP sessions calling progress (its events kept in Redis), their GET streams fed every 100 ms, while the Redis of jsonrpcd -session-store is stopped with SIGSTOP: each call must be answered within 2 s", needs: "session-store", setup: redisEnv, streamable: true, run: func(ctx context.Context, a addrs) (string, error) {
		return storeAsleep(ctx, a.http, a.tcp)
	}},
	{name: "sessions-per-client", what: "Streamable HTTP sessions begun from 127.0.0.1 until refused (429, half of -max-sessions), and left idle (jsonrpcd -sessions subscribe)", needs: "sessions", args: []string{"-sessions", "subscribe"}, streamable: true, run: func(ctx context.Context, a addrs) (string, error) {
		return idleSessions(ctx, a.http, 3000)
	}},
}

// httpConnsUntilRefused opens HTTP connections to addr, each calling add
// once and then held idle, until the server refuses one, and holds them
// until ctx ends.
func httpConnsUntilRefused(ctx context.Context, addr string) (string, error) {
	const post = "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 54\r\n\r\n" + `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	var (
		mu      sync.Mutex
		held    []net.Conn
		refused int
		how     string
		wg      sync.WaitGroup
	)
	sem := make(chan struct{}, 64)
	stopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return refused > 0
	}
	for range maxClientConns {
		if ctx.Err() != nil || stopped() {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := dialTCP(ctx, addr)
			status := 0
			if err == nil {
				c.SetDeadline(time.Now().Add(2 * time.Second))
				if _, err = io.WriteString(c, post); err == nil {
					var resp *http.Response
					if resp, err = http.ReadResponse(bufio.NewReader(c), nil); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						status = resp.StatusCode
					}
				}
				c.SetDeadline(time.Time{})
			}
			mu.Lock()
			defer mu.Unlock()
			if err == nil && status == http.StatusOK {
				held = append(held, c)
				return
			}
			if ctx.Err() == nil {
				refused++
				if how == "" {
					how = fmt.Sprint(status, err)
				}
			}
			if c != nil {
				c.Close()
			}
		})
	}
	wg.Wait()
	<-ctx.Done()
	for _, c := range held {
		c.Close()
	}
	got := fmt.Sprintf("%d held", len(held))
	if refused > 0 {
		got += fmt.Sprintf("; %d refused: %.80s", refused, how)
	}
	return got, nil
}

// The request documents of the attacks.
var (
	sleepBatch = batchOf(1024, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"sleep","params":[5000],"id":%d}`, i)
	})
	bigBatch = batchOf(256, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"repeat","params":["x",1048576],"id":%d}`, i)
	})
	alikeBatch = batchOf(1024, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"service.method%05d.endpoint","id":%d}`, i, i)
	})
	bigSum = `{"jsonrpc":"2.0","method":"sum","params":[` + strings.Repeat("1,", 512<<10) + `1],"id":1}`
	// paddedSleep is a call of sleep for a second, 4 MiB long with a
	// member that the server ignores.
	paddedSleep = `{"jsonrpc":"2.0","method":"sleep","params":[1000],"id":1,"pad":"` +
		strings.Repeat("x", 4<<20-len(`{"jsonrpc":"2.0","method":"sleep","params":[1000],"id":1,"pad":""}`)) + `"}`
)

// gzipped returns s compressed with gzip.
func gzipped(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	zw.Close()
	return b.String()
}

func batchOf(n int, elem func(int) string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(elem(i))
	}
	b.WriteByte(']')
	return b.String()
}

// holdConns opens up to n connections to addr, runs prepare on each (when
// not nil) and holds them until ctx ends.
func holdConns(ctx context.Context, addr string, n int, prepare func(net.Conn) error) (string, error) {
	var (
		mu    sync.Mutex
		conns []net.Conn
		fails int
		first error
	)
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for range n {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			d := net.Dialer{Timeout: 2 * time.Second}
			c, err := d.DialContext(ctx, "tcp", addr)
			if err == nil && prepare != nil {
				if err = prepare(c); err != nil {
					c.Close()
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fails++
				if first == nil {
					first = err
				}
				return
			}
			conns = append(conns, c)
		})
	}
	wg.Wait()
	<-ctx.Done()
	for _, c := range conns {
		c.Close()
	}
	if len(conns) == 0 && first != nil {
		return "", fmt.Errorf("no connection: %w", first)
	}
	return fmt.Sprintf("%d held, %d not", len(conns), fails), nil
}

// flood opens n connections to addr and writes write's document on each
// as fast as the server takes it, reading and discarding what comes back,
// until ctx ends.
func flood(ctx context.Context, addr string, n int, write func(io.Writer) error) (string, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sent, read := 0, int64(0)
	var first error
	for range n {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return "", err
		}
		wg.Go(func() {
			<-ctx.Done()
			c.Close()
		})
		wg.Go(func() {
			k, _ := io.Copy(io.Discard, c)
			mu.Lock()
			read += k
			mu.Unlock()
		})
		wg.Go(func() {
			w := bufio.NewWriter(c)
			for ctx.Err() == nil {
				if err := write(w); err != nil {
					break
				}
				if err := w.Flush(); err != nil {
					mu.Lock()
					if first == nil && ctx.Err() == nil {
						first = err
					}
					mu.Unlock()
					break
				}
				mu.Lock()
				sent++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return fmt.Sprintf("%d documents sent, %.1f MB read back", sent, float64(read)/1e6), nil
}

// maxPosts bounds the requests of each of posts' clients, as ctx bounds
// their time.
const maxPosts = 100_000

// posts keeps n HTTP POSTs of body, with the header added, in flight
// until ctx ends, each of the n clients sending at most maxPosts.
func posts(ctx context.Context, addr string, n int, body string, header http.Header) (string, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: n}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, statuses := 0, map[int]int{}
	for range n {
		wg.Go(func() {
			for range maxPosts {
				if ctx.Err() != nil {
					break
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				for k, v := range header {
					req.Header[k] = v
				}
				resp, err := hc.Do(req)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				done++
				statuses[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return fmt.Sprintf("%d answered, statuses %v", done, statuses), nil
}

// echoOnce sends a call whose param and answer are 20 KB each, and reads
// the answer: the connection's buffers grow to their busy size, and then it
// waits.
func echoOnce(c net.Conn) error {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	req := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 20<<10) + `"],"id":1}` + "\n"
	if _, err := io.WriteString(c, req); err != nil {
		return err
	}
	_, err := bufio.NewReaderSize(c, 32<<10).ReadBytes('\n')
	return err
}

// stalledBody sends an HTTP request whose declared body is 4 MiB minus one
// byte, and all of it but the last byte.
func stalledBody(c net.Conn) error {
	const n = 4<<20 - 1
	body := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", n-len(`{"jsonrpc":"2.0","method":"echo","params":["`)-len(`"],"id":1}`)) + `"],"id":1}`
	head := fmt.Sprintf("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", n)
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := io.WriteString(c, head+body[:len(body)-1])
	return err
}

// stalledLine sends a line of 4 MiB minus one byte without its newline.
func stalledLine(c net.Conn) error {
	const n = 4<<20 - 2
	head := `{"jsonrpc":"2.0","method":"echo","params":["`
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := io.WriteString(c, head+strings.Repeat("x", n-len(head)))
	return err
}

// stalledWS upgrades to WebSocket and sends a text frame of 4 MiB minus one
// byte, all of it but the last byte.
func stalledWS(c net.Conn) error {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	status, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.Contains(status, " 101 ") {
		return fmt.Errorf("upgrade answered %q", strings.TrimSpace(status))
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if line == "\r\n" {
			break
		}
	}
	const n = 4<<20 - 1
	var frame bytes.Buffer
	frame.WriteByte(0x81)       // FIN, text
	frame.WriteByte(0x80 | 127) // masked, 64-bit length
	binary.Write(&frame, binary.BigEndian, uint64(n))
	frame.Write([]byte{0, 0, 0, 0}) // a zero mask leaves the payload as is
	frame.WriteString(strings.Repeat(" ", n-1))
	_, err = c.Write(frame.Bytes())
	return err
}

// slowReader asks for large results and reads nothing.
func slowReader(c net.Conn) error {
	req := batchOf(64, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"repeat","params":["x",65536],"id":%d}`, i)
	}) + "\n"
	c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	for range 64 {
		if _, err := io.WriteString(c, req); err != nil {
			break // the server stopped reading: it is full, as intended
		}
	}
	return nil
}

// junkLines writes lines that are not JSON to addr, as fast as the server
// reads them, until ctx ends or it has written max bytes, and reads what
// comes back: an error answer to each.
func junkLines(ctx context.Context, addr string, max int) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	read := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(io.Discard, c)
		read <- n
	}()
	chunk := []byte(strings.Repeat("x\n", 32<<10))
	sent := 0
	for sent < max && ctx.Err() == nil {
		n, err := c.Write(chunk)
		sent += n
		if err != nil {
			break
		}
	}
	if ctx.Err() == nil {
		// Everything is sent: let the answers come back until ctx ends.
		c.(*net.TCPConn).CloseWrite()
	}
	back := <-read
	c.Close()
	return fmt.Sprintf("%.1f MB of junk lines sent, %.1f MB of answers read", float64(sent)/1e6, float64(back)/1e6), nil
}

// A brokenError is a bound the attack saw the server break, beside those
// that the soak measures: the server did not answer what it must, or
// refused what it must not. The verdict reports it as a broken bound.
type brokenError struct{ msg string }

func (e *brokenError) Error() string { return e.msg }

// broken returns a brokenError of the formatted message.
func broken(format string, args ...any) error {
	return &brokenError{fmt.Sprintf(format, args...)}
}

// dialTCP dials addr from the attacker's address, 127.0.0.1.
func dialTCP(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	return d.DialContext(ctx, "tcp", addr)
}

// callLine writes req on c and reads the answer line within wait, into
// at most 64 KiB.
func callLine(c net.Conn, r *bufio.Reader, req string, wait time.Duration) (string, error) {
	c.SetDeadline(time.Now().Add(wait))
	defer c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c, req+"\n"); err != nil {
		return "", err
	}
	line, err := r.ReadSlice('\n')
	return string(line), err
}

// The bounds of pushUnread.
const (
	pushSubscribers = 20
	pushValue       = 64 << 10 // bytes of each value published
	maxPublishes    = 2048
)

// pushUnread subscribes pushSubscribers connections to the feed and stops
// reading them, then publishes values of pushValue bytes on another
// connection, up to maxPublishes, as fast as the server answers, and holds
// everything until ctx ends: the server holds what it could not send them.
func pushUnread(ctx context.Context, addr string) (string, error) {
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range pushSubscribers {
		c, err := dialTCP(ctx, addr)
		if err != nil {
			return "", err
		}
		conns = append(conns, c)
		line, err := callLine(c, bufio.NewReader(c), `{"jsonrpc":"2.0","method":"subscribe","id":1}`, 5*time.Second)
		if err != nil {
			return "", fmt.Errorf("subscribe: %w", err)
		}
		if !strings.Contains(line, `"result":"`) {
			return "", fmt.Errorf("subscribe answered %.200s", line)
		}
	}
	pub, err := dialTCP(ctx, addr)
	if err != nil {
		return "", err
	}
	conns = append(conns, pub)
	stop := context.AfterFunc(ctx, func() { pub.Close() })
	defer stop()
	r := bufio.NewReader(pub)
	req := fmt.Sprintf(`{"jsonrpc":"2.0","method":"publish","params":["x",%d],"id":1}`, pushValue)
	published, queued := 0, 0
	for published < maxPublishes && ctx.Err() == nil {
		line, err := callLine(pub, r, req, 30*time.Second)
		if err != nil {
			break
		}
		var resp struct{ Result int }
		if json.Unmarshal([]byte(line), &resp) != nil {
			return "", fmt.Errorf("publish answered %.200s", line)
		}
		published++
		queued += resp.Result
	}
	<-ctx.Done()
	return fmt.Sprintf("%d subscribers not reading; %d values of %d KiB published, queued %d times", pushSubscribers, published, pushValue>>10, queued), nil
}

// maxSubscriptions bounds the subscriptions manySubs asks for: the
// issue's 100,000.
const maxSubscriptions = 100_000

// manySubs asks for up to maxSubscriptions subscriptions on one
// connection, in batches of 1,024, and holds them until ctx ends.
func manySubs(ctx context.Context, addr string) (string, error) {
	c, err := dialTCP(ctx, addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	batch := batchOf(1024, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"subscribe","id":%d}`, i)
	})
	r := bufio.NewReaderSize(c, 1<<20)
	subscribed, refused := 0, 0
	for subscribed+refused < maxSubscriptions && ctx.Err() == nil {
		if _, err := io.WriteString(c, batch+"\n"); err != nil {
			break
		}
		line, err := r.ReadBytes('\n')
		if err != nil {
			break
		}
		var answers []struct {
			Result string
			Error  *struct{ Code int }
		}
		if err := json.Unmarshal(line, &answers); err != nil {
			return "", fmt.Errorf("the batch's answer: %v: %.200s", err, line)
		}
		for _, a := range answers {
			if a.Error != nil {
				refused++
			} else {
				subscribed++
			}
		}
	}
	<-ctx.Done()
	return fmt.Sprintf("%d subscribed on one connection, %d refused", subscribed, refused), nil
}

// The bounds of progressToken.
const (
	progressConns = 8
	progressSteps = 200
	maxProgress   = 16 // calls on each connection: 128 MiB of tokens in all
)

// progressToken calls progress on progressConns connections, one call at
// a time on each, with a progress token of 1 MiB and progressSteps reports
// asked for, and reads what comes back, until ctx ends or each has made
// maxProgress calls. The server must run under -protocol lsp, which takes
// the token from workDoneToken.
func progressToken(ctx context.Context, addr string) (string, error) {
	token := strings.Repeat("t", 1<<20)
	var (
		mu             sync.Mutex
		calls, reports int
		sent, read     int64
		first          error
		wg             sync.WaitGroup
	)
	for i := range progressConns {
		c, err := dialTCP(ctx, addr)
		if err != nil {
			return "", err
		}
		stop := context.AfterFunc(ctx, func() { c.Close() })
		wg.Go(func() {
			defer stop()
			defer c.Close()
			r := bufio.NewReaderSize(c, 64<<10)
			for k := range maxProgress {
				if ctx.Err() != nil {
					return
				}
				req := fmt.Sprintf(`{"jsonrpc":"2.0","method":"progress","params":{"steps":%d,"workDoneToken":"%d-%s"},"id":%d}`+"\n", progressSteps, i, token, k)
				if _, err := io.WriteString(c, req); err != nil {
					return
				}
				n, got, err := readProgress(r, progressSteps)
				mu.Lock()
				sent += int64(len(req))
				read += n
				reports += got
				if err == nil {
					calls++
				} else if first == nil && ctx.Err() == nil {
					first = err
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if calls == 0 && first != nil {
		return "", first
	}
	<-ctx.Done()
	return fmt.Sprintf("%d calls, %.0f MB sent; %d reports, %.1f MB read back", calls, float64(sent)/1e6, reports, float64(read)/1e6), nil
}

// maxReport bounds a line that readProgress reads: a report echoes a
// token of 1 MiB.
const maxReport = 4 << 20

// readProgress reads the lines of one progress call: up to steps reports
// and then the answer. It returns the bytes read and the reports.
func readProgress(r *bufio.Reader, steps int) (n int64, reports int, err error) {
	for range steps + 1 {
		var head []byte
		for line := 0; ; {
			chunk, err := r.ReadSlice('\n')
			n += int64(len(chunk))
			if line += len(chunk); line > maxReport {
				return n, reports, fmt.Errorf("a line of more than %d bytes", maxReport)
			}
			if len(head) < 64 {
				head = append(head, chunk[:min(len(chunk), 64-len(head))]...)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return n, reports, err
			}
			break
		}
		if bytes.Contains(head, []byte(`"method":"$/progress"`)) {
			reports++
			continue
		}
		if bytes.Contains(head, []byte(`"error"`)) {
			return n, reports, fmt.Errorf("progress answered %.64s", head)
		}
		return n, reports, nil // the answer
	}
	return n, reports, errors.New("more reports than asked for")
}

// The bounds of hugeLines.
const (
	hugeLine     = 33 << 20 // bytes of each line
	maxHugeLines = 32
)

// hugeLines sends lines of hugeLine bytes over one TCP connection, each a
// call of echo with its id first, up to maxHugeLines, and reads the answer
// to each: the server must answer each with -32005 and its id, and go on
// reading the connection. A connection that ends instead is dialed again
// and counted.
func hugeLines(ctx context.Context, addr string) (string, error) {
	const head = `{"jsonrpc":"2.0","id":%d,"method":"echo","params":["`
	const tail = `"]}` + "\n"
	body := []byte(strings.Repeat("x", hugeLine-len(head)-len(tail)) + tail)
	var (
		c     net.Conn
		r     *bufio.Reader
		stop  = func() bool { return false }
		ended int
	)
	defer func() {
		stop()
		if c != nil {
			c.Close()
		}
	}()
	answered := 0
	n := 0
	for ; n < maxHugeLines && ctx.Err() == nil; n++ {
		if c == nil {
			var err error
			if c, err = dialTCP(ctx, addr); err != nil {
				return "", err
			}
			r = bufio.NewReader(c)
			conn := c
			stop = context.AfterFunc(ctx, func() { conn.Close() })
		}
		_, err := fmt.Fprintf(c, head, n)
		if err == nil {
			_, err = c.Write(body)
		}
		var line []byte
		if err == nil {
			line, err = r.ReadSlice('\n')
		}
		if ctx.Err() != nil {
			break
		}
		if err == nil && bytes.Contains(line, []byte(`"code":-32005`)) && bytes.Contains(line, fmt.Appendf(nil, `"id":%d}`, n)) {
			answered++
			continue
		}
		// The connection ended, or the answer was not the limit's.
		ended++
		stop()
		c.Close()
		c = nil
	}
	<-ctx.Done()
	got := fmt.Sprintf("%d lines of %d MiB sent, %d answered -32005 with their id", n, hugeLine>>20, answered)
	if ended > 0 {
		return got, broken("%d of %d lines of %d MiB ended their connection or got another answer, instead of -32005 with their id", ended, n, hugeLine>>20)
	}
	return got, nil
}

// maxClientConns bounds the connections connsUntilRefused opens: more
// than jsonrpcd's -max-conns (4096).
const maxClientConns = 6000

// connsUntilRefused opens TCP connections from 127.0.0.1, 64 at a time,
// each checked with a call of add, until the server refuses one (answers
// it with an error, closes it, or leaves it unanswered for 2 s) or
// maxClientConns are open, and holds those it served until ctx ends.
// Beside it, the healthy clients connect from 127.0.0.2.
func connsUntilRefused(ctx context.Context, addr string) (string, error) {
	var (
		mu      sync.Mutex
		held    []net.Conn
		refused int
		waiting int // unanswered when the attack ended
		how     string
		wg      sync.WaitGroup
	)
	sem := make(chan struct{}, 64)
	stopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return refused > 0
	}
	for range maxClientConns {
		if ctx.Err() != nil || stopped() {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := dialTCP(ctx, addr)
			var line string
			if err == nil {
				line, err = callLine(c, bufio.NewReader(c), `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, 2*time.Second)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && strings.HasPrefix(line, `{"jsonrpc":"2.0","result":3,"id":1}`):
				held = append(held, c)
				return
			case ctx.Err() != nil:
				waiting++
			case err != nil:
				refused++
				if how == "" {
					how = err.Error()
				}
			default:
				refused++
				if how == "" {
					how = strings.TrimSpace(line)
				}
			}
			if c != nil {
				c.Close()
			}
		})
	}
	wg.Wait()
	<-ctx.Done()
	for _, c := range held {
		c.Close()
	}
	got := fmt.Sprintf("%d held", len(held))
	if waiting > 0 {
		got += fmt.Sprintf(", %d unanswered until the attack ended", waiting)
	}
	if refused > 0 {
		got += fmt.Sprintf("; %d refused: %.80s", refused, how)
	}
	return got, nil
}
