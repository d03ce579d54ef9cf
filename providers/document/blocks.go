package document

import (
	"bytes"
	"strings"
)

// scanBlocks finds fences, headings and tables from line first onwards.
func (d *Doc) scanBlocks(first int) {
	l := d.Lines
	n := l.Count()
	inComment := false
	for i := first; i < n; i++ {
		line := l.Line(i)
		if inComment {
			if bytes.Contains(line, []byte("-->")) {
				inComment = false
			}
			continue
		}
		trimmed := bytes.TrimLeft(line, " \t")
		indent := len(line) - len(trimmed)
		if ch, width, info, ok := fenceOpen(trimmed); ok {
			i = d.scanFence(i, ch, width, info)
			continue
		}
		if bytes.HasPrefix(trimmed, []byte("<!--")) && !bytes.Contains(trimmed[4:], []byte("-->")) {
			inComment = true
			continue
		}
		if indent <= 3 && len(trimmed) > 0 && trimmed[0] == '#' {
			if h, ok := parseHeading(line, l.Start(i), i); ok {
				d.Headings = append(d.Headings, h)
				continue
			}
		}
		if indent <= 3 && bytes.IndexByte(trimmed, '|') >= 0 && i+1 < n && isDelimiterRow(l.Line(i+1)) {
			i = d.scanTable(i)
		}
	}
}

// fenceOpen reports whether line (without leading space) opens a fenced
// code block, and returns the fence character, its run length and the info
// string.
func fenceOpen(line []byte) (ch byte, width int, info string, ok bool) {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return 0, 0, "", false
	}
	ch = line[0]
	for width < len(line) && line[width] == ch {
		width++
	}
	if width < 3 {
		return 0, 0, "", false
	}
	rest := strings.TrimSpace(string(line[width:]))
	if ch == '`' && strings.IndexByte(rest, '`') >= 0 {
		return 0, 0, "", false // an inline code span, not a fence
	}
	return ch, width, rest, true
}

// scanFence records the fenced block opening at line start and returns the
// line of its closing fence (or the last line when unclosed).
func (d *Doc) scanFence(start int, ch byte, width int, info string) int {
	l := d.Lines
	n := l.Count()
	f := Fence{Info: info, Span: Span{Start: l.Start(start)}, Inner: Span{Start: l.Start(start + 1)}}
	end := n - 1
	closed := false
	for j := start + 1; j < n; j++ {
		t := bytes.TrimSpace(l.Line(j))
		if len(t) >= width && t[0] == ch {
			k := 0
			for k < len(t) && t[k] == ch {
				k++
			}
			if k == len(t) && k >= width {
				end, closed = j, true
				break
			}
		}
	}
	if closed {
		f.Inner.End = l.Start(end)
		f.Span.End = l.End(end)
	} else {
		f.Inner.End = len(d.Text)
		f.Span.End = len(d.Text)
	}
	if f.Inner.Start > f.Inner.End {
		f.Inner.Start = f.Inner.End
	}
	d.Fences = append(d.Fences, f)
	return end
}

// parseHeading parses an ATX heading line that starts at byte offset off.
func parseHeading(line []byte, off, lineNo int) (Heading, bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	level := 0
	for i+level < len(line) && line[i+level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return Heading{}, false
	}
	j := i + level
	if j < len(line) && line[j] != ' ' && line[j] != '\t' {
		return Heading{}, false // "#hashtag" is not a heading
	}
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	k := len(line)
	for k > j && (line[k-1] == ' ' || line[k-1] == '\t') {
		k--
	}
	// A closing sequence of '#'s preceded by a space is not part of the text.
	c := k
	for c > j && line[c-1] == '#' {
		c--
	}
	if c < k && (c == j || line[c-1] == ' ' || line[c-1] == '\t') {
		k = c
		for k > j && (line[k-1] == ' ' || line[k-1] == '\t') {
			k--
		}
	}
	return Heading{
		Level:    level,
		Text:     string(line[j:k]),
		Line:     lineNo,
		Span:     Span{off, off + len(line)},
		TextSpan: Span{off + j, off + k},
	}, true
}
