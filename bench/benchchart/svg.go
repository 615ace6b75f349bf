package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A chart is one rendered SVG file.
type chart struct {
	Name    string   // file name in the charts directory
	Sources []string // the result files it draws, for messages
	SVG     []byte
}

// Layout constants, in SVG user units (pixels at the intended 720px width).
const (
	width     = 720.0
	marginX   = 16.0
	fontStack = "Helvetica, Arial, sans-serif"
	charW     = 6.8 // estimated advance of a 12px character, for layout
)

// palette holds the series colors (colorblind-safe, Tableau 10).
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2"}

// renderAll renders every chart from the latest result sets.
func renderAll(reports []*report) ([]chart, error) {
	inline := latest(reports, "async-inline")
	if inline == nil {
		return nil, fmt.Errorf("no async-inline result set (mode \"async-inline\") among the data files")
	}
	tcp := latest(reports, "tcp")
	if tcp == nil {
		return nil, fmt.Errorf("no tcp result set (mode \"tcp\") among the data files")
	}
	httpRows, httpReps := httpByConns(reports)
	if len(httpRows) == 0 {
		return nil, fmt.Errorf("no http result set (mode \"http\") among the data files")
	}
	scaling, err := renderScaling(inline)
	if err != nil {
		return nil, err
	}
	peers := latest(reports, "peers")
	if peers == nil {
		return nil, fmt.Errorf("no peers result set (mode \"peers\", from bench/peers) among the data files")
	}
	peerCharts, err := renderPeers(peers)
	if err != nil {
		return nil, err
	}
	if real := latest(reports, "peers-real"); real != nil {
		peerCharts = append(peerCharts, chart{Name: "peers-real.svg", Sources: []string{real.File}, SVG: renderPeersReal(real)})
	}
	return append([]chart{
		{Name: "async-inline.svg", Sources: []string{inline.File}, SVG: renderAsyncInline(inline)},
		{Name: "hosting.svg", Sources: append([]string{tcp.File}, fileNames(httpReps)...), SVG: renderHosting(tcp, httpRows, httpReps)},
		{Name: "scaling.svg", Sources: []string{inline.File}, SVG: scaling},
	}, peerCharts...), nil
}

// httpByConns returns, for each connection count measured in an http result
// set, the row of the latest set that has it (ascending by connections), and
// the sets used.
func httpByConns(reports []*report) ([]row, []*report) {
	best := map[int]*report{}
	for _, r := range reports {
		if r.Mode != "http" {
			continue
		}
		for _, w := range r.workers() {
			b := best[w]
			if b == nil || r.Date > b.Date || (r.Date == b.Date && r.File > b.File) {
				best[w] = r
			}
		}
	}
	var conns []int
	for w := range best {
		conns = append(conns, w)
	}
	slices.Sort(conns)
	var rows []row
	var reps []*report
	for _, w := range conns {
		r := best[w]
		rows = append(rows, *r.find("http", w))
		if !slices.Contains(reps, r) {
			reps = append(reps, r)
		}
	}
	return rows, reps
}

func fileNames(reps []*report) []string {
	var ns []string
	for _, r := range reps {
		ns = append(ns, r.File)
	}
	return ns
}

