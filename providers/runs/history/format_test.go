package history

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		opts    FormatOptions
		m       Message
		want    string
		wantErr bool
	}{
		{
			name: "short with command",
			m:    Message{Role: RoleUser, Command: "implement", Content: "do it\n"},
			want: "[user · implement]\ndo it\n",
		},
		{
			name: "blank lines, CRs and trailing spaces dropped",
			m:    Message{Role: RoleAssistant, Content: "a\r\n\r\n  \n\tb  \r\n\nc"},
			want: "[assistant]\na\n\tb\nc\n",
		},
		{
			name: "exactly the maximum stays whole",
			m:    Message{Role: RoleTool, Content: numbered(20)},
			want: "[tool]\n" + numbered(20),
		},
		{
			name: "one over keeps 10 and 10",
			m:    Message{Role: RoleTool, Content: numbered(21)},
			want: "[tool]\n" + numbered(10) + "... (1 line omitted) ...\n" + strings.TrimPrefix(numbered(21), numbered(11)),
		},
		{
			name: "blank lines do not count",
			m:    Message{Role: RoleTool, Content: strings.ReplaceAll(numbered(20), "\n", "\n\n")},
			want: "[tool]\n" + numbered(20),
		},
		{
			name: "custom head and tail",
			opts: FormatOptions{MaxOutputLines: 4, HeadLines: 1, TailLines: 2},
			m:    Message{Role: RoleTool, Content: numbered(6)},
			want: "[tool]\nline 1\n... (3 lines omitted) ...\nline 5\nline 6\n",
		},
		{
			name: "maximum alone is split",
			opts: FormatOptions{MaxOutputLines: 3},
			m:    Message{Role: RoleTool, Content: numbered(5)},
			want: "[tool]\nline 1\n... (2 lines omitted) ...\nline 4\nline 5\n",
		},
		{
			name: "empty content",
			m:    Message{Role: RoleUser},
			want: "[user]\n",
		},
		{
			name:    "head and tail above the maximum",
			opts:    FormatOptions{MaxOutputLines: 10, HeadLines: 8, TailLines: 8},
			wantErr: true,
		},
		{
			name:    "negative",
			opts:    FormatOptions{MaxOutputLines: -1},
			wantErr: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, err := newLineFormatter(c.opts)
			if c.wantErr {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("options %+v: %v, want ErrInvalid", c.opts, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Format(c.m); got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestFormatLongLine(t *testing.T) {
	t.Parallel()
	f, _ := newLineFormatter(FormatOptions{})
	long := strings.Repeat("é", maxLineBytes) // 2 bytes each
	got := f.Format(Message{Role: RoleTool, Content: long})
	first, _, _ := strings.Cut(strings.TrimPrefix(got, "[tool]\n"), " ... (")
	if len(first) != maxLineBytes || !strings.Contains(got, fmt.Sprintf("(%d bytes omitted)", len(long)-maxLineBytes)) {
		t.Errorf("long line kept %d bytes: %.80q", len(first), got)
	}
}

// TestOmittedCount: the line that says what was left out counts in the
// singular for one, wherever it is written.
func TestOmittedCount(t *testing.T) {
	t.Parallel()
	cnt := counter(t)
	f, _ := newLineFormatter(FormatOptions{})
	long := strings.Repeat("word ", 40)
	threeLines := []string{"first " + long, "second " + long, "third " + long}
	// The largest target that keeps two of the three lines.
	two, _ := clip(cnt, "", threeLines, 1<<20)
	for target := cnt.Count(two); ; target-- {
		if text, _ := clip(cnt, "", threeLines, target); strings.Contains(text, "omitted") {
			two = text
			break
		}
	}
	for _, c := range []struct {
		name, got, want, notWant string
	}{
		{"formatter, one line", f.Format(Message{Role: RoleTool, Content: numbered(21)}), "... (1 line omitted) ...\n", "lines"},
		{"formatter, two lines", f.Format(Message{Role: RoleTool, Content: numbered(22)}), "... (2 lines omitted) ...\n", ""},
		{"fit, one line", two, "... (1 line omitted) ...\n", "lines"},
		{"long line, one byte", f.Format(Message{Role: RoleTool, Content: strings.Repeat("a", maxLineBytes+1)}), " ... (1 byte omitted)\n", "bytes"},
		{"long line, two bytes", f.Format(Message{Role: RoleTool, Content: strings.Repeat("a", maxLineBytes+2)}), " ... (2 bytes omitted)\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if !strings.Contains(c.got, c.want) || c.notWant != "" && strings.Contains(c.got, c.notWant) {
				t.Errorf("got %q, want it to hold %q", c.got, c.want)
			}
		})
	}
}

// FuzzFormat checks the formatter's invariants on any text: one header,
// no blank lines or carriage returns, at most MaxOutputLines content lines
// plus the omission line, and no line longer than maxLineBytes plus the
// note that says what was cut.
func FuzzFormat(f *testing.F) {
	for _, s := range []string{"", "a", "a\r\nb", numbered(25), "\n\n \t\n", strings.Repeat("é", 1500), "x\x00y"} {
		f.Add(s, 4, 2, 1)
	}
	f.Fuzz(func(t *testing.T, content string, max, head, tail int) {
		lf, err := newLineFormatter(FormatOptions{MaxOutputLines: max % 50, HeadLines: head % 50, TailLines: tail % 50})
		if err != nil {
			return
		}
		o := lf.opts
		out := lf.Format(Message{Role: RoleTool, Content: content})
		body, ok := strings.CutPrefix(out, "[tool]\n")
		if !ok || !strings.HasSuffix(out, "\n") {
			t.Fatalf("block %q lacks its header or final newline", out)
		}
		lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		if body == "" {
			lines = nil
		}
		if len(lines) > o.MaxOutputLines+1 {
			t.Fatalf("%d lines with options %+v", len(lines), o)
		}
		for _, l := range lines {
			if strings.TrimSpace(l) == "" || strings.Contains(l, "\r") {
				t.Fatalf("blank line or CR in %q", out)
			}
			if len(l) > maxLineBytes+40 {
				t.Fatalf("line of %d bytes", len(l))
			}
		}
	})
}
