package document

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ctxls/ctxls/providers/library/libgen"
)

// subsetCases are frontmatter texts around the edges of the subset: the
// subset parser must either give yaml.v3's tree or give up.
var subsetCases = []string{
	"id: a/b\ntitle: T\n",
	"id: a/b\ntitle: \"Quoted: title\"\nother: 'it''s'\n",
	"estimatedTokens: 600\nversion: 1.3.0\nlastUpdated: 2026-08-12\nbad: 2026-13-45\nn: -5\nf: 1.5\ng: .5\nh: 1e3\ni: 0x1F\nj: 0o17\nk: 0b101\nl: 1_000\nm: ~\nnull1: null\nb: true\nc: False\nd: yes\ne: .inf\nt: 2001-12-14t21:59:43.10-05:00\n",
	"sections:\n  - name: Overview\n    estimatedTokens: 75\n    keywords: [async, ml00]\n  - name: Common Issues\n    estimatedTokens: 75\n    keywords: [cache, ml00]\ntags: [ml00, async, forms]\n",
	"tags:\n- a\n- b\nnext: x\n",
	"tags:\n  - a\n  -   b\n",
	"nested:\n  inner: x\n  deeper:\n    leaf: 1\ntop: y\n",
	"empty: []\nlist: [ \"a b\" , 'c' ,d ]\n",
	"detectionTriggers: [\"import async_forms_0052\", \"ml00.async(\"]\n",
	"title: Café ☕ ok\nid: x/é\n",
	"indexedFiles:\n  - id: a/b\n    path: ./b.md\n    type: pattern\n  - {id: a/c}\n",
	"url: https://example.com/a#frag\ncsharp: C#\n",
	"key:\n",
	"key:\nnext: 1\n",
	"a: b: c\n",
	"a: [x, y\n",
	"a: \"unterminated\n",
	"a: \"esc\\n\"\n",
	"a: |\n  block\n",
	"a: >\n  folded\n",
	"a: plain\n  continued\n",
	"a: x # comment\n",
	"# comment\na: x\n",
	"a: &anchor x\nb: *anchor\n",
	"a: !tag x\n",
	"  indented: root\n",
	"- a\n- b\n",
	"a: x\n b: y\n",
	"a:\n  - x\n   - y\n",
	"a:\n  - x\n  b: y\n",
	"a:\n  b: x\n c: y\n",
	"dup: 1\ndup: 2\n",
	"<<: x\n",
	"a: <<\n",
	"a: [x, ]\n",
	"a: [x: y]\n",
	"a: [[x]]\n",
	"a: {b: c}\n",
	"a: - b\n",
	"a:\t b\n",
	"a: b\r\n",
	"? a\n: b\n",
	"a: '\n",
	"a: 'x' y\n",
	"a: \"x\" y\n",
	"\"q\": x\n",
	"a: x\n\n\n  \nb: y\n",
	"a: -\n",
	"a: -x\n",
	"a: ---\n",
	"a: @x\n",
	"a: `x`\n",
	"a: %x\n",
	"a: x:\n",
	"a: x:y\n",
	"a:b: c\n",
	"a: [a\"b]\n",
	"a: \u0085x\n",
	"a: \u00a0x\n",
	"a: x\u2028y\n",
	"a: \ufeffx\n",
	"a: 12345678901234567890123\n",
	"a: 18446744073709551615\n",
	"a: -0b101\n",
	"a: +12\n",
	"a: 1.\n",
	"a: 1e\n",
	"a: 0x\n",
	"a: 2026-1-2\n",
	"a: 2026-01-02 10:00:00\n",
	strings.Repeat("k", 1100) + ": v\n",
	"a: 0\nk" + strings.Repeat(" ", 1100) + ": v\n",
	"m: {k" + strings.Repeat(" ", 1100) + ": v}\n",
	"seq:\n  - - nested\n",
	"seq:\n  -\n    a: b\n",
	"seq:\n  - [a, b]\n  - \"q\"\n  - plain\n",
	"a:\n- x\n-\n",
	"m: {id: a/b, path: b.md, type: reference}\nn: {}\n",
	"seq:\n  - {id: a/b, path: \"b c.md\"}\n  - {id: 'x', n: 3}\n",
	"m: {a: b, c}\n",
	"m: {a:b}\n",
	"m: {\"a\": b}\n",
	"m: {a: [b]}\n",
	"m: {a: b,}\n",
	"m: {a: b} x\n",
	"0: {0: 0?}\n",
	"... : 0",         // a document end marker, not a key
	"a: 1\n--- : 2\n", // a document start marker
}

