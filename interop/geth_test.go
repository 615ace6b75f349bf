package interop

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// ethServer is an Ethereum-style API served by this library: a block
// number and a balance as hex quantities (the balance past 2^64),
// eth_call reverting with code 3 and the revert data, as nodes answer it,
// and eth_subscribe/eth_unsubscribe on a pubsub.Topic of newHeads, whose
// notifications are eth_subscription.
func ethServer(t *testing.T) (*jsonrpc.Server, *pubsub.Topic) {
	t.Helper()
	heads := &pubsub.Topic{Method: "eth_subscription"}
	srv := jsonrpc.NewServer()
	balance := new(big.Int).Lsh(big.NewInt(1), 100) // 2^100 wei
	srv.MustRegister("eth_blockNumber", func() string { return "0x1b4" })
	srv.MustRegister("eth_getBalance", func(addr, block string) (string, error) {
		if len(addr) != 42 || block != "latest" {
			return "", jsonrpc.ErrInvalidParams.WithData("want an address and latest")
		}
		return hexutil.EncodeBig(balance), nil
	})
	srv.MustRegister("eth_call", func(call map[string]any, block string) (string, error) {
		return "", &jsonrpc.Error{Code: 3, Message: "execution reverted", Data: []byte(`"0x08c379a0"`)}
	})
	srv.MustRegister("eth_subscribe", func(ctx context.Context, kind string) (string, error) {
		if kind != "newHeads" {
			return "", jsonrpc.ErrInvalidParams.WithData("unsupported subscription " + kind)
		}
		s, err := heads.Subscribe(ctx)
		if err != nil {
			return "", err
		}
		return s.ID(), nil
	})
	srv.MustRegister("eth_unsubscribe", func(id string) bool { return heads.Unsubscribe(id) })
	return srv, heads
}

// head is a block header as newHeads carries it, abridged.
type head struct {
	Number *hexutil.Big `json:"number"`
}

// TestGoEthereumClient drives this library's hosts with go-ethereum's own
// RPC client, as the users of Ethereum-style APIs call them: over HTTP
// (httprpc), WebSocket (ws) and IPC (stream with framing.Raw on a Unix
// socket, geth's IPC framing). Each: a quantity, a balance past 2^64
// read back exactly, a batch with an unknown method in it, and a revert
// whose code and data reach the client's rpc.Error and rpc.DataError.
// Over WebSocket and IPC, EthSubscribe receives 100 heads in order and its
// Unsubscribe ends the subscription on the server; over HTTP it is
// refused with ErrNotificationsUnsupported.
func TestGoEthereumClient(t *testing.T) {
	srv, heads := ethServer(t)
	mux := http.NewServeMux()
	mux.Handle("/", &httprpc.Handler{Server: srv})
	mux.Handle("/ws", &ws.Handler{Server: srv})
	hs := httptest.NewServer(mux)
	defer hs.Close()

	sock := filepath.Join(t.TempDir(), "geth.ipc")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ipc := &stream.Server{Server: srv, Framing: framing.Raw}
	go ipc.Serve(ln)
	defer ipc.Close()

	for _, tc := range []struct {
		name, url string
		push      bool
	}{
		{"http", hs.URL, false},
		{"websocket", "ws" + hs.URL[len("http"):] + "/ws", true},
		{"ipc", sock, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := gethrpc.DialContext(ctx, tc.url)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()

			var n hexutil.Uint64
			if err := c.CallContext(ctx, &n, "eth_blockNumber"); err != nil || n != 436 {
				t.Errorf("eth_blockNumber = %d, %v; want 436", n, err)
			}
			var bal hexutil.Big
			addr := "0x" + fmt.Sprintf("%040x", 1)
			if err := c.CallContext(ctx, &bal, "eth_getBalance", addr, "latest"); err != nil || bal.ToInt().Cmp(new(big.Int).Lsh(big.NewInt(1), 100)) != 0 {
				t.Errorf("eth_getBalance = %v, %v; want 2^100", bal.ToInt(), err)
			}

			var b1, b2 hexutil.Uint64
			batch := []gethrpc.BatchElem{
				{Method: "eth_blockNumber", Result: &b1},
				{Method: "eth_nope", Result: &b2},
				{Method: "eth_getBalance", Args: []any{"0x1", "latest"}, Result: new(hexutil.Big)},
			}
			if err := c.BatchCallContext(ctx, batch); err != nil {
				t.Fatal("batch:", err)
			}
			if batch[0].Error != nil || b1 != 436 {
				t.Errorf("batch eth_blockNumber = %d, %v", b1, batch[0].Error)
			}
			for i, code := range map[int]int{1: -32601, 2: -32602} {
				var re gethrpc.Error
				if !errors.As(batch[i].Error, &re) || re.ErrorCode() != code {
					t.Errorf("batch %s: %v, want code %d", batch[i].Method, batch[i].Error, code)
				}
			}

			err = c.CallContext(ctx, new(string), "eth_call", map[string]any{"to": addr, "data": "0x"}, "latest")
			var re gethrpc.Error
			var de gethrpc.DataError
			if !errors.As(err, &re) || re.ErrorCode() != 3 || re.Error() != "execution reverted" ||
				!errors.As(err, &de) || de.ErrorData() != "0x08c379a0" {
				t.Errorf("eth_call = %v, want code 3, execution reverted, data 0x08c379a0", err)
			}

			ch := make(chan head, 128)
			sub, err := c.EthSubscribe(ctx, ch, "newHeads")
			if !tc.push {
				if !errors.Is(err, gethrpc.ErrNotificationsUnsupported) {
					t.Errorf("EthSubscribe over HTTP: %v, want ErrNotificationsUnsupported", err)
				}
				return
			}
			if err != nil {
				t.Fatal("EthSubscribe:", err)
			}
			if heads.Len() != 1 {
				t.Fatalf("%d subscribers after EthSubscribe, want 1", heads.Len())
			}
			for i := range 100 {
				if _, err := heads.Publish(head{Number: (*hexutil.Big)(big.NewInt(int64(i)))}); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 100 {
				select {
				case h := <-ch:
					if h.Number.ToInt().Int64() != int64(i) {
						t.Fatalf("head %d: number %v", i, h.Number.ToInt())
					}
				case err := <-sub.Err():
					t.Fatalf("the subscription ended after %d heads: %v", i, err)
				case <-ctx.Done():
					t.Fatalf("%d heads of 100 within the test's time", i)
				}
			}
			sub.Unsubscribe() // sends eth_unsubscribe and waits for its answer
			if heads.Len() != 0 {
				t.Errorf("%d subscribers after Unsubscribe, want 0", heads.Len())
			}
		})
	}
}
