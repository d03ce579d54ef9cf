package document

import "bytes"

// Table is a GitHub-flavoured pipe table.
type Table struct {
	// Line is the zero-based line of the header row.
	Line int
	// Span covers the table from the header row to its last row.
	Span Span
	// Header holds the header cells.
	Header []Cell
	// Rows holds the body rows' cells.
	Rows [][]Cell
}

// Cell is one table cell.
type Cell struct {
	// Text is the cell's content, trimmed.
	Text string
	// Span covers Text in the document.
	Span Span
}

// isDelimiterRow reports whether line is a table delimiter row such as
// "|---|:---:|".
func isDelimiterRow(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || bytes.IndexByte(t, '-') < 0 {
		return false
	}
	cells := 0
	for _, part := range bytes.Split(bytes.Trim(t, "|"), []byte("|")) {
		p := bytes.TrimSpace(part)
		p = bytes.TrimPrefix(p, []byte(":"))
		p = bytes.TrimSuffix(p, []byte(":"))
		if len(p) == 0 || len(bytes.Trim(p, "-")) != 0 {
			return false
		}
		cells++
	}
	return cells > 0
}

// scanTable records the table whose header row is at line start and
// returns its last line.
func (d *Doc) scanTable(start int) int {
	l := d.Lines
	t := Table{Line: start, Header: splitRow(l.Line(start), l.Start(start))}
	t.Span.Start = l.Start(start)
	last := start + 1
	for j := start + 2; j < l.Count(); j++ {
		line := l.Line(j)
		if len(bytes.TrimSpace(line)) == 0 || bytes.IndexByte(line, '|') < 0 {
			break
		}
		if _, ok := d.InFence(l.Start(j)); ok {
			break
		}
		t.Rows = append(t.Rows, splitRow(line, l.Start(j)))
		last = j
	}
	t.Span.End = l.End(last)
	d.Tables = append(d.Tables, t)
	return last
}

// splitRow splits a table row at unescaped pipes. Pipes inside code spans
// split cells too, as in GitHub's renderer, unless escaped.
func splitRow(line []byte, off int) []Cell {
	start, end := 0, len(line)
	for start < end && (line[start] == ' ' || line[start] == '\t') {
		start++
	}
	for end > start && (line[end-1] == ' ' || line[end-1] == '\t') {
		end--
	}
	if start < end && line[start] == '|' {
		start++
	}
	if end > start && line[end-1] == '|' && (end-2 < start || line[end-2] != '\\') {
		end--
	}
	var cells []Cell
	cellStart := start
	for i := start; i <= end; i++ {
		if i < end && (line[i] != '|' || (i > 0 && line[i-1] == '\\')) {
			continue
		}
		a, b := cellStart, i
		for a < b && (line[a] == ' ' || line[a] == '\t') {
			a++
		}
		for b > a && (line[b-1] == ' ' || line[b-1] == '\t') {
			b--
		}
		cells = append(cells, Cell{Text: string(line[a:b]), Span: Span{off + a, off + b}})
		cellStart = i + 1
	}
	return cells
}

// CodeSpans returns the spans of the contents of inline code spans
// (`like this`) in text[s.Start:s.End], matching backtick runs of equal
// length as CommonMark does. Offsets are absolute.
func CodeSpans(text []byte, s Span) []Span {
	var out []Span
	i := s.Start
	for i < s.End {
		if text[i] != '`' || (i > s.Start && text[i-1] == '\\') {
			i++
			continue
		}
		run := 0
		for i+run < s.End && text[i+run] == '`' {
			run++
		}
		open := i + run
		j := open
		found := false
		for j < s.End {
			if text[j] != '`' {
				j++
				continue
			}
			k := 0
			for j+k < s.End && text[j+k] == '`' {
				k++
			}
			if k == run {
				out = append(out, Span{open, j})
				i = j + k
				found = true
				break
			}
			j += k
		}
		if !found {
			i = open
		}
	}
	return out
}

// BodyCodeSpans returns the code spans of d's body outside fences. A code
// span may run over a line break but not past a paragraph's end, so the
// backticks are paired paragraph by paragraph.
func (d *Doc) BodyCodeSpans() []Span {
	var out []Span
	para := -1
	flush := func(end int) {
		if para >= 0 {
			out = append(out, CodeSpans(d.Text, Span{Start: para, End: end})...)
		}
		para = -1
	}
	for n := d.Lines.LineOf(d.Body.Start); n < d.Lines.Count(); n++ {
		start := d.Lines.Start(n)
		if _, in := d.InFence(start); in || len(bytes.TrimSpace(d.Lines.Line(n))) == 0 {
			flush(start)
			continue
		}
		if para < 0 {
			para = start
		}
	}
	flush(len(d.Text))
	return out
}
