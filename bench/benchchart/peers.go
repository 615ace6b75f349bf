package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The peer comparison (bench/peers, mode "peers") has one row per scenario,
// connection count and library. A row's Peer names the library: reference
// is this library, a name starting with "floor" is the floor (what only
// scanning each request and writing a fixed answer costs), and Protocol
// tells JSON-RPC 2.0 peers from the others (JSON-RPC 1.0, gRPC).
const reference = "jsonrpc-go"

// A scenario is one column of the peer table and one row of the headline
// table: a scenario of the peers set at one connection count. Title is the
// text both tables and the charts use for it.
type scenario struct {
	Name  string // the rows' scenario field
	Conns int    // the rows' workers: connections over HTTP, 1 otherwise
	Title string
	File  string // the per-scenario chart
}

// scenarios are in the order of the headline table and chart.
var scenarios = []scenario{
	{"tcp", 1, "one TCP connection, pipelined", "peers-tcp.svg"},
	{"http", 16, "HTTP/1.1, 16 connections", "peers-http-16.svg"},
	{"http", 1, "HTTP/1.1, 1 connection", "peers-http-1.svg"},
	{"inproc", 1, "in process", "peers-inproc.svg"},
}

func isFloor(rw *row) bool { return strings.HasPrefix(rw.Peer, "floor") }

// isVariant reports whether rw is this library on another host, such as
// "jsonrpc-go (fasthttp)": not a peer, and not the reference row.
func isVariant(rw *row) bool { return strings.HasPrefix(rw.Peer, reference+" ") }

// peerRows returns the rows of sc in the order of the set.
func (r *report) peerRows(sc scenario) []*row {
	var rows []*row
	for i := range r.Rows {
		rw := &r.Rows[i]
		if rw.Scenario == sc.Name && rw.Workers == sc.Conns {
			rows = append(rows, rw)
		}
	}
	return rows
}

// peerRow returns the first row of sc that match accepts, or nil.
func (r *report) peerRow(sc scenario, match func(*row) bool) *row {
	for _, rw := range r.peerRows(sc) {
		if match(rw) {
			return rw
		}
	}
	return nil
}

func (r *report) self(sc scenario) *row {
	return r.peerRow(sc, func(rw *row) bool { return rw.Peer == reference })
}

// floor returns the first floor row of sc, the floor the tables quote: the
// set lists the tokenizer floor before the floors of other hosts.
func (r *report) floor(sc scenario) *row { return r.peerRow(sc, isFloor) }

// grpc returns the gRPC row of sc, or nil.
func (r *report) grpc(sc scenario) *row {
	return r.peerRow(sc, func(rw *row) bool { return strings.HasPrefix(rw.Protocol, "gRPC") })
}

// best returns the fastest JSON-RPC 2.0 peer of sc (by median), or nil.
func (r *report) best(sc scenario) *row {
	var b *row
	for _, rw := range r.peerRows(sc) {
		if rw.Peer == reference || isVariant(rw) || isFloor(rw) || rw.Protocol != "JSON-RPC 2.0" {
			continue
		}
		if b == nil || rw.MedianRPS > b.MedianRPS {
			b = rw
		}
	}
	return b
}

