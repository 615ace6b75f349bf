package ethrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/openrpc/gen/internal/ethrpc"
	"github.com/jsonrpc-go/jsonrpc/openrpc/gen/internal/hexutil"
)

// revertData is the data of eth_call's revert: Error(string) with "nope".
const revertData = "0x08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000046e6f706500000000000000000000000000000000000000000000000000000000"

// log is a log of the document's eth_getLogs example.
const log = `{"address":"0x42699a7612a82f1d9c36148af9c77354759b210b","blockHash":"0xfc139f5e2edee9e9c888d8df9a2d2226133a9bd87c88ccbd9c930d3d4c9f9ef5","blockNumber":"0x233","blockTimestamp":"0x11","data":"0x0000000000000000000000000000000000000000000000000000000000000004","logIndex":"0x0","removed":false,"topics":["0x04474795f5b996ff80cb47c148d4c5ccdbe09ef27551820caa9c2f8ed149cce3"],"transactionHash":"0x66e7a140c8fa27fe98fde923defea7562c3ca2d6bb89798aabec65782c08f63d","transactionIndex":"0x0"}`

// ethServer is an Ethereum-style server written by hand, as a node
// answers: positional params, hex quantities, raw JSON results. It records
// the params of each call.
type ethServer struct {
	block []byte // the block 0x68b3 with its transactions

	mu     sync.Mutex // protects the field below
	params map[string][]string
}

func (e *ethServer) record(method string, params json.RawMessage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.params[method] = append(e.params[method], string(params))
}

func (e *ethServer) sent(method string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.params[method]
}

func newEthServer(t *testing.T) (*ethServer, *jsonrpc.Server) {
	block, err := os.ReadFile("testdata/block.json")
	if err != nil {
		t.Fatal(err)
	}
	e := &ethServer{block: block, params: map[string][]string{}}
	srv := jsonrpc.NewServer(jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
		e.record(c.Method(), c.Params())
		return next(ctx)
	}))
	srv.MustRegister("eth_blockNumber", func() string { return "0x68b3" })
	srv.MustRegister("eth_getBlockByNumber", func(number string, full bool) (json.RawMessage, error) {
		switch number {
		case "0x0":
			return nil, jsonrpc.NewError(4444, "Pruned history unavailable")
		case "latest", "0x68b3":
		default:
			return json.RawMessage("null"), nil
		}
		if full {
			return e.block, nil
		}
		var b map[string]json.RawMessage
		if err := json.Unmarshal(e.block, &b); err != nil {
			return nil, err
		}
		var txs []struct {
			Hash string `json:"hash"`
		}
		if err := json.Unmarshal(b["transactions"], &txs); err != nil {
			return nil, err
		}
		hashes := make([]string, len(txs))
		for i, tx := range txs {
			hashes[i] = tx.Hash
		}
		b["transactions"], _ = json.Marshal(hashes)
		return json.Marshal(b)
	})
	srv.MustRegister("eth_call", func(tx struct {
		To    string `json:"to"`
		Input string `json:"input"`
		Value string `json:"value"`
	}, block ...string) (string, error) {
		if tx.Input == "0xdead" {
			return "", jsonrpc.NewError(3, "execution reverted").WithData(revertData)
		}
		return "0x0000000000000000000000000000000000000000000000000000000000000001", nil
	})
	srv.MustRegister("eth_getLogs", func(f struct {
		FromBlock string            `json:"fromBlock"`
		ToBlock   string            `json:"toBlock"`
		Address   json.RawMessage   `json:"address"`
		Topics    []json.RawMessage `json:"topics"`
	}) ([]json.RawMessage, error) {
		if f.FromBlock != "0x233" || f.ToBlock != "latest" {
			return nil, jsonrpc.ErrInvalidParams.WithData("unexpected range " + f.FromBlock + ".." + f.ToBlock)
		}
		return []json.RawMessage{json.RawMessage(log)}, nil
	})
	return e, srv
}

func ethClient(t *testing.T, srv *jsonrpc.Server) *ethrpc.Client {
	ts := httptest.NewServer(&httprpc.Handler{Server: srv})
	t.Cleanup(ts.Close)
	c := client.New(client.HTTP(ts.URL, ts.Client()))
	t.Cleanup(func() { c.Close() })
	return ethrpc.NewClient(c)
}

