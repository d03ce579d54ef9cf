package present

import (
	"strings"
	"unicode/utf8"
)

// PlainText renders the markdown this package writes (bold, code spans,
// escapes and pipe tables) as plain text, for clients that cannot show
// markdown: markup goes, escaped characters stay, and tables become
// aligned columns.
func PlainText(md string) string {
	lines := strings.Split(md, "\n")
	var out []string
	for i := 0; i < len(lines); {
		if !isTableRow(lines[i]) {
			out = append(out, plainInline(lines[i]))
			i++
			continue
		}
		var rows [][]string
		for ; i < len(lines) && isTableRow(lines[i]); i++ {
			if cells := tableCells(lines[i]); !isDelimiterRow(cells) {
				rows = append(rows, cells)
			}
		}
		out = append(out, alignRows(rows)...)
	}
	return strings.Join(out, "\n")
}

func isTableRow(line string) bool {
	return strings.HasPrefix(line, "|") && strings.HasSuffix(line, "|") && len(line) > 1
}

// tableCells splits a table row at its unescaped pipes and renders each
// cell as plain text.
func tableCells(line string) []string {
	inner := line[1 : len(line)-1]
	var cells []string
	start := 0
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '\\':
			i++ // an escaped character, a pipe among them
		case '|':
			cells = append(cells, plainInline(strings.TrimSpace(inner[start:i])))
			start = i + 1
		}
	}
	return append(cells, plainInline(strings.TrimSpace(inner[start:])))
}

func isDelimiterRow(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || c == "" {
			return false
		}
	}
	return true
}

// alignRows pads every column but the last to its widest cell.
func alignRows(rows [][]string) []string {
	var width []int
	for _, r := range rows {
		for j, c := range r {
			if j >= len(width) {
				width = append(width, 0)
			}
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		var b strings.Builder
		for j, c := range r {
			b.WriteString(c)
			if j < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[j]-utf8.RuneCountInString(c)+2))
			}
		}
		out[i] = b.String()
	}
	return out
}

// plainInline drops bold markers and code-span backticks and undoes the
// escapes of escape.
func plainInline(s string) string {
	s = strings.NewReplacer("&lt;", "<", "&gt;", ">").Replace(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '*' || c == '`':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