// formatRatio formats a ratio as the documents write it: two decimals below
// 10 ("0.57", "1.09"), one below 100 ("35.0"), none from 100 ("174").
func formatRatio(v float64) string {
	switch {
	case math.IsInf(v, 0) || math.IsNaN(v):
		return "?"
	case v >= 99.95:
		return fmt.Sprintf("%.0f", v)
	case v >= 9.995:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// over returns how many times faster this library's row is than rw: "35.0×".
func over(self, rw *row) string { return formatRatio(self.MedianRPS/rw.MedianRPS) + "×" }

// peerCell is a cell of the full peer table: this library's rate, or a
// peer's rate with this library's speed over it in brackets.
func peerCell(self, rw *row) string {
	if rw == self {
		return formatRate(rw.MedianRPS)
	}
	return fmt.Sprintf("%s (%s)", formatRate(rw.MedianRPS), over(self, rw))
}

// headlineColumns compute the cells of the headline table, by header: for a
// scenario, this library, the fastest JSON-RPC 2.0 peer, gRPC and the floor.
// "—" stands where the set has no such row.
var headlineColumns = []struct {
	Header string
	Cell   func(r *report, sc scenario, self *row) string
}{
	{"jsonrpc-go", func(r *report, sc scenario, self *row) string { return formatRate(self.MedianRPS) }},
	{"fastest JSON-RPC 2.0 peer", func(r *report, sc scenario, self *row) string {
		if b := r.best(sc); b != nil {
			return b.Peer + ": " + formatRate(b.MedianRPS)
		}
		return "—"
	}},
	{"jsonrpc-go over it", func(r *report, sc scenario, self *row) string {
		if b := r.best(sc); b != nil {
			return "**" + over(self, b) + "**"
		}
		return "—"
	}},
	{"gRPC", func(r *report, sc scenario, self *row) string {
		if g := r.grpc(sc); g != nil {
			return peerCell(self, g)
		}
		return "—"
	}},
	{"floor", func(r *report, sc scenario, self *row) string {
		if f := r.floor(sc); f != nil {
			return formatRate(f.MedianRPS)
		}
		return "—"
	}},
	{"jsonrpc-go / floor", func(r *report, sc scenario, self *row) string {
		if f := r.floor(sc); f != nil {
			return formatRatio(self.MedianRPS / f.MedianRPS)
		}
		return "—"
	}},
}

// peerColors: this library, the peers, gRPC, the floor.
const (
	colorSelf    = "#4e79a7"
	colorVariant = "#a0cbe8"
	colorPeer    = "#f28e2b"
	colorGRPC    = "#e15759"
	colorFloor   = "#9d9d9d"
)

func peerColor(rw *row) string {
	switch {
	case rw.Peer == reference:
		return colorSelf
	case isVariant(rw):
		return colorVariant
	case isFloor(rw):
		return colorFloor
	case strings.HasPrefix(rw.Protocol, "gRPC"):
		return colorGRPC
	}
	return colorPeer
}

// peerBar is rw's bar, labelled with its rate and, for other rows, this
// library's speed over it.
func peerBar(self, rw *row) hbar {
	b := rowBar(rw, peerColor(rw))
	if self != nil {
		b.label = peerCell(self, rw)
	}
	return b
}

// peerLegend explains the colors and the bracketed ratios.
var peerLegend = []legendKey{
	{colorSelf, "jsonrpc-go"},
	{colorVariant, "jsonrpc-go, other host"},
	{colorPeer, "JSON-RPC peer"},
	{colorGRPC, "gRPC"},
	{colorFloor, "floor: find the id, write a fixed answer"},
}

func peerXLabel(r *report) string {
	return fmt.Sprintf("requests/s (median of %s runs; whiskers: min–max; in brackets: jsonrpc-go's rate over the row's)",
		runsOf([]*report{r}))
}

// renderPeersHeadline draws, for each scenario, this library (and its rows
// on other hosts), the fastest JSON-RPC 2.0 peer, gRPC where measured, and
// the floors.
func renderPeersHeadline(r *report) []byte {
	var panels []hpanel
	for _, sc := range scenarios {
		self := r.self(sc)
		if self == nil {
			continue
		}
		groups := []hgroup{{label: reference, bars: []hbar{peerBar(nil, self)}}}
		for _, rw := range r.peerRows(sc) {
			if isVariant(rw) {
				groups = append(groups, hgroup{label: rw.Peer, bars: []hbar{peerBar(self, rw)}})
			}
		}
		if b := r.best(sc); b != nil {
			groups = append(groups, hgroup{label: b.Peer + " (fastest peer)", bars: []hbar{peerBar(self, b)}})
		}
		if g := r.grpc(sc); g != nil {
			groups = append(groups, hgroup{label: g.Peer, bars: []hbar{peerBar(self, g)}})
		}
		for _, rw := range r.peerRows(sc) {
			if isFloor(rw) {
				groups = append(groups, hgroup{label: rw.Peer, bars: []hbar{peerBar(self, rw)}})
			}
		}
		panels = append(panels, hpanel{title: sc.Title, groups: groups, xLabel: peerXLabel(r)})
	}
	return renderHBarsKeyed("jsonrpc-go against the fastest JSON-RPC 2.0 peer and the floor",
		caption([]*report{r}), peerLegend, "library", panels)
}

// renderPeersScenario draws every row of one scenario.
func renderPeersScenario(r *report, sc scenario) []byte {
	self := r.self(sc)
	var groups []hgroup
	for _, rw := range r.peerRows(sc) {
		var b hbar
		if rw == self {
			b = peerBar(nil, rw)
		} else {
			b = peerBar(self, rw)
		}
		groups = append(groups, hgroup{label: rw.Peer, bars: []hbar{b}})
	}
	p := hpanel{groups: groups, xLabel: peerXLabel(r)}
	return renderHBarsKeyed("Peers, "+sc.Title+": the calculator mix", caption([]*report{r}), peerLegend, "library", []hpanel{p})
}

// renderPeers returns the charts of the latest peers set.
func renderPeers(r *report) ([]chart, error) {
	if r.self(scenarios[0]) == nil {
		return nil, fmt.Errorf("%s has no %q row in scenario %q", r.File, reference, scenarios[0].Name)
	}
	charts := []chart{{Name: "peers-headline.svg", Sources: []string{r.File}, SVG: renderPeersHeadline(r)}}
	for _, sc := range scenarios {
		if len(r.peerRows(sc)) == 0 {
			continue
		}
		charts = append(charts, chart{Name: sc.File, Sources: []string{r.File}, SVG: renderPeersScenario(r, sc)})
	}
	return charts, nil
}

// peerTables writes the headline table and the full peer table of r as the
// documents quote them (see checkPeerTables), for pasting.
func peerTables(r *report) string {
	var b strings.Builder
	b.WriteString("| scenario |")
	for _, c := range headlineColumns {
		b.WriteString(" " + c.Header + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(headlineColumns)) + "\n")
	var measured []scenario
	for _, sc := range scenarios {
		self := r.self(sc)
		if self == nil {
			continue
		}
		measured = append(measured, sc)
		b.WriteString("| " + sc.Title + " |")
		for _, c := range headlineColumns {
			b.WriteString(" " + c.Cell(r, sc, self) + " |")
		}
		b.WriteString("\n")
	}

	b.WriteString("\n| peer |")
	for _, sc := range measured {
		b.WriteString(" " + sc.Title + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(measured)) + "\n")
	var names []string
	for _, rw := range r.Rows {
		if rw.Peer != "" && !slices.Contains(names, rw.Peer) {
			names = append(names, rw.Peer)
		}
	}
	// This library, its other hosts, the peers, the floors; else set order.
	rank := func(name string) int {
		rw := &row{Peer: name}
		switch {
		case name == reference:
			return 0
		case isVariant(rw):
			return 1
		case isFloor(rw):
			return 3
		}
		return 2
	}
	slices.SortStableFunc(names, func(a, b string) int { return rank(a) - rank(b) })
	for _, name := range names {
		b.WriteString("| " + name + " |")
		for _, sc := range measured {
			cell := ""
			if rw := r.peerRow(sc, func(x *row) bool { return x.Peer == name }); rw != nil {
				cell = peerCell(r.self(sc), rw)
			}
			if cell == "" {
				b.WriteString(" |")
			} else {
				b.WriteString(" " + cell + " |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// realLegend explains the colors of the chart of the peers-real set.
var realLegend = []legendKey{
	{colorSelf, "jsonrpc-go, Register"},
	{colorVariant, "jsonrpc-go, typed methods"},
	{colorPeer, "JSON-RPC peer"},
	{colorFloor, "floor: answers made in advance"},
}

// renderPeersReal draws the peers-real set of bench/peers (-workload
// real): for each method, one panel of every row, with this library's rate
// (the Register row) over each other row in brackets.
func renderPeersReal(r *report) []byte {
	var panels []hpanel
	var methods []string
	for _, rw := range r.Rows {
		if !slices.Contains(methods, rw.Scenario) {
			methods = append(methods, rw.Scenario)
		}
	}
	for _, m := range methods {
		sc := scenario{Name: m, Conns: 1}
		self := r.self(sc)
		var groups []hgroup
		for _, rw := range r.peerRows(sc) {
			b := peerBar(self, rw)
			if rw == self {
				b = peerBar(nil, rw)
			}
			groups = append(groups, hgroup{label: rw.Peer, bars: []hbar{b}})
		}
		panels = append(panels, hpanel{title: m, groups: groups, xLabel: peerXLabel(r)})
	}
	return renderHBarsKeyed("Realistic methods over one TCP connection", caption([]*report{r}), realLegend, "library", panels)
}
