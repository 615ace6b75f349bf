// Package hexutil holds the Go types that the Ethereum client of package
// ethrpc maps the execution APIs' quantities to, as openrpc-gen's -type
// flag does: Big for "uint" and "uint256", any unsigned integer in hex,
// and Uint64 for "uint64".
package hexutil

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Big is an unsigned integer of any size, in JSON a string of its hex
// digits after "0x" ("0x0", "0x1f"). The zero Big is 0.
type Big struct {
	i *big.Int
}

// NewBig returns x as a Big; x must not be negative.
func NewBig(x *big.Int) Big { return Big{i: new(big.Int).Set(x)} }

// BigUint64 returns x as a Big.
func BigUint64(x uint64) Big { return Big{i: new(big.Int).SetUint64(x)} }

// Int returns the value of b as a new big.Int.
func (b Big) Int() *big.Int {
	if b.i == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(b.i)
}

// MarshalText writes b in hex with the prefix 0x.
func (b Big) MarshalText() ([]byte, error) {
	if b.i == nil {
		return []byte("0x0"), nil
	}
	if b.i.Sign() < 0 {
		return nil, fmt.Errorf("hexutil: %v is negative", b.i)
	}
	return []byte("0x" + b.i.Text(16)), nil
}

// UnmarshalText reads a hex quantity: "0x" then at least one digit, with
// no leading zero.
func (b *Big) UnmarshalText(text []byte) error {
	digits, err := quantity(text)
	if err != nil {
		return err
	}
	i, ok := new(big.Int).SetString(digits, 16)
	if !ok {
		return fmt.Errorf("hexutil: %q is not a hex quantity", text)
	}
	b.i = i
	return nil
}

// Uint64 is an unsigned 64-bit integer, in JSON a hex quantity as Big.
type Uint64 uint64

// MarshalText writes u in hex with the prefix 0x.
func (u Uint64) MarshalText() ([]byte, error) {
	return []byte("0x" + strconv.FormatUint(uint64(u), 16)), nil
}

// UnmarshalText reads a hex quantity of at most 64 bits.
func (u *Uint64) UnmarshalText(text []byte) error {
	digits, err := quantity(text)
	if err != nil {
		return err
	}
	v, err := strconv.ParseUint(digits, 16, 64)
	if err != nil {
		return fmt.Errorf("hexutil: %q: %w", text, err)
	}
	*u = Uint64(v)
	return nil
}

// quantity returns the digits of a hex quantity.
func quantity(text []byte) (string, error) {
	s, ok := strings.CutPrefix(string(text), "0x")
	if !ok || s == "" || len(s) > 1 && s[0] == '0' {
		return "", fmt.Errorf("hexutil: %q is not a hex quantity", text)
	}
	return s, nil
}
