package refs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
)

// complete parses text with the cursor at '|' removed and returns the
// completion there, rendered with its replace span shown as [..].
func complete(t *testing.T, text string) string {
	t.Helper()
	off := strings.Index(text, "|")
	if off < 0 {
		t.Fatalf("no cursor in %q", text)
	}
	src := text[:off] + text[off+1:]
	d := document.Parse("x.md", []byte(src))
	c, ok := CompletionAt(d, off, testOpts())
	if !ok {
		return "none"
	}
	if c.Replace.Start > off || c.Replace.End < off {
		t.Fatalf("replace %+v does not hold cursor %d in %q", c.Replace, off, text)
	}
	marked := src[:c.Replace.Start] + "[" + src[c.Replace.Start:c.Replace.End] + "]" + src[c.Replace.End:]
	line := marked[strings.LastIndex(marked[:c.Replace.Start], "\n")+1:]
	if nl := strings.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	s := fmt.Sprintf("%s %s d=%q t=%q prefix=%q %s", c.Kind, c.Form, c.Domain, c.Topic, c.Prefix, line)
	if c.Quoted {
		s += " quoted"
	}
	return s
}

func TestCompletionAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, want string
	}{
		{"topic after colon", "Load python:|", `topic key d="python" t="" prefix="" Load python:[]`},
		{"topic partial", "Load python:fast| now", `topic key d="python" t="" prefix="fast" Load python:[fast] now`},
		{"topic inside word", "Load python:fa|stapi now", `topic key d="python" t="" prefix="fa" Load python:[fastapi] now`},
		{"nested topic", "python:frameworks/fa|", `topic key d="python" t="" prefix="frameworks/fa" python:[frameworks/fa]`},
		{"topic unknown domain", "skill:pyth|", "none"},
		{"topic after digit", "python:3|", "none"},
		{"section", "python:fastapi_patterns#Sec|", `section key d="python" t="fastapi_patterns" prefix="Sec" python:fastapi_patterns#[Sec]`},
		{"section empty", "`python:fastapi_patterns.md#|`", `section key d="python" t="fastapi_patterns" prefix="" ` + "`python:fastapi_patterns.md#[]`"},
		{"section with words", "python:x#Security Is| here", `section key d="python" t="x" prefix="Security Is" python:x#[Security Is] here`},
		{"section replace covers rest", "python:x#Sec|urity Issues, then", `section key d="python" t="x" prefix="Sec" python:x#[Security Issues], then`},
		{"bare word", "Use pyt|", `domain key d="" t="" prefix="pyt" Use [pyt]`},
		{"bare word at line start", "pyt|hon", `domain key d="" t="" prefix="pyt" [python]`},
		{"empty word", "Use |", `domain key d="" t="" prefix="" Use []`},
		{"word after dot", "a.pyt|", "none"},
		{"word in url", "see https://example.com/pyt|", "none"},
		{"word in fence", "```\npyt|\n```", "none"},
		{"key in fence", "```\npython:fa|\n```", "none"},
		{"in html comment", "<!-- python:fa| -->", "none"},
		{"call topic", `getReference("python", "fa|`, `topic call d="python" t="" prefix="fa" getReference("python", "[fa]` + " quoted"},
		{"call topic closed", `x.getReference("python", 'fa|stapi') y`, `topic call d="python" t="" prefix="fa" x.getReference("python", '[fastapi]') y` + " quoted"},
		{"call domain", `getReference("py|`, `domain call d="" t="" prefix="py" getReference("[py]` + " quoted"},
		{"call with state", `getCachedContext(state, "commands", "|")`, `topic call d="commands" t="" prefix="" getCachedContext(state, "commands", "[]")` + " quoted"},
		{"call state arg", `getCachedContext("s|`, "none"},
		{"domain-only call", "```\nContextProvider.getDomainIndex(\"py|\")\n```", `domain domain d="" t="" prefix="py" ContextProvider.getDomainIndex("[py]")` + " quoted"},
		{"call in fence over lines", "```\nprovider.getReference(\n  \"python\",\n  \"fa|\n```", `topic call d="python" t="" prefix="fa"   "[fa]` + " quoted"},
		{"call topic non-literal domain", `getReference(domain, "fa|`, "none"},
		// A quoted word after a closed call, or in an unknown call, is prose.
		{"call closed before cursor", `getReference("python", "x") "fa|`, `domain key d="" t="" prefix="fa" getReference("python", "x") "[fa]`},
		{"generic call", `search("py|`, `domain key d="" t="" prefix="py" search("[py]`},
		{"generic call in fence", "```\nsearch(\"py|\")\n```", "none"},
		{"frontmatter block list", "---\ncontext:\n  - pyth|\n---\n", `domain id d="" t="" prefix="pyth"   - [pyth]`},
		{"frontmatter block list same indent", "---\ncontext:\n- python\n- sec|urity/x\n---\n", `domain id d="" t="" prefix="sec" - [security]/x`},
		{"frontmatter flow list", "---\ncontext: [python, sec|\n---\n", `domain id d="" t="" prefix="sec" context: [python, [sec]`},
		{"frontmatter flow topic", "---\ncontext: [python, security/ow|]\n---\n", `topic id d="security" t="" prefix="ow" context: [python, security/[ow]]`},
		{"frontmatter triggers", "---\ncrossDomainTriggers:\n  - \"security/se|\"\n---\n", `topic id d="security" t="" prefix="se"   - "security/[se]"` + " quoted"},
		{"frontmatter indexedFiles id", "---\nindexedFiles:\n  - path: a.md\n    id: python/co|\n---\n", `topic id d="python" t="" prefix="co"     id: python/[co]`},
		{"frontmatter indexedFiles dash id", "---\nindexedFiles:\n  - id: pyt|\n---\n", `domain id d="" t="" prefix="pyt"   - id: [pyt]`},
		{"frontmatter other field", "---\ntags:\n  - pyt|\n---\n", "none"},
		{"frontmatter other key", "---\ntitle: pyt|\n---\n", "none"},
		{"frontmatter id outside indexedFiles", "---\nid: pyt|\n---\n", "none"},
		{"frontmatter nested list of other key", "---\nsections:\n  - name: x\n    keywords:\n      - pyt|\n---\n", "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := complete(t, tc.text); got != tc.want {
				t.Errorf("CompletionAt(%q)\n got: %s\nwant: %s", tc.text, got, tc.want)
			}
		})
	}
}

func TestCompletionSectionsOption(t *testing.T) {
	t.Parallel()
	opts := testOpts()
	opts.Sections = func(domain, topic string) []string { return []string{"Error handling (HTTP)"} }
	text := "python:x#Error handling (HTTP) more"
	d := document.Parse("x.md", []byte(text))
	c, ok := CompletionAt(d, strings.Index(text, "rr"), opts)
	if !ok || c.Kind != CompleteSection || c.Prefix != "E" {
		t.Fatalf("got %+v, %v", c, ok)
	}
	if got := text[c.Replace.Start:c.Replace.End]; got != "Error handling (HTTP)" {
		t.Errorf("replace %q", got)
	}
}

func TestCompletionOutOfRange(t *testing.T) {
	t.Parallel()
	d := document.Parse("x.md", []byte("python:x"))
	for _, off := range []int{-1, 100} {
		if _, ok := CompletionAt(d, off, testOpts()); ok {
			t.Errorf("offset %d gave a completion", off)
		}
	}
	if _, ok := CompletionAt(nil, 0, testOpts()); ok {
		t.Error("nil document gave a completion")
	}
}