// TestEthereum calls an Ethereum-style server through the client generated
// from the execution APIs' document.
func TestEthereum(t *testing.T) {
	e, srv := newEthServer(t)
	eth := ethClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	n, err := eth.EthBlockNumber(ctx)
	if err != nil || n.Int().Uint64() != 0x68b3 {
		t.Fatalf("EthBlockNumber = %v, %v; want 0x68b3", n.Int(), err)
	}

	block, err := eth.EthGetBlockByNumber(ctx, "latest", true)
	if err != nil {
		t.Fatalf("EthGetBlockByNumber: %v", err)
	}
	if block.Number.Int().Uint64() != 0x68b3 || block.Miner != "0xb42b6c4a95406c78ff892d270ad20b22642e102d" {
		t.Errorf("block number %v, miner %s", block.Number.Int(), block.Miner)
	}
	if block.BaseFeePerGas == nil || block.BaseFeePerGas.Int().Uint64() != 7 {
		t.Errorf("block base fee %v, want 7", block.BaseFeePerGas)
	}
	if len(block.Withdrawals) != 1 || block.Withdrawals[0].ValidatorIndex != 0x9d8c0 || block.Withdrawals[0].Amount.Int().Uint64() != 0x11a33e3760 {
		t.Errorf("withdrawals %+v", block.Withdrawals)
	}
	txs := block.Transactions.FullTransactions
	if len(txs) != 2 || block.Transactions.TransactionHashes != nil {
		t.Fatalf("transactions %+v, want 2 full ones", block.Transactions)
	}
	dyn, legacy := txs[0], txs[1]
	if dyn.Type != "0x2" || dyn.MaxFeePerGas == nil || dyn.MaxFeePerGas.Int().Uint64() != 10_000_000_000 ||
		dyn.Value.Int().String() != "1000000000000000000" || dyn.YParity == nil || *dyn.YParity != "0x1" || dyn.AccessList == nil {
		t.Errorf("the EIP-1559 transaction: %+v", dyn)
	}
	if legacy.Type != "0x0" || legacy.GasPrice == nil || legacy.GasPrice.Int().Uint64() != 1_000_000_000 ||
		legacy.V == nil || *legacy.V != "0xfe7" || legacy.MaxFeePerGas != nil || legacy.To == nil || *legacy.To != "0x627306090abab3a6e1400e9345bc60c78a8bef57" {
		t.Errorf("the legacy transaction: %+v", legacy)
	}
	if got := e.sent("eth_getBlockByNumber"); got[0] != `["latest",true]` {
		t.Errorf("eth_getBlockByNumber was sent %s, want positional params", got[0])
	}

	block, err = eth.EthGetBlockByNumber(ctx, "0x68b3", false)
	if err != nil {
		t.Fatalf("EthGetBlockByNumber without transactions: %v", err)
	}
	if hs := block.Transactions.TransactionHashes; len(hs) != 2 || hs[0] != dyn.Hash || block.Transactions.FullTransactions != nil {
		t.Errorf("transaction hashes %+v", block.Transactions)
	}
	// The block comes back as it went, through the union's MarshalJSON.
	if b, err := json.Marshal(block.Transactions); err != nil || !strings.HasPrefix(string(b), `["0x`) {
		t.Errorf("the hashes encode as %s, %v", b, err)
	}

	block, err = eth.EthGetBlockByNumber(ctx, "0x1", false)
	if err != nil || block != nil {
		t.Errorf("an unknown block: %+v, %v; want nil (notFound)", block, err)
	}
	if _, err := eth.EthGetBlockByNumber(ctx, "0x0", false); !errors.Is(err, ethrpc.ErrPrunedHistoryUnavailable) {
		t.Errorf("a pruned block: %v, want ErrPrunedHistoryUnavailable", err)
	}

	to := ethrpc.Address("0x69498dd54bd25aa0c886cf1f8b8ae0856d55ff13")
	one := hexutil.BigUint64(1)
	out, err := eth.EthCall(ctx, ethrpc.GenericTransaction{To: &to, Value: &one}, nil)
	if err != nil || !strings.HasSuffix(string(out), "01") {
		t.Errorf("EthCall = %s, %v", out, err)
	}
	latest := ethrpc.BlockNumberOrTagOrHash("latest")
	input := ethrpc.Bytes("0xdead")
	_, err = eth.EthCall(ctx, ethrpc.GenericTransaction{To: &to, Input: &input}, &latest)
	if !errors.Is(err, ethrpc.ErrExecutionReverted) {
		t.Fatalf("a reverting EthCall: %v, want ErrExecutionReverted", err)
	}
	rpcErr, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok {
		t.Fatalf("a reverting EthCall: %T, want a *jsonrpc.Error", err)
	}
	var data ethrpc.Bytes
	if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data != revertData {
		t.Errorf("the revert's data %s, %v; want %s", rpcErr.Data, err, revertData)
	}
	calls := e.sent("eth_call")
	if len(calls) != 2 || calls[0] != `[{"to":"0x69498dd54bd25aa0c886cf1f8b8ae0856d55ff13","value":"0x1"}]` ||
		calls[1] != `[{"input":"0xdead","to":"0x69498dd54bd25aa0c886cf1f8b8ae0856d55ff13"},"latest"]` {
		t.Errorf("eth_call was sent %q", calls)
	}

	from := ethrpc.BlockNumberOrTagForRange("0x233")
	toBlock := ethrpc.BlockNumberOrTagForRange("latest")
	addr := ethrpc.Address("0x42699a7612a82f1d9c36148af9c77354759b210b")
	topic := ethrpc.Bytes32("0x04474795f5b996ff80cb47c148d4c5ccdbe09ef27551820caa9c2f8ed149cce3")
	logs, err := eth.EthGetLogs(ctx, ethrpc.Filter{
		FromBlock: &from, ToBlock: &toBlock,
		Address: &ethrpc.FilterAddress{Address: &addr},
		Topics:  ethrpc.FilterTopics{{SingleTopicMatch: &topic}, nil},
	})
	if err != nil {
		t.Fatalf("EthGetLogs: %v", err)
	}
	if len(logs.NewLogs) != 1 || logs.NewLogs[0].Address == nil || *logs.NewLogs[0].Address != addr || logs.NewLogs[0].BlockNumber == nil || logs.NewLogs[0].BlockNumber.Int().Uint64() != 0x233 || logs.NewLogs[0].Removed == nil || *logs.NewLogs[0].Removed {
		t.Errorf("logs %+v", logs)
	}
	want := `[{"address":"0x42699a7612a82f1d9c36148af9c77354759b210b","fromBlock":"0x233","toBlock":"latest","topics":["0x04474795f5b996ff80cb47c148d4c5ccdbe09ef27551820caa9c2f8ed149cce3",null]}]`
	if got := e.sent("eth_getLogs"); got[0] != want {
		t.Errorf("eth_getLogs was sent\n%s\nwant\n%s", got[0], want)
	}
}

