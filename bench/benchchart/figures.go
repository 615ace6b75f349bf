package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A figure ties one table cell of the performance document to the data point
// it quotes.
type figure struct {
	Section   string // the document's section: the text of its "## " heading
	Row       string // the table row's first cell, exactly
	KeyColumn string // where rows share a first cell: a column's header...
	KeyValue  string // ...and the row's value in it
	Column    string // header of the cell compared
	File      string // result file, in the data directory
	Name      string // row name in the result file
	Workers   []int  // one per " / "-separated part of the cell
	// Value is what the cell quotes of the row: "" its median_rps as
	// formatRate writes it, "ns" its ns_per_call as a whole number, "over"
	// its ns_per_call over that of the row Base as "6.3×".
	Value string
	Base  string
}

// describe names the figure's table row for messages.
func (f figure) describe() string {
	s := fmt.Sprintf("%s table, row %q", f.Section, f.Row)
	if f.KeyColumn != "" {
		s += fmt.Sprintf(" with %s %s", f.KeyColumn, f.KeyValue)
	}
	return s
}

// A mdTable is a Markdown table: its header cells and rows of cells.
type mdTable struct {
	header []string
	rows   []mdRow
}

type mdRow struct {
	line  int // 1-based line number in the document
	cells []string
}

// column returns the index of the header cell named h, or -1.
func (t *mdTable) column(h string) int {
	for i, c := range t.header {
		if c == h {
			return i
		}
	}
	return -1
}

