package history

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/providers/numfmt"
)

// defaultFormat is what FormatOptions{} normalizes to.
var defaultFormat = FormatOptions{defaultMaxOutputLines, defaultHeadLines, defaultTailLines}

// Formatter defaults.
const (
	defaultMaxOutputLines = 20
	defaultHeadLines      = 10
	defaultTailLines      = 10
	// maxLineBytes is the longest line a block keeps whole; a longer line
	// (minified output, a base64 blob) keeps its start and says how much
	// was cut.
	maxLineBytes = 2000
)

// A Formatter renders one message as a block of prompt text.
type Formatter interface {
	// Format returns the block of m; it ends with a newline.
	Format(m Message) string
}

// FormatOptions configure the line formatter.
type FormatOptions struct {
	// MaxOutputLines is the most lines a message keeps whole.
	MaxOutputLines int `json:"maxOutputLines"`
	// HeadLines and TailLines are the lines kept at the start and the end
	// of a longer message.
	HeadLines int `json:"headLines"`
	TailLines int `json:"tailLines"`
}

// normalize fills in defaults and checks the options: all zero means the
// defaults (20, 10, 10); a maximum alone splits it between head and tail;
// negative numbers, or a head and tail that together exceed the maximum, are
// errors.
func (o FormatOptions) normalize() (FormatOptions, error) {
	switch {
	case o.MaxOutputLines < 0 || o.HeadLines < 0 || o.TailLines < 0:
		return o, fmt.Errorf("%w: formatter: maxOutputLines %d, headLines %d and tailLines %d must not be negative",
			ErrInvalid, o.MaxOutputLines, o.HeadLines, o.TailLines)
	case o == FormatOptions{}:
		return defaultFormat, nil
	case o.MaxOutputLines == 0:
		o.MaxOutputLines = max(defaultMaxOutputLines, o.HeadLines+o.TailLines)
	}
	if o.HeadLines == 0 && o.TailLines == 0 {
		o.HeadLines = o.MaxOutputLines / 2
		o.TailLines = o.MaxOutputLines - o.HeadLines
	}
	if o.HeadLines+o.TailLines > o.MaxOutputLines {
		return o, fmt.Errorf("%w: formatter: headLines %d + tailLines %d exceed maxOutputLines %d",
			ErrInvalid, o.HeadLines, o.TailLines, o.MaxOutputLines)
	}
	return o, nil
}

// lineFormatter is the default Formatter: a header line naming the role and
// the command, then the content without blank lines or carriage returns;
// content of more than MaxOutputLines lines keeps HeadLines and TailLines
// with "... (N lines omitted) ..." between them.
type lineFormatter struct {
	opts FormatOptions
}

// newLineFormatter returns the formatter for o, normalized.
func newLineFormatter(o FormatOptions) (*lineFormatter, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	return &lineFormatter{opts: o}, nil
}

// cost returns the tokens of m's block from the measurements stored with
// it, without reading or tokenizing its content, when they suffice: a
// block is its header line and its body, and token counts add up across
// lines. header is the tokens of the block's header.
func (f *lineFormatter) cost(m Meta, header int) (int, bool) {
	switch {
	case m.Lines < 0 || m.BodyTokens < 0:
		return 0, false
	case m.Lines <= f.opts.MaxOutputLines:
		return header + m.BodyTokens, true
	case m.ShortTokens >= 0 && f.opts == defaultFormat:
		return header + m.ShortTokens, true
	}
	return 0, false
}

// headerOf returns the first line of m's block.
func headerOf(m Message) string {
	if m.Command != "" {
		return "[" + m.Role + " · " + m.Command + "]\n"
	}
	return "[" + m.Role + "]\n"
}

// Format implements Formatter.
func (f *lineFormatter) Format(m Message) string {
	return headerOf(m) + f.body(contentLines(m.Content))
}

// body renders the content lines of a block.
func (f *lineFormatter) body(lines []string) string {
	var b strings.Builder
	if len(lines) <= f.opts.MaxOutputLines {
		writeBody(&b, lines)
		return b.String()
	}
	writeBody(&b, lines[:f.opts.HeadLines])
	b.WriteString(omitted(len(lines)-f.opts.HeadLines-f.opts.TailLines, "line"))
	writeBody(&b, lines[len(lines)-f.opts.TailLines:])
	return b.String()
}

// contentLines splits text into its non-blank lines, without line endings,
// carriage returns or trailing spaces.
func contentLines(text string) []string {
	out := make([]string, 0, strings.Count(text, "\n")+1)
	for line := range strings.Lines(text) {
		if strings.IndexByte(line, '\r') >= 0 {
			line = strings.ReplaceAll(line, "\r", "")
		}
		// Trailing spaces cost tokens and say nothing.
		line = strings.TrimRight(line, " \t\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, line)
	}
	return out
}

// body returns lines as a block writes them whole.
func body(lines []string) string {
	var b strings.Builder
	writeBody(&b, lines)
	return b.String()
}

func writeBody(b *strings.Builder, lines []string) {
	for _, l := range lines {
		writeLine(b, l)
	}
}

func writeLine(b *strings.Builder, l string) {
	if len(l) > maxLineBytes {
		cut := maxLineBytes
		for cut > 0 && !isRuneStart(l[cut]) {
			cut--
		}
		b.WriteString(l[:cut])
		b.WriteString(" ... (" + plural(len(l)-cut, "byte") + " omitted)\n")
		return
	}
	b.WriteString(l)
	b.WriteByte('\n')
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

// omitted returns the line that stands for n omitted lines:
// "... (1 line omitted) ...", "... (12 lines omitted) ...".
func omitted(n int, unit string) string {
	return "... (" + plural(n, unit) + " omitted) ...\n"
}

// plural returns n and unit, with an "s" unless n is 1. Unlike
// numfmt.Count it does not group the digits, as the markers of the
// shortened messages stored so far do not.
func plural(n int, unit string) string {
	return strconv.Itoa(n) + " " + unit + numfmt.Plural(n)
}

// defaultFormatter measures the shortened bodies stored with long messages.
var defaultFormatter = &lineFormatter{opts: defaultFormat}
