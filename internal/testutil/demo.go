package testutil

import "github.com/jsonrpc-go/jsonrpc/internal/demo"

// CalcMix is demo.Requests, the calculator mix of the benchmarks, as byte
// slices.
func CalcMix() [][]byte {
	reqs := make([][]byte, len(demo.Requests))
	for i, r := range demo.Requests {
		reqs[i] = []byte(r)
	}
	return reqs
}

// AvgLen is the mean size of reqs, for b.SetBytes.
func AvgLen(reqs [][]byte) int64 {
	n := 0
	for _, r := range reqs {
		n += len(r)
	}
	return int64((n + len(reqs)/2) / len(reqs))
}