// splitRow splits a Markdown table line into its trimmed cells.
func splitRow(line string) []string {
	s := strings.TrimSpace(line)
	s = strings.TrimPrefix(s, "|")
	s = strings.TrimSuffix(s, "|")
	cells := strings.Split(s, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// isDelimiter reports whether line is a table's header delimiter (|---|--:|).
func isDelimiter(line string) bool {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "|") {
		return false
	}
	for _, c := range splitRow(s) {
		if strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// sectionTables returns the tables of the section of text whose heading is
// "## name" (its "###" subsections included), or false when there is no such
// section.
func sectionTables(text, name string) ([]*mdTable, bool) {
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "## "+name {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return nil, false
	}
	var tables []*mdTable
	var cur *mdTable
	for i := start; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "## ") {
			break
		}
		if !strings.HasPrefix(l, "|") {
			cur = nil
			continue
		}
		switch {
		case cur == nil && i+1 < len(lines) && isDelimiter(lines[i+1]):
			cur = &mdTable{header: splitRow(l)}
			tables = append(tables, cur)
			i++ // the delimiter
		case cur != nil:
			cur.rows = append(cur.rows, mdRow{line: i + 1, cells: splitRow(l)})
		}
	}
	return tables, true
}

// checkFigures compares each figure's cell in text, the document docName,
// with its data point and returns one message per mismatch or figure it
// cannot find.
func checkFigures(docName, text string, figs []figure, dataDir string, byFile map[string]*report) []string {
	var problems []string
	for _, f := range figs {
		if msg := checkFigure(docName, text, f, dataDir, byFile); msg != "" {
			problems = append(problems, msg)
		}
	}
	return problems
}

func checkFigure(docName, text string, f figure, dataDir string, byFile map[string]*report) string {
	dataPath := filepath.Join(dataDir, f.File)
	r := byFile[f.File]
	if r == nil {
		return fmt.Sprintf("%s: %s: data file %s is missing or not a result set", docName, f.describe(), dataPath)
	}
	var want []string
	for _, w := range f.Workers {
		rw := r.find(f.Name, w)
		if rw == nil {
			return fmt.Sprintf("%s: %s: %s has no row %q at %d workers", docName, f.describe(), dataPath, f.Name, w)
		}
		switch f.Value {
		case "":
			want = append(want, formatRate(rw.MedianRPS))
		case "ns":
			want = append(want, fmt.Sprintf("%.0f", rw.NsPerCall))
		case "over":
			base := r.find(f.Base, w)
			if base == nil || base.NsPerCall <= 0 {
				return fmt.Sprintf("%s: %s: %s has no row %q at %d workers with ns_per_call", docName, f.describe(), dataPath, f.Base, w)
			}
			want = append(want, fmt.Sprintf("%.1f×", rw.NsPerCall/base.NsPerCall))
		default:
			return fmt.Sprintf("%s: %s: unknown value %q", docName, f.describe(), f.Value)
		}
	}
	expected := strings.Join(want, " / ")
	ws := make([]string, len(f.Workers))
	for i, w := range f.Workers {
		ws[i] = strconv.Itoa(w)
	}
	quoted := "median_rps"
	switch f.Value {
	case "ns":
		quoted = "ns_per_call"
	case "over":
		quoted = fmt.Sprintf("ns_per_call over that of %q", f.Base)
	}
	source := fmt.Sprintf("%s (%s of %q at %s workers)", dataPath, quoted, f.Name, strings.Join(ws, " / "))

	tables, ok := sectionTables(text, f.Section)
	if !ok {
		return fmt.Sprintf("%s: no section \"## %s\" for %s; expected %s %q from %s",
			docName, f.Section, f.describe(), f.Column, expected, source)
	}
	var matches []string
	var lines []int
	for _, t := range tables {
		col := t.column(f.Column)
		key := -1
		if f.KeyColumn != "" {
			key = t.column(f.KeyColumn)
			if key < 0 {
				continue
			}
		}
		if col < 0 {
			continue
		}
		for _, rw := range t.rows {
			if len(rw.cells) == 0 || rw.cells[0] != f.Row {
				continue
			}
			if key >= 0 && (key >= len(rw.cells) || rw.cells[key] != f.KeyValue) {
				continue
			}
			cell := ""
			if col < len(rw.cells) {
				cell = rw.cells[col]
			}
			matches = append(matches, cell)
			lines = append(lines, rw.line)
		}
	}
	switch len(matches) {
	case 0:
		return fmt.Sprintf("%s: %s with a %q column not found; expected %s %q from %s",
			docName, f.describe(), f.Column, f.Column, expected, source)
	case 1:
	default:
		return fmt.Sprintf("%s: %s matches %d table lines (%v); make the mapping specific",
			docName, f.describe(), len(matches), lines)
	}
	if matches[0] != expected {
		return fmt.Sprintf("%s:%d: %s, %s: has %q, expected %q from %s",
			docName, lines[0], f.describe(), f.Column, matches[0], expected, source)
	}
	return ""
}

// The sections that quote the latest peers set: in the performance document,
// its headline table and the full peer table; in the README, the headline
// table (and the peer table, checked too if the README has one).
const (
	perfPeerSection   = "Against the peers"
	readmePeerSection = "Performance"
)

// checkPeerTables compares the headline table and the full peer table of the
// section "## section" of text, the document docName, with r, the latest
// peers set, cell by cell, both ways: a scenario or peer of the set missing
// from a table is a problem, and so is a table row or column the set does
// not have. The section must have a headline table and name the set's file;
// it must have a peer table when needPeerTable is set, and a peer table it
// has is checked either way.
//
// The headline table's header starts with "scenario" and has the headers of
// headlineColumns; its rows start with a scenario's Title. The peer table's
// header starts with "peer" followed by scenario Titles; its rows start with
// a row's peer name, and each cell is peerCell's text, or empty where the
// peer has no row in that scenario.
func checkPeerTables(docName, text, section string, needPeerTable bool, r *report, dataDir string) []string {
	var problems []string
	add := func(format string, a ...any) {
		problems = append(problems, docName+": "+fmt.Sprintf(format, a...))
	}
	addAt := func(line int, format string, a ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: ", docName, line)+fmt.Sprintf(format, a...))
	}
	dataPath := filepath.Join(dataDir, r.File)
	tables, ok := sectionTables(text, section)
	if !ok {
		add("no section \"## %s\" for the peer tables from %s", section, dataPath)
		return problems
	}
	if !strings.Contains(sectionText(text, section), "docs/bench/"+r.File) {
		add("section %q does not name the peers set it quotes, docs/bench/%s", section, r.File)
	}
	var headline, peerTable *mdTable
	for _, t := range tables {
		switch t.header[0] {
		case "scenario":
			headline = t
		case "peer":
			peerTable = t
		}
	}

	byTitle := map[string]scenario{}
	var measured []scenario // the scenarios r has this library's row in
	for _, sc := range scenarios {
		byTitle[sc.Title] = sc
		if r.self(sc) != nil {
			measured = append(measured, sc)
		}
	}

	if headline == nil {
		add("section %q has no headline table (header starting with \"scenario\"); expected from %s", section, dataPath)
	} else {
		for _, c := range headlineColumns {
			if headline.column(c.Header) < 0 {
				add("headline table has no %q column", c.Header)
			}
		}
		seen := map[string]bool{}
		for _, rw := range headline.rows {
			sc, ok := byTitle[rw.cells[0]]
			self := r.self(sc)
			if !ok || self == nil {
				addAt(rw.line, "headline table row %q is no scenario of %s", rw.cells[0], dataPath)
				continue
			}
			seen[sc.Title] = true
			for _, c := range headlineColumns {
				col := headline.column(c.Header)
				if col < 0 {
					continue
				}
				got := ""
				if col < len(rw.cells) {
					got = rw.cells[col]
				}
				if want := c.Cell(r, sc, self); got != want {
					addAt(rw.line, "headline table, %s, %s: has %q, expected %q from %s",
						sc.Title, c.Header, got, want, dataPath)
				}
			}
		}
		for _, sc := range measured {
			if !seen[sc.Title] {
				add("headline table has no row %q; %s measures it", sc.Title, dataPath)
			}
		}
	}

	if peerTable == nil {
		if needPeerTable {
			add("section %q has no peer table (header starting with \"peer\"); expected from %s", section, dataPath)
		}
		return problems
	}
	var cols []scenario // by peer table column; Title "" for unknown ones
	for _, h := range peerTable.header[1:] {
		sc, ok := byTitle[h]
		if !ok {
			add("peer table column %q is no scenario (want one of the titles of %s's scenarios)", h, dataPath)
		}
		cols = append(cols, sc)
	}
	for _, sc := range measured {
		if peerTable.column(sc.Title) < 0 {
			add("peer table has no column %q; %s measures it", sc.Title, dataPath)
		}
	}
	var peerNames []string
	for _, rw := range r.Rows {
		if rw.Peer != "" && !slices.Contains(peerNames, rw.Peer) {
			peerNames = append(peerNames, rw.Peer)
		}
	}
	seen := map[string]bool{}
	for _, rw := range peerTable.rows {
		name := rw.cells[0]
		if !slices.Contains(peerNames, name) {
			addAt(rw.line, "peer table row %q is no peer of %s", name, dataPath)
			continue
		}
		seen[name] = true
		for i, sc := range cols {
			if sc.Title == "" {
				continue
			}
			want := ""
			self := r.self(sc)
			if prow := r.peerRow(sc, func(x *row) bool { return x.Peer == name }); prow != nil && self != nil {
				want = peerCell(self, prow)
			}
			got := ""
			if i+1 < len(rw.cells) {
				got = rw.cells[i+1]
			}
			if got != want {
				addAt(rw.line, "peer table, %s, %s: has %q, expected %q from %s",
					name, sc.Title, got, want, dataPath)
			}
		}
	}
	for _, name := range peerNames {
		if !seen[name] {
			add("peer table has no row %q; %s measures it", name, dataPath)
		}
	}
	return problems
}

// sectionText returns the text of the "## name" section, without its heading.
func sectionText(text, name string) string {
	_, rest, ok := strings.Cut(text, "\n## "+name+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}
