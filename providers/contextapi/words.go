package contextapi

import (
	"path"
	"regexp"
	"strings"
	"unicode"
)

// splitWords splits text into lower-case words of letters and digits;
// camelCase and snake_case both split ("authCode", "auth_code").
func splitWords(s string) []string {
	var out []string
	var b strings.Builder
	var prev rune
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

// stem strips common English endings so that "queries" meets "query" and
// "changed" meets "changes".
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "es")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// synonyms maps abbreviations to the word conditions usually spell out.
var synonyms = map[string]string{
	"db": "database", "authn": "auth", "authz": "auth", "authentication": "auth", "authorization": "auth",
	"perf": "performance", "deps": "dependency", "dep": "dependency", "infra": "infrastructure",
	"k8s": "kubernetes", "creds": "credential", "pwd": "password", "env": "environment", "cfg": "config",
	"configuration": "config", "tests": "test", "testing": "test", "secrets": "secret",
}

// stopWords carry no meaning of their own in a trigger or a condition.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "in": true, "on": true, "to": true,
	"for": true, "with": true, "is": true, "are": true, "be": true, "by": true, "at": true, "as": true, "it": true,
	"code": true, "detect": true, "detected": true, "file": true, "files": true, "present": true, "usage": true,
	"change": true, "changes": true, "changed": true, "add": true, "added": true, "any": true, "all": true,
	"new": true, "use": true, "used": true, "using": true, "when": true, "if": true, "this": true, "that": true,
	"found": true, "contain": true, "contains": true, "alongside": true, "step": true,
}

// terms returns the meaningful, normalized words of s.
func terms(s string) []string {
	var out []string
	for _, w := range splitWords(s) {
		if stopWords[w] {
			continue
		}
		if syn, ok := synonyms[w]; ok {
			w = syn
		}
		out = append(out, stem(w))
	}
	return out
}

// termMatch reports whether two normalized words name the same thing:
// equal, or one a prefix of the other sharing at least four letters
// ("auth" and "authent").
func termMatch(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) >= 4 && len(b) >= 4 && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a)) {
		return true
	}
	return false
}

// coverage is the share of want's terms found among have's.
func coverage(want, have []string) float64 {
	if len(want) == 0 {
		return 0
	}
	n := 0
	for _, w := range want {
		for _, h := range have {
			if termMatch(w, h) {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(want))
}

var (
	reFromImport = regexp.MustCompile(`^\s*from\s+([\w.@/-]+)\s+import\b`)
	reImport     = regexp.MustCompile(`^\s*import\s+([\w.@/-]+)`)
	reUsing      = regexp.MustCompile(`^\s*(?:global\s+)?using\s+(?:static\s+)?([\w.]+)\s*;?\s*$`)
	reQuoted     = regexp.MustCompile(`(?:from|import|require\(|^)\s*["']([^"']+)["']`)
	reBare       = regexp.MustCompile(`^[\w@][\w.@/-]*$`)
	reMarkdown   = regexp.MustCompile(`[\w{}./-]*[\w}]\.md\b`)
)

// module extracts the module an import statement names: "from x.y import
// z" → "x.y", "import x as y" → "x", `import {a} from "x"` → "x",
// "using X.Y;" → "X.Y"; a bare module name is itself.
func module(s string) string {
	s = strings.TrimSpace(s)
	if m := reQuoted.FindStringSubmatch(s); m != nil {
		return strings.ToLower(m[1])
	}
	for _, re := range []*regexp.Regexp{reFromImport, reImport, reUsing} {
		if m := re.FindStringSubmatch(s); m != nil {
			return strings.ToLower(m[1])
		}
	}
	if reBare.MatchString(s) && !strings.Contains(s, "/") || strings.HasPrefix(s, "@") {
		return strings.ToLower(s)
	}
	return ""
}

// sameModule reports whether two module names are the same package or one
// is inside the other ("django" and "django.db", "@angular/core" and
// "@angular/core/testing").
func sameModule(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	for _, sep := range []string{".", "/"} {
		if strings.HasPrefix(a, b+sep) || strings.HasPrefix(b, a+sep) {
			return true
		}
	}
	return false
}

// containsWord reports whether text holds w bounded by non-word characters.
func containsWord(text, w string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(w)
		if (s == 0 || !isWordByte(text[s-1])) && (e == len(text) || !isWordByte(text[e])) {
			return true
		}
		i = s + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// matchPath compares a file signal with a file pattern: globs, directory
// patterns ("routers/"), extensions (".ipynb") and base names.
func matchPath(sig, pat string) float64 {
	sig = strings.TrimPrefix(strings.ReplaceAll(sig, `\`, "/"), "./")
	base := path.Base(strings.TrimSuffix(sig, "/"))
	switch {
	case strings.ContainsAny(pat, "*?") && !strings.Contains(pat, "["):
		if ok, _ := path.Match(pat, base); ok {
			return 0.8
		}
		if ok, _ := path.Match(pat, sig); ok {
			return 0.8
		}
	case strings.HasSuffix(pat, "/"):
		if strings.Contains("/"+strings.TrimSuffix(sig, "/")+"/", "/"+pat) {
			return 0.8
		}
	case strings.HasPrefix(pat, ".") && !strings.Contains(pat[1:], "."):
		if strings.HasSuffix(base, pat) {
			return 0.8
		}
	default:
		if base == pat || strings.HasSuffix(sig, "/"+pat) {
			return 0.9
		}
	}
	return 0
}