func TestYAMLSubsetMatchesYAMLv3(t *testing.T) {
	t.Parallel()
	accepted := 0
	for i, text := range subsetCases {
		// Serial: the subtests count into accepted, checked after the loop.
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if compareWithYAMLv3(t, []byte(text)) {
				accepted++
			}
		})
	}
	// The cases include the common forms: the subset must not give up on
	// all of them.
	if accepted < 15 {
		t.Errorf("subset parsed only %d of %d cases", accepted, len(subsetCases))
	}
}

// TestYAMLSubsetOnLibraries compares the subset parser with yaml.v3 on the
// frontmatter of every markdown file in the repository and of a generated
// library, all of which it must parse itself.
func TestYAMLSubsetOnLibraries(t *testing.T) {
	t.Parallel()
	gen := t.TempDir()
	if _, err := libgen.Generate(gen, libgen.Options{Topics: 200, Domains: 10}); err != nil {
		t.Fatal(err)
	}
	var given, parsed int
	for _, dir := range []string{gen, filepath.Join("..", "..")} {
		err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() && (e.Name() == "node_modules" || strings.HasPrefix(e.Name(), ".") && p != dir) {
				return filepath.SkipDir
			}
			if e.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			d := Parse(p, data)
			if d.Frontmatter == nil || d.Frontmatter.Content.Len() == 0 {
				return nil
			}
			given++
			raw := d.Slice(d.Frontmatter.Content)
			if compareWithYAMLv3(t, raw) {
				parsed++
			} else if strings.HasPrefix(p, gen) {
				t.Errorf("%s: the subset parser gave up on generated frontmatter:\n%s", p, raw)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("subset parsed %d of %d frontmatter blocks", parsed, given)
	if given < 200 {
		t.Errorf("only %d frontmatter blocks found", given)
	}
}

func FuzzYAMLSubset(f *testing.F) {
	for _, c := range subsetCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		compareWithYAMLv3(t, []byte(text))
	})
}

// compareWithYAMLv3 fails t when the subset parser accepts raw but builds a
// different tree than yaml.v3, and reports whether it accepted raw.
func compareWithYAMLv3(t *testing.T, raw []byte) bool {
	t.Helper()
	got, ok := parseYAMLSubset(raw)
	if !ok {
		return false
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Errorf("subset parsed text that yaml.v3 rejects (%v):\n%s", err, raw)
		return true
	}
	if len(doc.Content) == 0 {
		t.Errorf("subset parsed text that yaml.v3 finds empty:\n%s", raw)
		return true
	}
	if diff := nodeDiff(doc.Content[0], got, "root"); diff != "" {
		t.Errorf("subset tree differs from yaml.v3 at %s:\n%s", diff, raw)
	}
	return true
}

// nodeDiff names the first difference between two trees, or returns "".
func nodeDiff(want, got *yaml.Node, at string) string {
	if (want == nil) != (got == nil) {
		return at + ": nil"
	}
	if want == nil {
		return ""
	}
	type fields struct {
		kind               yaml.Kind
		style              yaml.Style
		tag, value, anchor string
		head, line, foot   string
		lineNum, column    int
		alias              bool
	}
	of := func(n *yaml.Node) fields {
		return fields{n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.HeadComment, n.LineComment, n.FootComment, n.Line, n.Column, n.Alias != nil}
	}
	if w, g := of(want), of(got); w != g {
		return fmt.Sprintf("%s: want %+v, got %+v", at, w, g)
	}
	if len(want.Content) != len(got.Content) {
		return fmt.Sprintf("%s: %d children, want %d", at, len(got.Content), len(want.Content))
	}
	for i := range want.Content {
		if d := nodeDiff(want.Content[i], got.Content[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
			return d
		}
	}
	return ""
}