// node serves some methods of the execution APIs through the generated
// server interface.
type node struct {
	ethrpc.UnimplementedServer
	block *ethrpc.Block
}

func (n *node) EthBlockNumber(context.Context) (ethrpc.Uint, error) {
	return n.block.Number, nil
}

func (n *node) EthGetBlockByNumber(_ context.Context, number ethrpc.BlockNumberOrTag, full bool) (*ethrpc.Block, error) {
	if number != "latest" {
		return nil, nil
	}
	return n.block, nil
}

func (n *node) EthCall(_ context.Context, p ethrpc.EthCallParams) (ethrpc.Bytes, error) {
	if p.Block != nil && *p.Block != "latest" {
		return "", ethrpc.ErrPrunedHistoryUnavailable
	}
	return "0x01", nil
}

// TestGeneratedServer serves part of the execution APIs with the
// generated server interface and calls it with the generated client.
func TestGeneratedServer(t *testing.T) {
	b, err := os.ReadFile("testdata/block.json")
	if err != nil {
		t.Fatal(err)
	}
	n := &node{block: new(ethrpc.Block)}
	if err := json.Unmarshal(b, n.block); err != nil {
		t.Fatal(err)
	}
	srv := jsonrpc.NewServer()
	if err := ethrpc.Register(srv, n, nil); err != nil {
		t.Fatal(err)
	}
	eth := ethClient(t, srv)
	ctx := context.Background()
	num, err := eth.EthBlockNumber(ctx)
	if err != nil || num.Int().Uint64() != 0x68b3 {
		t.Errorf("EthBlockNumber = %v, %v", num.Int(), err)
	}
	block, err := eth.EthGetBlockByNumber(ctx, "latest", true)
	if err != nil || len(block.Transactions.FullTransactions) != 2 || block.Transactions.FullTransactions[1].GasPrice.Int().Uint64() != 1_000_000_000 {
		t.Errorf("EthGetBlockByNumber = %+v, %v", block, err)
	}
	if block, err := eth.EthGetBlockByNumber(ctx, "0x1", true); block != nil || err != nil {
		t.Errorf("EthGetBlockByNumber(0x1) = %+v, %v; want null", block, err)
	}
	to := ethrpc.Address("0x69498dd54bd25aa0c886cf1f8b8ae0856d55ff13")
	if out, err := eth.EthCall(ctx, ethrpc.GenericTransaction{To: &to}, nil); out != "0x01" || err != nil {
		t.Errorf("EthCall = %s, %v", out, err)
	}
	safe := ethrpc.BlockNumberOrTagOrHash("safe")
	if _, err := eth.EthCall(ctx, ethrpc.GenericTransaction{To: &to}, &safe); !errors.Is(err, ethrpc.ErrPrunedHistoryUnavailable) {
		t.Errorf("EthCall at safe: %v, want ErrPrunedHistoryUnavailable", err)
	}
	if _, err := eth.EthChainId(ctx); !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("EthChainId, not implemented: %v, want ErrMethodNotFound", err)
	}
}
