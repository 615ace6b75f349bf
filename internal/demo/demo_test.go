package demo_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if ms, err := demo.Sleep(context.Background(), 250); ms != 250 || err != nil || time.Since(start) != 250*time.Millisecond {
			t.Errorf("Sleep(250) = %d, %v after %v", ms, err, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		if _, err := demo.Sleep(ctx, 1000); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 260*time.Millisecond {
			t.Errorf("cancelled Sleep: %v after %v", err, time.Since(start))
		}
		for _, ms := range []int{-1, 60_001} {
			if _, err := demo.Sleep(context.Background(), ms); !errors.Is(err, jsonrpc.ErrInvalidParams) {
				t.Errorf("Sleep(%d): %v, want invalid params", ms, err)
			}
		}
	})
}

func TestRepeat(t *testing.T) {
	if s, err := demo.Repeat("ab", 3); s != "ababab" || err != nil {
		t.Errorf("Repeat(ab, 3) = %q, %v", s, err)
	}
	for _, n := range []int{-1, demo.MaxRepeat/2 + 1} {
		if _, err := demo.Repeat("ab", n); !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("Repeat(ab, %d): %v, want invalid params", n, err)
		}
	}
	// Served, a result over the response limit is the limit error.
	srv := demo.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: 1 << 10}))
	got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"repeat","params":{"s":"x","n":2000},"id":1}`)
	if want := `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"response exceeds the limit of 1024 bytes"},"id":1}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
