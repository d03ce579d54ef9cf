package refactor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/providers/library"
)

// frontmatter writes the frontmatter block (delimiters and a blank line
// after it included) that a topic's derived metadata gives, with the
// measured token costs as the declared ones.
func frontmatter(t *library.Topic) string {
	var b strings.Builder
	m := t.Meta
	b.WriteString("---\n")
	fmt.Fprintf(&b, "id: %s\n", yamlScalar(t.ID))
	if t.Domain != "" {
		fmt.Fprintf(&b, "domain: %s\n", yamlScalar(t.Domain))
	}
	title := m.Title
	if title == "" {
		title = t.Key()
	}
	fmt.Fprintf(&b, "title: %s\n", yamlScalar(title))
	fmt.Fprintf(&b, "type: %s\n", yamlScalar(m.Type))
	fmt.Fprintf(&b, "estimatedTokens: %d\n", max(t.Tokens, 1))
	fmt.Fprintf(&b, "loadingStrategy: %s\n", yamlScalar(m.LoadingStrategy))
	if m.Version != "" {
		fmt.Fprintf(&b, "version: %s\n", yamlScalar(m.Version))
	}
	if m.LastUpdated != "" {
		fmt.Fprintf(&b, "lastUpdated: %s\n", yamlScalar(m.LastUpdated))
	}
	if m.MaintainedFor != "" {
		fmt.Fprintf(&b, "maintainedFor: %s\n", yamlScalar(m.MaintainedFor))
	}
	var secs []library.Section
	for _, s := range t.Sections {
		if s.Level == 2 {
			secs = append(secs, s)
		}
	}
	if len(secs) > 0 {
		b.WriteString("sections:\n")
		for _, s := range secs {
			fmt.Fprintf(&b, "  - name: %s\n    estimatedTokens: %d\n", yamlScalar(s.Name), max(s.Tokens, 1))
		}
	}
	if len(m.Tags) > 0 {
		tags := make([]string, len(m.Tags))
		for i, tag := range m.Tags {
			tags[i] = yamlScalar(tag)
		}
		fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(tags, ", "))
	}
	b.WriteString("---\n\n")
	return b.String()
}

// yamlScalar writes s as a YAML scalar, quoted when it would not read back
// as the same string.
func yamlScalar(s string) string {
	if s == "" {
		return `""`
	}
	plain := true
	for i, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r == '/' || r == ' ' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127) {
			plain = false
			break
		}
		if i == 0 && (r == '-' || r == ' ') {
			plain = false
		}
	}
	if plain && strings.TrimSpace(s) == s && !isYAMLKeyword(s) {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return s
		}
	}
	return strconv.Quote(s)
}

func isYAMLKeyword(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~":
		return true
	}
	return false
}
