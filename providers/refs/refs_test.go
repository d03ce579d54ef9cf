package refs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
)

var testDomains = []string{"python", "security", "commands", "angular", "dotnet", "schema"}

func testOpts() Options {
	return Options{IsDomain: func(name string) bool { return slices.Contains(testDomains, name) }, Fields: TopicFields}
}

// scan returns the references ScanList finds, as a slice.
func scan(doc *document.Doc, opts Options) []Ref {
	return ScanList(doc, opts).Slice()
}

// show renders a reference compactly: form, where, the text of its span
// and its parts.
func show(d *document.Doc, r Ref) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s %q", r.Form, r.Where, d.Slice(r.Span))
	add := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%q", k, v)
		}
	}
	add("d", r.Domain)
	add("t", r.Topic)
	add("s", r.Section)
	add("p", r.Path)
	add("f", r.Fragment)
	add("call", r.Call)
	add("field", r.Field)
	return b.String()
}

// checkRefs verifies the invariants every result of scan must hold.
func checkRefs(t *testing.T, d *document.Doc, refs []Ref) {
	t.Helper()
	end := -1
	for _, r := range refs {
		if r.Span.Start < 0 || r.Span.End > len(d.Text) || r.Span.Start >= r.Span.End {
			t.Fatalf("span %+v outside text of %d bytes: %s", r.Span, len(d.Text), show(d, r))
		}
		if r.Span.Start < end {
			t.Fatalf("overlap or disorder at %s", show(d, r))
		}
		end = r.Span.End
		for _, part := range []struct {
			sp   document.Span
			want string
		}{{r.DomainSpan, r.Domain}, {r.TopicSpan, r.Topic}, {r.SectionSpan, r.Section}, {r.PathSpan, r.Path}} {
			if part.want == "" || (part.sp.Len() == 0 && r.Field == fieldContext) {
				continue // a Forge topic's domain is not written in the entry
			}
			if part.sp.Start < r.Span.Start || part.sp.End > r.Span.End {
				t.Fatalf("part %+v of %q outside span %+v", part.sp, part.want, r.Span)
			}
			if got := string(d.Slice(part.sp)); got != part.want {
				t.Errorf("part span text %q, want %q in %s", got, part.want, show(d, r))
			}
		}
	}
}

func scanText(t *testing.T, text string, opts Options) (*document.Doc, []string) {
	t.Helper()
	d := document.Parse("doc.md", []byte(text))
	refs := scan(d, opts)
	checkRefs(t, d, refs)
	var out []string
	for _, r := range refs {
		out = append(out, show(d, r))
	}
	return d, out
}

