package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The attacks on result streams (jsonrpcd -items: a method whose result
// is a sequence, package protocol/enumerator): sequences opened and never
// pulled, and sequences of large items, or their partial results, for a
// client that does not read.

// The bounds of the attacks on result streams.
const (
	seqConns    = 256 // unpulledSeqs' connections
	seqsPerConn = 256 // the calls of each
	unreadConns = 8   // seqUnread's connections
	unreadCalls = 256 // the calls of each
	unreadItem  = 1 << 20
	lspConns    = 4  // partialUnread's connections
	lspCalls    = 64 // the calls of each
	lspItem     = 64 << 10
)

// itemsCall is a call of items: n items of size bytes, with a
// partialResultToken when partial is set.
func itemsCall(id, n, size int, partial bool) string {
	token := ""
	if partial {
		token = fmt.Sprintf(`,"partialResultToken":"p%d"`, id)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"items","params":{"n":%d,"size":%d%s},"id":%d}`, n, size, token, id)
}

// unpulledSeqs opens seqConns connections and calls items on each
// seqsPerConn times, sequences of a million items that it never pulls,
// and reads the first answers: a token for each sequence left open, or
// the refusal of one past the client's share of the server's running
// calls. It holds them until ctx ends. Before the open sequences counted
// against the running calls, 65,536 producers waited on 65,802
// goroutines (issue 34).
func unpulledSeqs(ctx context.Context, addr string) (string, error) {
	var opened, refused, other atomic.Int64
	var firstOther atomic.Value
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var wg sync.WaitGroup
	for i := range seqConns {
		if ctx.Err() != nil {
			break
		}
		c, err := dialTCP(ctx, addr)
		if err != nil {
			if i == 0 {
				return "", err
			}
			break
		}
		conns = append(conns, c)
		wg.Go(func() {
			var b strings.Builder
			for k := range seqsPerConn {
				b.WriteString(itemsCall(k+1, 1_000_000, 16, false))
				b.WriteByte('\n')
			}
			if _, err := io.WriteString(c, b.String()); err != nil {
				return
			}
			r := bufio.NewReaderSize(c, 64<<10)
			for range seqsPerConn {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				switch {
				case strings.Contains(line, `"token":`):
					opened.Add(1)
				case strings.Contains(line, `"code":-32005`):
					refused.Add(1)
				default:
					if other.Add(1) == 1 {
						firstOther.Store(line)
					}
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	got := fmt.Sprintf("%d connections: %d sequences open, unpulled; %d refused", len(conns), opened.Load(), refused.Load())
	if n := other.Load(); n > 0 {
		got += fmt.Sprintf("; %d other answers, first %.80s", n, firstOther.Load())
	}
	<-ctx.Done()
	return got, nil
}

// seqUnread opens conns connections, calls items calls times on each,
// sequences of a million items of size bytes (with a partialResultToken
// when partial is set: under LSP their items come as partial results),
// and never reads: what the server makes for them waits to be sent. It
// holds them until ctx ends. Before, every call in flight and every
// partial result made its items: 8 connections of 1 MiB items reached
// 8,355 MiB, and 64 calls of partial results on one connection 4.9 GB
// (issue 34).
func seqUnread(ctx context.Context, addr string, conns, calls, size int, partial bool) (string, error) {
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	sent := 0
	for range conns {
		c, err := dialTCP(ctx, addr)
		if err != nil {
			if len(held) == 0 {
				return "", err
			}
			break
		}
		held = append(held, c)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4 << 10) // reads nothing: the server's writes fill what little there is
		}
		var b strings.Builder
		for k := range calls {
			b.WriteString(itemsCall(k+1, 1_000_000, size, partial))
			b.WriteByte('\n')
		}
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, b.String()); err == nil {
			sent += calls
		}
		c.SetWriteDeadline(time.Time{})
	}
	<-ctx.Done()
	what := "items"
	if partial {
		what = "partial results"
	}
	return fmt.Sprintf("%d connections, %d calls of %d KiB %s, none read", len(held), sent, size>>10, what), nil
}
