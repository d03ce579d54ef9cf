// Package glob matches the path globs agent files use (Copilot applyTo,
// Cursor globs, Claude Code rule paths): `*` and `?` within a path
// segment, `**` across segments, `[...]` classes and `{a,b}` alternatives.
// A pattern without a slash matches a file's base name in any folder, as
// the agents treat "*.ts".
package glob

import (
	"fmt"
	"regexp"
	"strings"
)

// Glob is a compiled pattern.
type Glob struct {
	pattern string
	re      *regexp.Regexp
}

// String returns the pattern as written.
func (g *Glob) String() string { return g.pattern }

// Match reports whether the slash-separated relative path p matches.
func (g *Glob) Match(p string) bool { return g.re.MatchString(p) }

// Compile compiles pattern, or says what is wrong with it.
func Compile(pattern string) (*Glob, error) {
	p := strings.TrimPrefix(strings.TrimSpace(pattern), "./")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil, fmt.Errorf("empty glob")
	}
	var b strings.Builder
	b.WriteString("^")
	if !strings.Contains(p, "/") {
		b.WriteString("(?:.*/)?")
	}
	depth := 0 // open { alternatives
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				atStart := i == 0 || p[i-1] == '/'
				j := i + 2
				if atStart && j < len(p) && p[j] == '/' {
					b.WriteString("(?:.*/)?")
					i = j
					continue
				}
				if atStart && j == len(p) {
					b.WriteString(".*")
					i = j - 1
					continue
				}
				return nil, fmt.Errorf("%q: ** must be a whole path segment", pattern)
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) {
				return nil, fmt.Errorf("%q: [ is not closed", pattern)
			}
			class := p[i+1 : j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i = j
		case '{':
			depth++
			b.WriteString("(?:")
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf("%q: } without {", pattern)
			}
			depth--
			b.WriteString(")")
		case ',':
			if depth > 0 {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		case '\\':
			if i+1 >= len(p) {
				return nil, fmt.Errorf("%q: trailing backslash", pattern)
			}
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("%q: { is not closed", pattern)
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("%q: %w", pattern, err)
	}
	return &Glob{pattern: pattern, re: re}, nil
}
