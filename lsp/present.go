package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/providers/library"
)

// tok renders a token count: "1,234 tok".
func tok(n int) string { return thousands(n) + " tok" }

// thousands formats n with comma separators.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// title returns a topic's title, or its key when it has none.
func title(t *library.Topic) string {
	if t.Meta.Title != "" {
		return t.Meta.Title
	}
	return t.Key()
}

// key returns how a topic is referred to: "domain:name", or its id for
// files directly in a context root.
func key(t *library.Topic) string {
	if t.Domain == "" {
		return t.ID
	}
	return t.Key()
}

// summary is a one-paragraph description of a topic: its frontmatter
// description when it has one, else the first paragraph of its body.
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
				return clip(strings.Join(para, " "), 300)
			}
		case strings.HasPrefix(trimmed, "#"), strings.HasPrefix(trimmed, "|"), strings.HasPrefix(trimmed, "---"):
			if len(para) > 0 {
				return clip(strings.Join(para, " "), 300)
			}
		default:
			para = append(para, trimmed)
		}
	}
	return clip(strings.Join(para, " "), 300)
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

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// crossCost returns what loading t costs together with its cross-domain
// triggers, and the triggers that resolve.
func crossCost(lib *library.Library, t *library.Topic) (total int, triggers []*library.Topic) {
	total = t.Tokens
	seen := map[string]bool{t.ID: true}
	for _, id := range t.Meta.CrossDomainTriggers {
		id = strings.TrimSuffix(strings.TrimSpace(id), ".md")
		if seen[id] {
			continue
		}
		seen[id] = true
		if other, ok := lib.Topic(id); ok {
			total += other.Tokens
			triggers = append(triggers, other)
		}
	}
	return total, triggers
}

// topicMarkdown renders the hover of a topic, or of one of its sections.
func topicMarkdown(lib *library.Library, t *library.Topic, sec *library.Section) string {
	var b strings.Builder
	if sec != nil {
		fmt.Fprintf(&b, "**%s › %s** · %s\n\n", mdEscape(title(t)), mdEscape(sec.Name), tok(sec.Tokens))
	}
	fmt.Fprintf(&b, "**%s** `%s`\n\n", mdEscape(title(t)), key(t))
	line := []string{}
	if t.Meta.Type != "" {
		line = append(line, t.Meta.Type)
	}
	if t.Meta.LoadingStrategy != "" {
		line = append(line, t.Meta.LoadingStrategy)
	}
	cost := tok(t.Tokens) + " measured"
	if d := t.Declared(); d > 0 {
		cost += fmt.Sprintf(" · %s declared", thousands(d))
	}
	line = append(line, cost)
	b.WriteString(strings.Join(line, " · "))
	b.WriteString("\n\n")
	if s := summary(t); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	if len(t.Sections) > 0 {
		b.WriteString("| Section | Tokens |\n|---|---:|\n")
		for _, s := range t.Sections {
			if s.Level != 2 {
				continue
			}
			name := mdEscape(s.Name)
			if sec != nil && strings.EqualFold(s.Name, sec.Name) {
				name = "**" + name + "**"
			}
			tokens := thousands(s.Tokens)
			if s.Declared > 0 {
				tokens += fmt.Sprintf(" (%s declared)", thousands(s.Declared))
			}
			fmt.Fprintf(&b, "| %s | %s |\n", strings.ReplaceAll(name, "|", "\\|"), tokens)
		}
		b.WriteString("\n")
	}
	if len(t.Meta.Tags) > 0 {
		fmt.Fprintf(&b, "Tags: %s\n\n", mdEscape(strings.Join(t.Meta.Tags, ", ")))
	}
	if len(t.Meta.CrossDomainTriggers) > 0 {
		total, triggers := crossCost(lib, t)
		names := make([]string, 0, len(t.Meta.CrossDomainTriggers))
		for _, id := range t.Meta.CrossDomainTriggers {
			names = append(names, "`"+id+"`")
		}
		fmt.Fprintf(&b, "Cross-domain triggers: %s\n\n", strings.Join(names, ", "))
		fmt.Fprintf(&b, "Loading it with its %d trigger%s costs %s\n\n", len(triggers), plural(len(triggers)), tok(total))
	}
	fmt.Fprintf(&b, "`%s`", relPath(lib, t.Path))
	return b.String()
}

// domainMarkdown renders the hover of a domain.
func domainMarkdown(lib *library.Library, d *library.Domain) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** domain · %d topics · %s\n\n", mdEscape(d.Name), len(d.Topics), tok(d.Tokens()))
	var always []string
	alwaysTok := 0
	for _, t := range d.Topics {
		if t.AlwaysLoad() {
			always = append(always, "`"+t.Name+"`")
			alwaysTok += t.Tokens
		}
	}
	if len(always) > 0 {
		fmt.Fprintf(&b, "Always loaded: %s (%s)\n\n", strings.Join(always, ", "), tok(alwaysTok))
	}
	if d.Index != nil {
		fmt.Fprintf(&b, "Index: **%s** · %s\n\n", mdEscape(title(d.Index)), tok(d.Index.Tokens))
		fmt.Fprintf(&b, "`%s`", relPath(lib, d.Index.Path))
	}
	return strings.TrimSpace(b.String())
}

// relPath shows a path relative to the workspace.
func relPath(lib *library.Library, p string) string {
	if r, err := filepath.Rel(lib.Dir(), p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// mdEscape escapes the characters that would turn plain text into markup.
func mdEscape(s string) string {
	r := strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]", "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}
