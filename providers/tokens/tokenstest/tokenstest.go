// Package tokenstest finds, in the JSON that ctxls's front ends return,
// the token figures that do not name the tokenizer that counted them.
package tokenstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/tokens"
)

// figureKey reports a key whose number is a token count ctxls measured:
// "tokens", any "…Tokens" and "totalAlwaysLoaded". Counts an author
// declared in frontmatter, and limits, are not measured.
func figureKey(k string) bool {
	switch k {
	case "estimatedTokens", "declaredTokens", "skillBodyTokens", "budgetTokens":
		return false
	}
	return k == "tokens" || strings.HasSuffix(k, "Tokens") || k == "totalAlwaysLoaded"
}

// Unnamed returns the JSON path of every nonzero token figure of data, a
// sequence of JSON values (one, or JSON lines), that neither its object
// nor an object around it names with a "tokenizer" of tokens.Names. A
// diagnostic whose message gives a count of tokens is a figure too. An
// error is returned when data is not JSON.
func Unnamed(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []string
	for i := 0; ; i++ {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return out, err
		}
		walk(v, fmt.Sprintf("[%d]", i), false, &out)
	}
	return out, nil
}

// countInMessage matches a message that gives a count of tokens.
var countInMessage = regexp.MustCompile(`\d tokens?\b|\d tok\b`)

func walk(v any, path string, named bool, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x["tokenizer"].(string); ok && slices.Contains(tokens.Names(), s) {
			named = true
		}
		if m, ok := x["message"].(string); ok && !named && x["code"] != nil && countInMessage.MatchString(m) {
			*out = append(*out, path+".message")
		}
		for k, c := range x {
			if n, ok := c.(json.Number); ok && figureKey(k) && !named && n.String() != "0" {
				*out = append(*out, path+"."+k)
			}
			walk(c, path+"."+k, named, out)
		}
	case []any:
		for i, c := range x {
			walk(c, fmt.Sprintf("%s[%d]", path, i), named, out)
		}
	}
}

// namedIn matches a figure of text with the tokenizer after it.
var namedIn = regexp.MustCompile(`[\d,]+ tok(?:ens)?\b`)

// TextNames reports whether every token figure of text ("1,234 tok",
// "56 tokens") is followed, before the end of its line, by the name of a
// tokenizer in parentheses, or the text says "Tokens counted in" one.
func TextNames(text string) bool {
	for _, n := range tokens.Names() {
		if strings.Contains(text, "Tokens counted in "+n+".") {
			return true
		}
	}
	for _, line := range strings.Split(text, "\n") {
		locs := namedIn.FindAllStringIndex(line, -1)
		if len(locs) == 0 {
			continue
		}
		rest := line[locs[len(locs)-1][1]:]
		ok := false
		for _, n := range tokens.Names() {
			if strings.Contains(rest, "("+n+")") || strings.Contains(rest, "("+n+",") {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
