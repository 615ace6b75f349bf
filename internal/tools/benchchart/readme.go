package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// A figure ties one README table cell to the data point it quotes.
type figure struct {
	Section   string // the README section: the text of its "## " heading
	Row       string // the table row's first cell, exactly
	KeyColumn string // where rows share a first cell: a column's header...
	KeyValue  string // ...and the row's value in it
	Column    string // header of the cell compared
	File      string // result file, in the data directory
	Name      string // row name in the result file
	Workers   []int  // one per " / "-separated part of the cell
}

// describe names the figure's README row for messages.
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
	line  int // 1-based line number in the README
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

// sectionTables returns the tables of the README section whose heading is
// "## name", or false when there is no such section.
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

// checkFigures compares each figure's README cell with its data point and
// returns one message per mismatch or figure it cannot find.
func checkFigures(readmeName, text string, figs []figure, dataDir string, byFile map[string]*report) []string {
	var problems []string
	for _, f := range figs {
		if msg := checkFigure(readmeName, text, f, dataDir, byFile); msg != "" {
			problems = append(problems, msg)
		}
	}
	return problems
}

func checkFigure(readmeName, text string, f figure, dataDir string, byFile map[string]*report) string {
	dataPath := filepath.Join(dataDir, f.File)
	r := byFile[f.File]
	if r == nil {
		return fmt.Sprintf("%s: %s: data file %s is missing or not a result set", readmeName, f.describe(), dataPath)
	}
	var want []string
	for _, w := range f.Workers {
		rw := r.find(f.Name, w)
		if rw == nil {
			return fmt.Sprintf("%s: %s: %s has no row %q at %d workers", readmeName, f.describe(), dataPath, f.Name, w)
		}
		want = append(want, formatRate(rw.MedianRPS))
	}
	expected := strings.Join(want, " / ")
	ws := make([]string, len(f.Workers))
	for i, w := range f.Workers {
		ws[i] = strconv.Itoa(w)
	}
	source := fmt.Sprintf("%s (median_rps of %q at %s workers)", dataPath, f.Name, strings.Join(ws, " / "))

	tables, ok := sectionTables(text, f.Section)
	if !ok {
		return fmt.Sprintf("%s: no section \"## %s\" for %s; expected %s %q from %s",
			readmeName, f.Section, f.describe(), f.Column, expected, source)
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
			readmeName, f.describe(), f.Column, f.Column, expected, source)
	case 1:
	default:
		return fmt.Sprintf("%s: %s matches %d table lines (%v); make the mapping specific",
			readmeName, f.describe(), len(matches), lines)
	}
	if matches[0] != expected {
		return fmt.Sprintf("%s:%d: %s, %s: README says %q, expected %q from %s",
			readmeName, lines[0], f.describe(), f.Column, matches[0], expected, source)
	}
	return ""
}