func TestScan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		// Key form.
		{"key", "Load python:fastapi_patterns first.",
			[]string{`key/prose "python:fastapi_patterns" d="python" t="fastapi_patterns"`}},
		{"key nested topic", "see python:frameworks/fastapi.",
			[]string{`key/prose "python:frameworks/fastapi" d="python" t="frameworks/fastapi"`}},
		{"key drops .md", "see python:fastapi_patterns.md, then",
			[]string{`key/prose "python:fastapi_patterns.md" d="python" t="fastapi_patterns"`}},
		{"key trailing punctuation", "(python:x-) and python:y/ and python:z...",
			[]string{`key/prose "python:x" d="python" t="x"`, `key/prose "python:y" d="python" t="y"`, `key/prose "python:z" d="python" t="z"`}},
		{"key at line start and end", "python:a\nb python:c",
			[]string{`key/prose "python:a" d="python" t="a"`, `key/prose "python:c" d="python" t="c"`}},
		// '_' before a domain rules the key form out, as in "my_python:x".
		{"key in heading and emphasis", "## Uses **python:a** and _python:b_",
			[]string{`key/prose "python:a" d="python" t="a"`}},
		{"key in inline code", "Use `python:fastapi_patterns` here",
			[]string{`key/inline-code "python:fastapi_patterns" d="python" t="fastapi_patterns"`}},
		{"key in link text", "[python:a](https://example.com/python:b)",
			[]string{`key/link "python:a" d="python" t="a"`}},
		{"key in table", "| a | b |\n|---|---|\n| python:x | `security:y#Input Validation` |\n",
			[]string{`key/table "python:x" d="python" t="x"`, `key/inline-code "security:y#Input Validation" d="security" t="y" s="Input Validation"`}},
		{"key after CJK without space", "请参考python:fastapi_patterns。",
			[]string{`key/prose "python:fastapi_patterns" d="python" t="fastapi_patterns"`}},

		// Sections.
		{"section two words then lower case", "See python:fastapi_patterns#Security Issues for details.",
			[]string{`key/prose "python:fastapi_patterns#Security Issues" d="python" t="fastapi_patterns" s="Security Issues"`}},
		{"section sentence end", "Read python:x#Security Issues. Then stop",
			[]string{`key/prose "python:x#Security Issues" d="python" t="x" s="Security Issues"`}},
		{"section joiner", "python:x#How to Use it",
			[]string{`key/prose "python:x#How to Use" d="python" t="x" s="How to Use"`}},
		{"section symbol", "python:x#Data Science / ML, then",
			[]string{`key/prose "python:x#Data Science / ML" d="python" t="x" s="Data Science / ML"`}},
		{"section slug", "python:x#security-issues is one word",
			[]string{`key/prose "python:x#security-issues" d="python" t="x" s="security-issues"`}},
		{"section stops at paren", "(python:x#Security Issues)",
			[]string{`key/prose "python:x#Security Issues" d="python" t="x" s="Security Issues"`}},
		{"section in code runs to code end", "`python:x#Security issues and more`",
			[]string{`key/inline-code "python:x#Security issues and more" d="python" t="x" s="Security issues and more"`}},
		{"section in quotes runs to quote", `use "python:x#Security issues and more" now`,
			[]string{`key/prose "python:x#Security issues and more" d="python" t="x" s="Security issues and more"`}},
		{"empty section", "python:x# Heading",
			[]string{`key/prose "python:x" d="python" t="x"`}},
		{"section at end of file", "python:x#Last Part",
			[]string{`key/prose "python:x#Last Part" d="python" t="x" s="Last Part"`}},

		// Key form negatives.
		{"url", "https://python:x and http://x/python:y and <https://a.b/?q=python:z>", nil},
		{"url in query", "see https://example.com/a?q=python:z here", nil},
		{"time", "at 10:30 and python:3.11", nil},
		{"yaml like key", "python: x\nnote: x", nil},
		{"unknown domain", "skill:python-code-review and skill:generate-python-unit-tests", nil},
		{"dotted and slashed prefix", "a.python:x b/python:y c:python:z me@python:w _python:v", nil},
		{"letter before", "épython:x", nil},
		{"key in plain fence", "```\npython:x\n```\n", nil},
		{"key in html comment", "<!-- python:x -->\ntext <!-- python:y\nstill comment python:z -->", nil},
		{"key in frontmatter other field", "---\nmaintainedFor: python:x\ntags: [python:y]\n---\nbody\n", nil},

		// Call form.
		{"call", `contextProvider.getConditionalContext("python", "fastapi_patterns")`,
			[]string{`call/prose "getConditionalContext(\"python\", \"fastapi_patterns\")" d="python" t="fastapi_patterns" call="getConditionalContext"`}},
		{"call single quotes in code", "Use `ContextProvider.getReference('python', 'fastapi_patterns')`.",
			[]string{`call/inline-code "getReference('python', 'fastapi_patterns')" d="python" t="fastapi_patterns" call="getReference"`}},
		{"call with state", "1. `executionContext.getCachedContext(state, \"commands\", \"implementation_patterns\")`",
			[]string{`call/inline-code "getCachedContext(state, \"commands\", \"implementation_patterns\")" d="commands" t="implementation_patterns" call="getCachedContext"`}},
		{"call record with content", "recordContextLoad(state, \"commands\", \"x\", content)",
			[]string{`call/prose "recordContextLoad(state, \"commands\", \"x\", content)" d="commands" t="x" call="recordContextLoad"`}},
		{"call unknown domain kept", `getReference("nosuch", "thing")`,
			[]string{`call/prose "getReference(\"nosuch\", \"thing\")" d="nosuch" t="thing" call="getReference"`}},
		{"call in fence over lines", "```js\nconst r = provider.getReference(\n  \"python\",\n  `fastapi_patterns`\n);\n```\n",
			[]string{"call/fence \"getReference(\\n  \\\"python\\\",\\n  `fastapi_patterns`\\n)\" d=\"python\" t=\"fastapi_patterns\" call=\"getReference\""}},
		{"call topic not literal gives domain", "```\nfiles = ContextProvider.getConditionalContext(\"python\", detection)\n```",
			[]string{`domain/fence "getConditionalContext(\"python\", detection)" d="python" call="getConditionalContext"`}},
		{"call template literal is not literal", "getReference(\"python\", `${x}_patterns`)",
			[]string{"domain/prose \"getReference(\\\"python\\\", `${x}_patterns`)\" d=\"python\" call=\"getReference\""}},
		{"domain-only calls", "```\nContextProvider.getDomainIndex(\"python\")\ndetectProjectType(\"python\", {\n  imports: [\"from fastapi import FastAPI\"],\n})\ngetCrossDomainContext('python', [\"auth_code\"])\ngetAlwaysLoadFiles(\"angular\")\n```",
			[]string{
				`domain/fence "getDomainIndex(\"python\")" d="python" call="getDomainIndex"`,
				"domain/fence \"detectProjectType(\\\"python\\\", {\\n  imports: [\\\"from fastapi import FastAPI\\\"],\\n})\" d=\"python\" call=\"detectProjectType\"",
				`domain/fence "getCrossDomainContext('python', [\"auth_code\"])" d="python" call="getCrossDomainContext"`,
				`domain/fence "getAlwaysLoadFiles(\"angular\")" d="angular" call="getAlwaysLoadFiles"`,
			}},
		{"call unclosed ends at last argument", "```\ngetReference(\"python\", \"x\"\n```",
			[]string{`call/fence "getReference(\"python\", \"x\"" d="python" t="x" call="getReference"`}},
		{"call negatives", "getReference(domain, file) getCachedContext(state, domain, topic) sws_getCachedContext(a, \"b\", \"c\") search(\"python\") materialize(\"python\") getCatalog(\"python\") getReference()", nil},
		{"call in html comment", "<!-- getReference(\"python\", \"x\") -->", nil},

		// Path form.
		{"inline link", "See [FastAPI](../python/fastapi_patterns.md) now",
			[]string{`path/link "../python/fastapi_patterns.md" p="../python/fastapi_patterns.md"`}},
		{"link with fragment and title", `[x](a/b.md#security-issues "Title") [y](<c d.md>)`,
			[]string{`path/link "a/b.md#security-issues" p="a/b.md" f="security-issues"`, `path/link "c d.md" p="c d.md"`}},
		{"reference definition", "[proto]: ../context/loading_protocol.md\n",
			[]string{`path/link "../context/loading_protocol.md" p="../context/loading_protocol.md"`}},
		{"autolink", "<context/index.md>",
			[]string{`path/link "context/index.md" p="context/index.md"`}},
		{"inline code path", "1. Read `../../context/index.md` for overview and `loading_protocol.md`.",
			[]string{`path/inline-code "../../context/index.md" p="../../context/index.md"`, `path/inline-code "loading_protocol.md" p="loading_protocol.md"`}},
		{"bare path", "Read ../../context/python/common_issues.md\nand **context/a/b.md**, too",
			[]string{`path/prose "../../context/python/common_issues.md" p="../../context/python/common_issues.md"`, `path/prose "context/a/b.md" p="context/a/b.md"`}},
		{"bare path in table", "| a |\n|---|\n| security/x.md |\n",
			[]string{`path/table "security/x.md" p="security/x.md"`}},
		{"path negatives", "[a](https://x.org/a.md) <mailto:a@b.md> `memory/{project}/history.md` `test_*.md` [t](<name>.md) plain.md x/y.mdx www.site.org/a.md `a b/c.md` `x.py`", nil},
		{"path in fence and comment", "```\n[a](x/y.md) ../c/d.md\n```\n<!-- [b](e/f.md) -->", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, got := scanText(t, tc.text, testOpts())
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("scan(%q)\n got:\n  %s\nwant:\n  %s", tc.text, strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestScanFrontmatter(t *testing.T) {
	t.Parallel()
	text := "---\n" +
		"id: \"python/index\"\n" +
		"context: [python, dotnet, \"commands/implementation_strategies\"]\n" +
		"crossDomainTriggers:\n" +
		"  - security/security_guidelines\n" +
		"  - 'schema/common_patterns.md'\n" +
		"  - python/x#Security Issues\n" +
		"  - justadomain\n" +
		"indexedFiles:\n" +
		"  - id: python/common_issues\n" +
		"    path: common_issues.md\n" +
		"    type: reference\n" +
		"  - path: \"sub/deep.md#part\"\n" +
		"    id: python/sub/deep\n" +
		"maintainedFor: python:x\n" +
		"---\n" +
		"Body python:body\n"
	_, got := scanText(t, text, testOpts())
	want := []string{
		`domain/frontmatter "python" d="python" field="context"`,
		`domain/frontmatter "dotnet" d="dotnet" field="context"`,
		`id/frontmatter "commands/implementation_strategies" d="commands" t="implementation_strategies" field="context"`,
		`id/frontmatter "security/security_guidelines" d="security" t="security_guidelines" field="crossDomainTriggers"`,
		`id/frontmatter "schema/common_patterns.md" d="schema" t="common_patterns" field="crossDomainTriggers"`,
		`id/frontmatter "python/x#Security Issues" d="python" t="x" s="Security Issues" field="crossDomainTriggers"`,
		`id/frontmatter "justadomain" d="justadomain" field="crossDomainTriggers"`,
		`id/frontmatter "python/common_issues" d="python" t="common_issues" field="indexedFiles"`,
		`path/frontmatter "common_issues.md" p="common_issues.md" field="indexedFiles"`,
		`path/frontmatter "sub/deep.md#part" p="sub/deep.md" f="part" field="indexedFiles"`,
		`id/frontmatter "python/sub/deep" d="python" t="sub/deep" field="indexedFiles"`,
		`key/prose "python:body" d="python" t="body"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestScanFrontmatterScalars(t *testing.T) {
	t.Parallel()
	_, got := scanText(t, "---\ncontext: python, security/owasp\ncrossDomainTriggers: security/x\n---\n", testOpts())
	want := []string{
		`domain/frontmatter "python" d="python" field="context"`,
		`id/frontmatter "security/owasp" d="security" t="owasp" field="context"`,
		`id/frontmatter "security/x" d="security" t="x" field="crossDomainTriggers"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	// Malformed YAML yields no frontmatter references and no panic.
	_, got = scanText(t, "---\ncontext: [python\n---\npython:x\n", testOpts())
	if len(got) != 1 || !strings.HasPrefix(got[0], "key/") {
		t.Errorf("malformed frontmatter: %v", got)
	}
}

func TestSectionsOption(t *testing.T) {
	t.Parallel()
	opts := testOpts()
	opts.Sections = func(domain, topic string) []string {
		if domain == "python" && topic == "fastapi_patterns" {
			return []string{"Security", "Security Issues", "Error handling (HTTP)"}
		}
		return nil
	}
	tests := []struct{ text, want string }{
		{"python:fastapi_patterns#security issues are listed", "security issues"},
		{"python:fastapi_patterns#Error Handling (HTTP) matters", "Error Handling (HTTP)"},
		{"python:fastapi_patterns#Securityx Stuff", "Securityx Stuff"},
		{"python:other#Security Issues for all", "Security Issues"},
	}
	for _, tc := range tests {
		d := document.Parse("x.md", []byte(tc.text))
		refs := scan(d, opts)
		if len(refs) != 1 || refs[0].Section != tc.want {
			t.Errorf("%q: refs %+v, want section %q", tc.text, refs, tc.want)
		}
	}
}

func TestNoKeyFormWithoutIsDomain(t *testing.T) {
	t.Parallel()
	_, got := scanText(t, "python:x and getReference(\"python\", \"x\")", Options{})
	if len(got) != 1 || !strings.HasPrefix(got[0], "call/") {
		t.Errorf("got %v", got)
	}
}

// TestPositions checks the ranges editors receive for references after
// emoji and CJK text, in CRLF files with a byte order mark, and at the end
// of a file without a final newline.
func TestPositions(t *testing.T) {
	t.Parallel()
	text := "\xEF\xBB\xBF# Title 😀\r\n" +
		"😀😀 python:fastapi_patterns\r\n" +
		"中文字 `../python/x.md` 😀 getReference(\"security\", \"owasp\")\r\n" +
		"python:a#Security Issues"
	d := document.Parse("x.md", []byte(text))
	if !d.HasBOM {
		t.Fatal("BOM not detected")
	}
	refs := scan(d, testOpts())
	checkRefs(t, d, refs)
	type want struct {
		text       string
		u16, u8    document.Range
		topicRange document.Range
	}
	r := func(l1, c1, l2, c2 int) document.Range {
		return document.Range{Start: document.Position{Line: l1, Character: c1}, End: document.Position{Line: l2, Character: c2}}
	}
	wants := []want{
		{"python:fastapi_patterns", r(1, 5, 1, 28), r(1, 9, 1, 32), r(1, 12, 1, 28)},
		{"../python/x.md", r(2, 5, 2, 19), r(2, 11, 2, 25), document.Range{}},
		{`getReference("security", "owasp")`, r(2, 24, 2, 57), r(2, 32, 2, 65), r(2, 50, 2, 55)},
		{"python:a#Security Issues", r(3, 0, 3, 24), r(3, 0, 3, 24), r(3, 7, 3, 8)},
	}
	if len(refs) != len(wants) {
		t.Fatalf("got %d refs, want %d: %+v", len(refs), len(wants), refs)
	}
	for i, w := range wants {
		ref := refs[i]
		if got := string(d.Slice(ref.Span)); got != w.text {
			t.Errorf("ref %d text %q, want %q", i, got, w.text)
		}
		if got := d.Lines.Range(ref.Span, document.UTF16); got != w.u16 {
			t.Errorf("ref %d utf-16 range %+v, want %+v", i, got, w.u16)
		}
		if got := d.Lines.Range(ref.Span, document.UTF8); got != w.u8 {
			t.Errorf("ref %d utf-8 range %+v, want %+v", i, got, w.u8)
		}
		if w.topicRange != (document.Range{}) {
			if got := d.Lines.Range(ref.TopicSpan, document.UTF16); got != w.topicRange {
				t.Errorf("ref %d topic range %+v, want %+v", i, got, w.topicRange)
			}
		}
		for _, enc := range []document.Encoding{document.UTF16, document.UTF8, document.UTF32} {
			for _, off := range []int{ref.Span.Start, ref.Span.End} {
				back, err := d.Lines.Offset(d.Lines.Position(off, enc), enc)
				if err != nil || back != off {
					t.Errorf("ref %d %s offset %d round-trips to %d, %v", i, enc, off, back, err)
				}
			}
		}
	}
	if refs[3].Section != "Security Issues" {
		t.Errorf("last section %q", refs[3].Section)
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	text := "python:a python:b,python:c"
	d := document.Parse("x.md", []byte(text))
	l := ScanList(d, testOpts())
	if l.Len() != 3 {
		t.Fatalf("refs = %d", l.Len())
	}
	tests := []struct {
		off   int
		topic string
		ok    bool
	}{
		{0, "a", true}, {3, "a", true}, {8, "a", true}, {9, "b", true},
		{17, "b", true}, {18, "c", true}, {len(text), "c", true}, {-1, "", false},
	}
	for _, tc := range tests {
		r, ok := l.Find(tc.off)
		if ok != tc.ok || r.Topic != tc.topic {
			t.Errorf("Find(%d) = %q, %v; want %q, %v", tc.off, r.Topic, ok, tc.topic, tc.ok)
		}
	}
	if _, ok := (List{}).Find(0); ok {
		t.Error("Find on no refs found one")
	}
	d = document.Parse("x.md", []byte("text python:a then"))
	if _, ok := ScanList(d, testOpts()).Find(2); ok {
		t.Error("Find before any reference found one")
	}
}

func TestFormAndWhereNames(t *testing.T) {
	t.Parallel()
	var forms, wheres []string
	for f := KeyForm; f <= PathForm; f++ {
		forms = append(forms, f.String())
	}
	for w := Prose; w <= Table; w++ {
		wheres = append(wheres, w.String())
	}
	if got := strings.Join(forms, ","); got != "key,call,id,domain,path" {
		t.Errorf("forms %s", got)
	}
	if got := strings.Join(wheres, ","); got != "prose,inline-code,link,fence,frontmatter,table" {
		t.Errorf("wheres %s", got)
	}
}

func TestScanSizeHint(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("---\ncontext: [python, security:secure_coding]\n---\n\n")
	for i := range 50 {
		fmt.Fprintf(&b, "Step %d: python:fastapi_patterns#Errors, `security:secure_coding` and [notes](../context/python/t%d.md).\n", i, i)
	}
	doc := document.Parse("/ws/commands/big.md", []byte(b.String()))
	want := scan(doc, testOpts())
	if len(want) < 150 {
		t.Fatalf("the document holds %d references, want at least 150", len(want))
	}
	for _, hint := range []int{1, len(want) - 10, len(want), len(want) + 1, 10 * len(want)} {
		opts := testOpts()
		opts.SizeHint = hint
		got := scan(doc, opts)
		if len(got) != len(want) {
			t.Fatalf("hint %d: %d references, want %d", hint, len(got), len(want))
		}
		for i := range got {
			if show(doc, got[i]) != show(doc, want[i]) || got[i].Span != want[i].Span {
				t.Errorf("hint %d: reference %d is %s, want %s", hint, i, show(doc, got[i]), show(doc, want[i]))
			}
		}
	}
}

func TestBareNamesOption(t *testing.T) {
	t.Parallel()
	const text = "# Index\n\n### 📁 **file_formats.md**\n\nLoad common_issues.md first, then `x.md`.\n\nSee www.example.md and https://a.b/c.md.\n"
	tests := []struct {
		bare bool
		want []string
	}{
		{false, []string{`path/inline-code "x.md" p="x.md"`}},
		{true, []string{
			`path/prose "file_formats.md" p="file_formats.md"`,
			`path/prose "common_issues.md" p="common_issues.md"`,
			`path/inline-code "x.md" p="x.md"`,
		}},
	}
	for _, tc := range tests {
		opts := testOpts()
		opts.BareNames = tc.bare
		_, got := scanText(t, text, opts)
		if !slices.Equal(got, tc.want) {
			t.Errorf("BareNames=%v:\n got  %q\n want %q", tc.bare, got, tc.want)
		}
	}
}

func TestTemplatesAreNotReferences(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"getReference(\"{domain}\", \"{topic}\")",
		"getReference(\"python\", \"<topic>\")",
		"Load python:{topic} now.",
		"Load python:<topic_name> and {domain}:fastapi_patterns.",
		"---\ncontext: [\"{domain}/index\", \"<language>\"]\n---\nBody.\n",
	} {
		_, got := scanText(t, src, testOpts())
		for _, r := range got {
			t.Errorf("%q: %s is a template, not a reference", src, r)
		}
	}
	// A real reference next to a template is kept.
	_, got := scanText(t, "Load python:{topic}, then python:fastapi_patterns.", testOpts())
	if want := []string{`key/prose "python:fastapi_patterns" d="python" t="fastapi_patterns"`}; !slices.Equal(got, want) {
		t.Errorf("refs = %q, want %q", got, want)
	}
}

func TestForgeSkillContext(t *testing.T) {
	t.Parallel()
	src := "---\nname: deps\ncontext:\n  primary: [python]\n  topics: [dependency_management, security/secrets, venvs.md]\n---\nBody.\n"
	_, got := scanText(t, src, testOpts())
	want := []string{
		`domain/frontmatter "python" d="python" field="context"`,
		`id/frontmatter "dependency_management" d="python" t="dependency_management" field="context"`,
		`id/frontmatter "security/secrets" d="security" t="secrets" field="context"`,
		`id/frontmatter "venvs.md" d="python" t="venvs" field="context"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("refs:\n got  %q\n want %q", got, want)
	}
	// With two primary domains a bare topic's domain is unknown.
	if _, got := scanText(t, "---\ncontext:\n  primary: [python, security]\n  topics: [x]\n---\n", testOpts()); len(got) != 2 {
		t.Errorf("two primaries: refs = %q", got)
	}
}

// A frontmatter field holds references only in the kinds of file that
// give it that meaning: "context: fork" is Claude Code's skill field.
func TestFieldsFollowTheFileKind(t *testing.T) {
	t.Parallel()
	const src = "---\ncontext: fork\ncrossDomainTriggers: [security]\nindexedFiles:\n  - {id: python/x, path: x.md}\n---\nBody.\n"
	for _, tc := range []struct {
		name   string
		fields Fields
		want   int
	}{
		{"topic", TopicFields, 4},
		{"command", CommandFields, 1},
		{"skill", SkillFields, 0},
		{"plain markdown", 0, 0},
	} {
		opts := testOpts()
		opts.Fields = tc.fields
		if _, got := scanText(t, src, opts); len(got) != tc.want {
			t.Errorf("%s: refs = %q, want %d", tc.name, got, tc.want)
		}
	}
	// A Forge skill's context mapping is a reference in a skill.
	opts := testOpts()
	opts.Fields = SkillFields
	if _, got := scanText(t, "---\ncontext:\n  primary: [python]\n---\n", opts); len(got) != 1 {
		t.Errorf("a skill's context mapping: refs = %q, want the domain", got)
	}
}