// caption describes where the data come from: the day, Go version, CPU,
// cores and the files.
func caption(reps []*report) []string {
	uniq := func(f func(*report) string) string {
		var vs []string
		for _, r := range reps {
			if v := f(r); !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
		return strings.Join(vs, ", ")
	}
	day := uniq(func(r *report) string {
		if len(r.Date) >= 10 {
			return r.Date[:10]
		}
		return r.Date
	})
	cpu := uniq(func(r *report) string {
		if r.CPU == "" {
			return "unknown CPU"
		}
		return r.CPU
	})
	cores := uniq(func(r *report) string {
		return fmt.Sprintf("%d cores, GOMAXPROCS %d", r.Cores, r.GOMAXPROCS)
	})
	runs := uniq(func(r *report) string {
		n := 0
		if len(r.Rows) > 0 {
			n = len(r.Rows[0].Runs)
		}
		return fmt.Sprintf("%d runs of %s", n, r.Duration)
	})
	return []string{
		fmt.Sprintf("%s · %s · %s · %s · %s", day, uniq(func(r *report) string { return r.Go }), cpu, cores, runs),
		"data: docs/bench/" + strings.Join(fileNames(reps), ", "),
	}
}

// runsOf returns the number of runs per row of the reports ("3", or "1–3").
func runsOf(reps []*report) string {
	lo, hi := math.MaxInt, 0
	for _, r := range reps {
		for _, rw := range r.Rows {
			lo, hi = min(lo, len(rw.Runs)), max(hi, len(rw.Runs))
		}
	}
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// svg accumulates the markup of one chart.
type svg struct{ b bytes.Buffer }

func (s *svg) p(format string, a ...any) { fmt.Fprintf(&s.b, format, a...) }

// n formats a coordinate: one decimal at most, no trailing zeros.
func n(v float64) string {
	v = math.Round(v*10) / 10
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// esc escapes text for XML.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// text writes a text element; anchor is "start", "middle" or "end"; extra
// holds further attributes.
func (s *svg) text(x, y float64, anchor string, size float64, extra, t string) {
	s.p(`<text x="%s" y="%s" font-size="%s"`, n(x), n(y), n(size))
	if anchor != "start" {
		s.p(` text-anchor="%s"`, anchor)
	}
	if extra != "" {
		s.p(" %s", extra)
	}
	s.p(">%s</text>\n", esc(t))
}

func (s *svg) line(x1, y1, x2, y2 float64, stroke string, extra string) {
	s.p(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"`, n(x1), n(y1), n(x2), n(y2), stroke)
	if extra != "" {
		s.p(" %s", extra)
	}
	s.p("/>\n")
}

func (s *svg) rect(x, y, w, h float64, fill string) {
	s.p(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", n(x), n(y), n(w), n(h), fill)
}

// open writes the document start, the title and the caption, and returns the
// y below them.
func (s *svg) open(height float64, title string, cap []string) float64 {
	s.p(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	s.p(`<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="12" fill="#222">`+"\n",
		n(width), n(height), n(width), n(height), fontStack)
	s.p("<title>%s</title>\n", esc(title))
	s.rect(0, 0, width, height, "#ffffff")
	s.text(marginX, 26, "start", 16, `font-weight="bold"`, title)
	y := 44.0
	for _, c := range cap {
		s.text(marginX, y, "start", 11, `fill="#555"`, c)
		y += 15
	}
	return y
}

func (s *svg) close() []byte {
	s.p("</svg>\n")
	return s.b.Bytes()
}

// A legendKey is a color and what it stands for.
type legendKey struct{ color, name string }

// paletteKeys gives names the palette's colors in order.
func paletteKeys(names []string) []legendKey {
	keys := make([]legendKey, len(names))
	for i, name := range names {
		keys[i] = legendKey{palette[i%len(palette)], name}
	}
	return keys
}

// legend writes colored keys in a row at y and returns the y below it.
func (s *svg) legend(y float64, names []string) float64 {
	return s.legendKeys(y, paletteKeys(names))
}

func (s *svg) legendKeys(y float64, keys []legendKey) float64 {
	x := marginX
	for _, k := range keys {
		s.rect(x, y-9, 10, 10, k.color)
		s.text(x+14, y, "start", 12, "", k.name)
		x += 14 + float64(len([]rune(k.name)))*charW + 18
	}
	return y + 12
}

// An axis is a linear scale from 0 to max with tick steps.
type axis struct {
	max, step float64
	div       float64 // 1e6, 1e3 or 1: the unit of the tick labels
	unit      string  // " M", " k" or ""
	decimals  int
}

// niceAxis returns an axis from 0 covering v with about five ticks.
func niceAxis(v float64) axis {
	if v <= 0 {
		v = 1
	}
	raw := v / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	var step float64
	switch norm := raw / mag; {
	case norm <= 1:
		step = mag
	case norm <= 2:
		step = 2 * mag
	case norm <= 5:
		step = 5 * mag
	default:
		step = 10 * mag
	}
	a := axis{step: step, max: math.Ceil(v/step-1e-9) * step}
	switch {
	case a.max >= 1e6:
		a.div, a.unit = 1e6, " M"
	case a.max >= 1e3:
		a.div, a.unit = 1e3, " k"
	default:
		a.div = 1
	}
	if su := step / a.div; su < 1 {
		a.decimals = int(-math.Floor(math.Log10(su) + 1e-9))
	}
	return a
}

// ticks returns the tick values and their labels.
func (a axis) ticks() ([]float64, []string) {
	var vs []float64
	var ls []string
	k := int(math.Round(a.max / a.step))
	for i := 0; i <= k; i++ {
		v := float64(i) * a.step
		vs = append(vs, v)
		if i == 0 {
			ls = append(ls, "0")
			continue
		}
		ls = append(ls, strconv.FormatFloat(v/a.div, 'f', a.decimals, 64)+a.unit)
	}
	return vs, ls
}

// A hbar is one horizontal bar: a median and the min–max of its runs.
type hbar struct {
	value, lo, hi float64
	color         string
	label         string // the value label; formatRate(value) when empty
}

// A hgroup is a labelled group of bars.
type hgroup struct {
	label string
	bars  []hbar
}

// A hpanel is a set of groups sharing one x axis.
type hpanel struct {
	title  string
	groups []hgroup
	xLabel string
}

const (
	barH     = 16.0
	barGap   = 3.0
	groupGap = 12.0
	tickArea = 42.0 // below a panel's bars: tick labels and the axis label
)

func (p hpanel) height() float64 {
	h := 0.0
	if p.title != "" {
		h += 22
	}
	for i, g := range p.groups {
		if i > 0 {
			h += groupGap
		}
		h += float64(len(g.bars))*barH + float64(len(g.bars)-1)*barGap
	}
	return h + 8 + tickArea
}

// renderHBars renders a horizontal bar chart of one or more panels, each
// with its own axis.
func renderHBars(title string, cap []string, legend []string, yLabel string, panels []hpanel) []byte {
	var keys []legendKey
	if len(legend) > 1 {
		keys = paletteKeys(legend)
	}
	return renderHBarsKeyed(title, cap, keys, yLabel, panels)
}

// renderHBarsKeyed is renderHBars with a legend of given colors (none when
// legend is empty).
func renderHBarsKeyed(title string, cap []string, legend []legendKey, yLabel string, panels []hpanel) []byte {
	labelW, valueW := 0.0, 64.0
	for _, p := range panels {
		for _, g := range p.groups {
			labelW = max(labelW, float64(len([]rune(g.label)))*charW)
			for _, b := range g.bars {
				// value labels are 11px: about 0.92 of a 12px advance
				valueW = max(valueW, float64(len([]rune(b.text())))*charW*0.92+8)
			}
		}
	}
	x0 := marginX + 22 + labelW + 10 // rotated y label, labels, gap
	x1 := width - marginX - valueW   // room for value labels

	height := 44 + 15*float64(len(cap)) + 8
	if len(legend) > 0 {
		height += 22
	}
	for _, p := range panels {
		height += p.height() + 12
	}
	height += 4

	var s svg
	y := s.open(height, title, cap) + 8
	if len(legend) > 0 {
		y = s.legendKeys(y+6, legend) + 10
	}
	for _, p := range panels {
		top := y
		if p.title != "" {
			s.text(x0, y+14, "start", 13, `font-weight="bold"`, p.title)
			y += 22
		}
		plotTop := y
		hi := 0.0
		for _, g := range p.groups {
			for _, b := range g.bars {
				hi = max(hi, b.value, b.hi)
			}
		}
		ax := niceAxis(hi)
		scale := func(v float64) float64 { return x0 + v/ax.max*(x1-x0) }
		plotBottom := plotTop + p.height() - tickArea - (plotTop - top)
		// grid and ticks
		tv, tl := ax.ticks()
		for i, v := range tv {
			x := scale(v)
			s.line(x, plotTop-4, x, plotBottom, "#e3e3e3", "")
			s.text(x, plotBottom+14, "middle", 11, `fill="#555"`, tl[i])
		}
		s.line(x0, plotBottom, x1, plotBottom, "#888", "")
		s.text((x0+x1)/2, plotBottom+32, "middle", 12, "", p.xLabel)
		// bars
		by := plotTop
		for gi, g := range p.groups {
			if gi > 0 {
				by += groupGap
			}
			gh := float64(len(g.bars))*barH + float64(len(g.bars)-1)*barGap
			s.text(x0-8, by+gh/2+4, "end", 12, "", g.label)
			for _, b := range g.bars {
				s.rect(x0, by, scale(b.value)-x0, barH, b.color)
				end := scale(b.value)
				if b.hi > 0 {
					cy := by + barH/2
					s.line(scale(b.lo), cy, scale(b.hi), cy, "#222", "")
					s.line(scale(b.lo), cy-4, scale(b.lo), cy+4, "#222", "")
					s.line(scale(b.hi), cy-4, scale(b.hi), cy+4, "#222", "")
					end = max(end, scale(b.hi))
				}
				s.text(end+5, by+barH/2+4, "start", 11, "", b.text())
				by += barH + barGap
			}
			by -= barGap
		}
		// y axis label, rotated, centered on the bars
		cy := (plotTop + plotBottom) / 2
		s.p(`<text transform="translate(%s,%s) rotate(-90)" text-anchor="middle" font-size="12" fill="#555">%s</text>`+"\n",
			n(marginX+8), n(cy), esc(yLabel))
		y = top + p.height() + 12
	}
	return s.close()
}

// text is the bar's value label.
func (b hbar) text() string {
	if b.label != "" {
		return b.label
	}
	return formatRate(b.value)
}

// rowBar returns the bar of one row: its median and the min–max of its runs.
func rowBar(rw *row, color string) hbar {
	return hbar{value: rw.MedianRPS, lo: rw.MinRPS, hi: rw.MaxRPS, color: color}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// renderAsyncInline draws the async-inline set: each row's median calls/s at
// each worker count, with the min–max of the runs.
func renderAsyncInline(r *report) []byte {
	ws := r.workers()
	var legend []string
	for _, w := range ws {
		legend = append(legend, plural(w, "worker", "workers"))
	}
	var groups []hgroup
	for _, name := range r.names() {
		g := hgroup{label: name}
		for i, w := range ws {
			if rw := r.find(name, w); rw != nil {
				g.bars = append(g.bars, rowBar(rw, palette[i%len(palette)]))
			}
		}
		groups = append(groups, g)
	}
	reps := []*report{r}
	p := hpanel{groups: groups, xLabel: fmt.Sprintf("calls/s, all workers together (median of %s runs; whiskers: min–max)", runsOf(reps))}
	return renderHBars("ProcessAsync with inline methods: calls/s by row and workers",
		caption(reps), legend, "row (rpcbench async -shape inline)", []hpanel{p})
}

// renderHosting draws the tcp set's rows and the http rows by connections.
func renderHosting(tcp *report, httpRows []row, httpReps []*report) []byte {
	var tg []hgroup
	for _, name := range tcp.names() {
		for _, w := range tcp.workers() {
			rw := tcp.find(name, w)
			if rw == nil {
				continue
			}
			label := name
			if name == "process" {
				label = "process (no network)"
			}
			if len(tcp.workers()) > 1 {
				label += fmt.Sprintf(", %s", plural(w, "conn", "conns"))
			}
			tg = append(tg, hgroup{label: label, bars: []hbar{rowBar(rw, palette[0])}})
		}
	}
	var hg []hgroup
	for i := range httpRows {
		rw := &httpRows[i]
		hg = append(hg, hgroup{label: "http, " + plural(rw.Workers, "conn", "conns"), bars: []hbar{rowBar(rw, palette[2])}})
	}
	reps := append([]*report{tcp}, httpReps...)
	panels := []hpanel{
		{title: "TCP, newline framing, pipelined (rpcbench tcp)", groups: tg,
			xLabel: fmt.Sprintf("requests/s (median of %s runs; whiskers: min–max)", runsOf([]*report{tcp}))},
		{title: "HTTP/1.1 keep-alive (rpcbench http)", groups: hg,
			xLabel: fmt.Sprintf("requests/s (median of %s runs; whiskers: min–max)", runsOf(httpReps))},
	}
	return renderHBars("Hosting: requests/s over loopback TCP and HTTP", caption(reps), nil,
		"transport row", panels)
}

// scalingRows are the rows of the scaling chart, with their legend text.
var scalingRows = []struct{ name, what string }{
	{"calc-mix/Process", "Process"},
	{"calc-mix", "ProcessAsync, inline"},
}

// renderScaling draws calls/s by worker count for the calc-mix rows of the
// async-inline set as grouped vertical bars, with the linear-scaling mark
// (the one-worker rate times the workers) over each bar beyond the first
// worker count.
func renderScaling(r *report) ([]byte, error) {
	ws := r.workers()
	type series struct {
		name, what string
		rows       []*row // by ws index; nil where missing
	}
	var ss []series
	for _, sr := range scalingRows {
		se := series{name: sr.name, what: sr.what}
		found := false
		for _, w := range ws {
			rw := r.find(sr.name, w)
			se.rows = append(se.rows, rw)
			found = found || rw != nil
		}
		if found {
			ss = append(ss, se)
		}
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("%s has no calc-mix rows for the scaling chart", r.File)
	}

	const height = 440.0
	var s svg
	y := s.open(height, "Scaling: calc-mix calls/s by workers", caption([]*report{r}))
	var legend []string
	for _, se := range ss {
		text := se.name + " (" + se.what + ")"
		first, last := se.rows[0], se.rows[len(se.rows)-1]
		if len(ws) > 1 && first != nil && last != nil && first.MedianRPS > 0 {
			text += fmt.Sprintf(": %.2f× at %d workers", last.MedianRPS/first.MedianRPS, ws[len(ws)-1])
		}
		legend = append(legend, text)
	}
	y = s.legend(y+14, legend) + 8
	s.line(marginX, y-4, marginX+24, y-4, "#222", `stroke-dasharray="4 3"`)
	s.text(marginX+30, y, "start", 12, "", fmt.Sprintf("linear scaling: the rate at %s times the workers", plural(ws[0], "worker", "workers")))
	y += 10

	x0, x1 := 88.0, width-marginX-16
	top, bottom := y+22, height-52
	hi := 0.0
	for _, se := range ss {
		for i, rw := range se.rows {
			if rw == nil {
				continue
			}
			hi = max(hi, rw.MedianRPS, rw.MaxRPS)
			if first := se.rows[0]; first != nil && i > 0 {
				hi = max(hi, first.MedianRPS*float64(ws[i])/float64(ws[0]))
			}
		}
	}
	ax := niceAxis(hi)
	scale := func(v float64) float64 { return bottom - v/ax.max*(bottom-top) }
	tv, tl := ax.ticks()
	for i, v := range tv {
		yy := scale(v)
		s.line(x0, yy, x1, yy, "#e3e3e3", "")
		s.text(x0-6, yy+4, "end", 11, `fill="#555"`, tl[i])
	}
	s.line(x0, bottom, x1, bottom, "#888", "")
	s.p(`<text transform="translate(%s,%s) rotate(-90)" text-anchor="middle" font-size="12" fill="#555">%s</text>`+"\n",
		n(marginX+8), n((top+bottom)/2), esc(fmt.Sprintf("calls/s, all workers together (median of %s runs)", runsOf([]*report{r}))))
	s.text((x0+x1)/2, height-14, "middle", 12, "", "workers (goroutines calling at once; whiskers: min–max of the runs)")

	gw := (x1 - x0) / float64(len(ws))
	bw := min(110, gw*0.7/float64(len(ss)))
	for wi, w := range ws {
		gx := x0 + gw*float64(wi) + (gw-bw*float64(len(ss)))/2
		s.text(x0+gw*(float64(wi)+0.5), bottom+16, "middle", 12, "", plural(w, "worker", "workers"))
		for si, se := range ss {
			rw := se.rows[wi]
			if rw == nil {
				continue
			}
			bx := gx + bw*float64(si)
			bt := scale(rw.MedianRPS)
			s.rect(bx+2, bt, bw-4, bottom-bt, palette[si%len(palette)])
			labelY := bt
			if rw.MaxRPS > 0 {
				cx := bx + bw/2
				s.line(cx, scale(rw.MinRPS), cx, scale(rw.MaxRPS), "#222", "")
				s.line(cx-4, scale(rw.MinRPS), cx+4, scale(rw.MinRPS), "#222", "")
				s.line(cx-4, scale(rw.MaxRPS), cx+4, scale(rw.MaxRPS), "#222", "")
				labelY = min(labelY, scale(rw.MaxRPS))
			}
			if first := se.rows[0]; wi > 0 && first != nil {
				ly := scale(first.MedianRPS * float64(w) / float64(ws[0]))
				s.line(bx, ly, bx+bw, ly, "#222", `stroke-dasharray="4 3"`)
				labelY = min(labelY, ly)
			}
			s.text(bx+bw/2, labelY-6, "middle", 11, "", formatRate(rw.MedianRPS))
		}
	}
	return s.close(), nil
}
