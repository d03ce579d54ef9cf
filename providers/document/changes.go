package document

import (
	"errors"
	"fmt"
	"strings"
)

// Change is one edit of a text as an editor reports it: Text replaces
// Range, or the whole text when Range is nil.
type Change struct {
	Range *Range
	Text  string
}

// ApplyChanges applies changes to text in order, reading each range in
// encoding enc against the text as the preceding changes left it, as LSP
// prescribes. A position beyond the end of its line clamps to the line's
// end; the start of the line after the last one is the end of the text
// (some clients address the end of a text that ends in a newline that
// way); any other position past the last line is an error, and so is a
// range that ends before it starts.
func ApplyChanges(text string, changes []Change, enc Encoding) (string, error) {
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		lines := NewLines([]byte(text))
		start, err := changeOffset(lines, len(text), c.Range.Start, enc)
		if err != nil {
			return "", err
		}
		end, err := changeOffset(lines, len(text), c.Range.End, enc)
		if err != nil {
			return "", err
		}
		if end < start {
			return "", errors.New("change range ends before it starts")
		}
		var b strings.Builder
		b.Grow(len(text) - (end - start) + len(c.Text))
		b.WriteString(text[:start])
		b.WriteString(c.Text)
		b.WriteString(text[end:])
		text = b.String()
	}
	return text, nil
}

// changeOffset is the byte offset of p in a text of n bytes split into
// lines, accepting the start of the line after the last as its end.
func changeOffset(lines *Lines, n int, p Position, enc Encoding) (int, error) {
	off, err := lines.Offset(p, enc)
	if err == nil {
		return off, nil
	}
	if p.Line == lines.Count() && p.Character == 0 {
		return n, nil
	}
	return 0, fmt.Errorf("position %d:%d is outside the document", p.Line, p.Character)
}
