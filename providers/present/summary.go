package present

import (
	"strings"

	"github.com/ctxls/ctxls/providers/library"
)

// summaryLen bounds a summary, in bytes.
const summaryLen = 300

// summary is a one-paragraph description of a topic: its frontmatter
// description when it has one, else the first paragraph of its body (code
// fences are skipped; a heading, a table or a rule ends it), clipped at a
// word boundary to at most 300 bytes and an ellipsis.
func summary(t *library.Topic) string {
	if d, ok := t.Meta.Extra["description"].(string); ok && strings.TrimSpace(d) != "" {
		return strings.TrimSpace(d)
	}
	if t.Doc == nil {
		return ""
	}
	body := t.Doc.Slice(t.Doc.Body)
	var para []string
	inFence := false
	for line := range strings.SplitSeq(string(body), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			if len(para) > 0 {
				break
			}
			continue
		}
		if inFence {
			continue
		}
		switch {
		case trimmed == "":
			if len(para) > 0 {
				return clip(strings.Join(para, " "), summaryLen)
			}
		case strings.HasPrefix(trimmed, "#"), strings.HasPrefix(trimmed, "|"), strings.HasPrefix(trimmed, "---"):
			if len(para) > 0 {
				return clip(strings.Join(para, " "), summaryLen)
			}
		default:
			para = append(para, trimmed)
		}
	}
	return clip(strings.Join(para, " "), summaryLen)
}

// clip shortens s to at most n bytes at a word boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
	}
	return s[:cut] + "…"
}

// isRuneStart reports whether b begins a UTF-8 sequence.
func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
