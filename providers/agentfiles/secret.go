package agentfiles

import (
	"regexp"
	"strings"
)

var (
	// tokenRE matches the shapes of well-known API tokens by their
	// published prefixes.
	tokenRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9])(` +
		`sk-ant-[A-Za-z0-9_-]{20,}|sk-(?:proj-)?[A-Za-z0-9_-]{32,}|` +
		`gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}|` +
		`xox[abposr]-[A-Za-z0-9-]{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|` +
		`[sr]k_live_[0-9A-Za-z]{20,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|` +
		`lin_api_[A-Za-z0-9]{30,}|ntn_[A-Za-z0-9]{30,}|pplx-[A-Za-z0-9]{30,})`)
	// bearerRE matches an Authorization value that carries a token.
	bearerRE = regexp.MustCompile(`(?i)^\s*(?:bearer|token|basic)\s+(\S{20,})\s*$`)
	// secretNameRE matches the name of a variable, header or option that
	// holds a secret.
	secretNameRE = regexp.MustCompile(`(?i)(token|secret|passw(or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth)`)
	// queryRE matches a secret given in a URL's query or user info.
	queryRE = regexp.MustCompile(`(?i)[?&](?:api[_-]?key|key|token|access_token|secret)=([^&#\s]{20,})|://[^/@:\s]+:([^/@\s]{12,})@`)
	// placeholderRE matches the words of a value meant to be replaced.
	placeholderRE = regexp.MustCompile(`(?i)your|xxxx|\.\.\.|<|>|example|changeme|placeholder|replace|here|dummy|fake|test|sample|redacted|\*\*\*`)
)

// secretIn reports whether value, the value of the variable, header or
// option named name ("" when it has none), looks like a secret written in
// plain text, and returns its first characters for the message: never the
// whole of it.
func secretIn(name, value string) (string, int, bool) {
	if len(value) < 16 || len(value) > 4096 {
		return "", 0, false
	}
	// What the agent fills in from elsewhere is no secret of the file.
	value = varRE.ReplaceAllString(value, " ")
	if m := tokenRE.FindStringSubmatch(value); m != nil && !placeholderRE.MatchString(m[1]) {
		return preview(m[1]), len(m[1]), true
	}
	if m := queryRE.FindStringSubmatch(value); m != nil {
		s := m[1] + m[2]
		if !placeholderRE.MatchString(s) && !strings.HasPrefix(s, "$") && tokenLike(s) {
			return preview(s), len(s), true
		}
	}
	if name == "" || !secretNameRE.MatchString(name) {
		return "", 0, false
	}
	s := strings.TrimSpace(value)
	if m := bearerRE.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	if strings.ContainsAny(s, " /\\$%{}") || strings.Contains(s, "://") || placeholderRE.MatchString(s) || !tokenLike(s) {
		return "", 0, false
	}
	return preview(s), len(s), true
}

// tokenLike reports whether s looks machine-made: 20 characters or more,
// with letters and digits, and no run of one character.
func tokenLike(s string) bool {
	if len(s) < 20 {
		return false
	}
	letters, digits, distinct := 0, 0, map[rune]bool{}
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letters++
		}
		distinct[r] = true
	}
	return letters > 0 && digits > 0 && len(distinct) >= 10
}

// preview returns the first four characters of a secret, then an
// ellipsis.
func preview(s string) string {
	r := []rune(s)
	if len(r) > 4 {
		r = r[:4]
	}
	return string(r) + "…"
}
