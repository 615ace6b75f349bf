package explorer

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// This file mirrors the formatting functions of explorer.js, so that the
// tests compute the text of every cell from the JSON on their own. Keep the
// two in step: the same operations in the same order give the same float64
// results in Go and in JavaScript.

const dash = "\u2014"

var (
	countUnits = []string{"", " k", " M", " G", " T"}
	nanoUnits  = []string{" ns", " µs", " ms", " s"}
	microUnits = []string{" µs", " ms", " s"}
)

// toFixed returns what JavaScript's x.toFixed(d) returns for |x| < 1e21:
// the exact binary value of x rounded to d decimals, a half rounded up
// (ECMA-262 Number.prototype.toFixed). Go's strconv rounds a half to even,
// which differs for values such as 0.125.
func toFixed(x float64, d int) string {
	if x < 0 {
		return "-" + toFixed(-x, d)
	}
	// Every float64 has at most 1074 decimals, so this is its exact value.
	exact := new(big.Float).SetFloat64(x).Text('f', 1100)
	whole, frac, _ := strings.Cut(exact, ".")
	n, _ := new(big.Int).SetString(whole+frac[:d], 10)
	if frac[d] >= '5' {
		n.Add(n, big.NewInt(1))
	}
	s := n.String()
	if d == 0 {
		return s
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	return s[:len(s)-d] + "." + s[len(s)-d:]
}

// number is JavaScript's Number(s) for the output of toFixed.
func number(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return f
}

// fixed3 mirrors fixed3 of explorer.js.
func fixed3(v float64) string {
	s := toFixed(v, 2)
	if math.Abs(number(s)) >= 10 {
		s = toFixed(v, 1)
		if math.Abs(number(s)) >= 100 {
			s = toFixed(v, 0)
		}
	}
	return s
}

// scaled mirrors scaled of explorer.js; nil is a missing value.
func scaled(x *float64, units []string) string {
	if x == nil || math.IsNaN(*x) || math.IsInf(*x, 0) {
		return dash
	}
	if *x == 0 {
		return "0" + units[0]
	}
	v := *x
	i := 0
	for i < len(units)-1 && math.Abs(v) >= 1000 {
		v /= 1000
		i++
	}
	s := fixed3(v)
	if i < len(units)-1 && math.Abs(number(s)) >= 1000 {
		v /= 1000
		i++
		s = fixed3(v)
	}
	return s + units[i]
}

// significant mirrors significant of explorer.js.
func significant(s string) int {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	return len(strings.TrimLeft(digits, "0"))
}

// ratio mirrors ratio of explorer.js; nil is a missing value.
func ratio(x *float64) string {
	if x == nil || math.IsNaN(*x) || math.IsInf(*x, 0) {
		return dash
	}
	if *x == 0 {
		return "0×"
	}
	s := fixed3(*x)
	for d := 3; d <= 6 && significant(s) < 3; d++ {
		s = toFixed(*x, d)
	}
	return s + "×"
}

var dateRE = regexp.MustCompile(`^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)(?::\d\d(?:\.\d+)?)?Z$`)

// when mirrors when of explorer.js.
func when(date string) string {
	if date == "" {
		return dash
	}
	if m := dateRE.FindStringSubmatch(date); m != nil {
		return m[1] + " " + m[2] + " UTC"
	}
	return date
}

// text mirrors text of explorer.js for strings.
func text(s string) string {
	if s == "" {
		return dash
	}
	return s
}

// textInt mirrors text of explorer.js for an optional integer.
func textInt(n *int) string {
	if n == nil {
		return dash
	}
	return strconv.Itoa(*n)
}

func f64(x float64) *float64 { return &x }

// TestFormat pins the formats that the page shows, through the Go mirror.
// The browser tests check that the page and the mirror agree.
func TestFormat(t *testing.T) {
	for _, c := range []struct {
		x     float64
		units []string
		want  string
	}{
		{2792749.268876173, countUnits, "2.79 M"},
		{31000, countUnits, "31.0 k"},
		{63771.7226073637, countUnits, "63.8 k"},
		{152326.3806274964, countUnits, "152 k"},
		{15613033.339858446, countUnits, "15.6 M"},
		{999.6, countUnits, "1.00 k"},
		{999.4, countUnits, "999"},
		{999_600, countUnits, "1.00 M"},
		{9.996, countUnits, "10.0"},
		{99.96, countUnits, "100"},
		{2.5e15, countUnits, "2500 T"},
		{0, countUnits, "0"},
		{4.876703368877574e-7, countUnits, "0.00"},
		{2.000364739325405, countUnits, "2.00"},
		{15.426163916410829, countUnits, "15.4"},
		{25.972866966722478, countUnits, "26.0"},
		{0.125, countUnits, "0.13"}, // a half rounds up, as in JavaScript
		{1.005, countUnits, "1.00"}, // 1.005 is 1.00499999999999989… in binary
		{358.0700964259526, nanoUnits, "358 ns"},
		{30560.71768229326, nanoUnits, "30.6 µs"},
		{1319.1225205485955, nanoUnits, "1.32 µs"},
		{2.5e9, nanoUnits, "2.50 s"},
		{21.248, microUnits, "21.2 µs"},
		{2785.28, microUnits, "2.79 ms"},
	} {
		if got := scaled(&c.x, c.units); got != c.want {
			t.Errorf("scaled(%v, %q) = %q, want %q", c.x, c.units[0], got, c.want)
		}
	}
	if got := scaled(nil, countUnits); got != dash {
		t.Errorf("scaled(nil) = %q, want a dash", got)
	}

	for _, c := range []struct {
		x    float64
		want string
	}{
		{1, "1.00×"},
		{0.054543521799504, "0.0545×"},
		{0.005422182498863624, "0.00542×"},
		{1.738716652072098, "1.74×"},
		{3.146690658274965, "3.15×"},
		{1.1370715709987878, "1.14×"},
		{1234.5, "1235×"},
		{1e-9, "0.000000×"},
		{0, "0×"},
	} {
		if got := ratio(&c.x); got != c.want {
			t.Errorf("ratio(%v) = %q, want %q", c.x, got, c.want)
		}
	}

	for _, c := range []struct{ in, want string }{
		{"2026-11-29T21:40:38Z", "2026-11-29 21:40 UTC"},
		{"2026-11-29T21:40:38.123Z", "2026-11-29 21:40 UTC"},
		{"2026-11-29T21:40Z", "2026-11-29 21:40 UTC"},
		{"2026-11-29T21:40:38+01:00", "2026-11-29T21:40:38+01:00"},
		{"", dash},
	} {
		if got := when(c.in); got != c.want {
			t.Errorf("when(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
