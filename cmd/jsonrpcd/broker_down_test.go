package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// downBroker is a Broker whose broker is away, as Redis's is when it is
// down: Publish and Subscribe fail.
type downBroker struct{}

var errBrokerDown = errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")

func (downBroker) Publish(context.Context, string, []byte) error { return errBrokerDown }
func (downBroker) Subscribe(context.Context, string, func([]byte)) (func(), error) {
	return nil, errBrokerDown
}

// TestPublishBrokerDown: with its broker down, jsonrpcd's publish answers
// that the broker is unavailable, with the feed's subject as data, under
// -32005, a code of the calls the server could not serve for now, and
// not a bare -32000 "Server error" that a client cannot tell from a bug
// (issue 34).
func TestPublishBrokerDown(t *testing.T) {
	srv := demo.NewServer()
	feed, err := demo.RegisterTwoWay(srv)
	if err != nil {
		t.Fatal(err)
	}
	feed.SetBroker(downBroker{})
	defer feed.Close()
	s := startServing(t, srv, "-ws=false")

	resp, err := (&http.Client{Timeout: wait}).Post("http://"+s.httpAddr+"/", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","method":"publish","params":["x",1],"id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	want := `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Broker unavailable","data":{"subject":"` + demo.FeedSubject + `"}},"id":1}`
	if got := strings.TrimSpace(string(body)); got != want {
		t.Errorf("publish with the broker down: %s, want %s", got, want)
	}
}
