package mdlink

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/document"
)

func TestSlugs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ heading, github, marksman string }{
		{"Browser WebRTC + server sideband", "browser-webrtc--server-sideband", "browser-webrtc-server-sideband"},
		{"What's new in 2.0?", "whats-new-in-20", "whats-new-in-20"},
		{"`ctxls check` flags", "ctxls-check-flags", "ctxls-check-flags"},
		{"snake_case_name", "snake_case_name", "snakecasename"},
		{"Ünïcode Straße", "ünïcode-straße", "ünïcode-straße"},
	} {
		if got := GitHubSlug(tc.heading); got != tc.github {
			t.Errorf("GitHubSlug(%q) = %q, want %q", tc.heading, got, tc.github)
		}
		if got := marksmanSlug(tc.heading); got != tc.marksman {
			t.Errorf("marksmanSlug(%q) = %q, want %q", tc.heading, got, tc.marksman)
		}
	}
}

func TestDocAnchors(t *testing.T) {
	t.Parallel()
	src := "# Guide\n\n## Setup\n\n## Setup\n\n## Browser WebRTC + server sideband\n\n" +
		"## Install {#custom-id}\n\nSetext Title\n============\n\n<a id=\"legacy\"></a>\n\n" +
		"## [Linked](x.md) heading :rocket:\n\n```\n## Not a heading\n```\n"
	a := DocAnchors(document.Parse("d.md", []byte(src)))
	for _, f := range []string{"guide", "setup", "setup-1", "browser-webrtc--server-sideband", "browser-webrtc-server-sideband",
		"Browser-WebRTC-server-sideband", "custom-id", "setext-title", "legacy", "linked-heading", "linked-heading-rocket"} {
		if !a.Has(f) {
			t.Errorf("no anchor %q among %v", f, a)
		}
	}
	for _, f := range []string{"setup-2", "not-a-heading", "install-custom-id-x"} {
		if a.Has(f) {
			t.Errorf("anchor %q should not exist", f)
		}
	}
}

func TestLinks(t *testing.T) {
	t.Parallel()
	src := "# T\n\nSee [a](a.md), ![img](img/x.png \"title\"), [b](<b c.md#Part>), [d](d%20e.md) and [web](https://x.io).\n" +
		"Code `[no](no.md)` and <!-- [no](no2.md) --> and [t]({name}.md).\n\n" +
		"```\n[no](fence.md)\n```\n\n    [no](indented.md)\n\n" +
		"- item\n\n    [yes](in-list.md)\n\n" +
		"[ref]: ref.md\n[^note]: a footnote, [x](fn.md)\n[self](#top)\n"
	doc := document.Parse("d.md", []byte(src))
	var got []string
	for _, l := range Links(doc) {
		got = append(got, l.Path+"#"+l.Fragment)
	}
	want := []string{"a.md#", "img/x.png#", "b c.md#Part", "d e.md#", "in-list.md#", "ref.md#", "fn.md#", "#top"}
	if !slices.Equal(got, want) {
		t.Errorf("links:\n got  %q\n want %q", got, want)
	}
}

// tree is a Tree over a directory on disk.
type tree struct{ root string }

func (tr tree) Stat(p string) (bool, bool, bool) {
	if !strings.HasPrefix(p, tr.root) {
		return false, false, false
	}
	info, err := os.Stat(p)
	return err == nil, err == nil && info.IsDir(), true
}

func (tr tree) Anchors(p string) (Anchors, bool) {
	text, err := os.ReadFile(p)
	if err != nil || len(text) == 0 {
		return nil, false
	}
	return DocAnchors(document.Parse(p, text)), true
}

func (tr tree) Generated(p string) bool { return strings.Contains(p, "/dist/") }

func TestCheck(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, text string) { testtree.WriteAt(t, root, rel, text) }
	write("docs/deploy.md", "# D\n\n## Browser WebRTC + server sideband\n")
	write("docs/empty.md", "")
	write("src/main.rs", "")
	write("docs/guide/index.md", "# Guide\n")
	write("dist/site.md", "# Site\n")
	src := "# Usage\n\n## Here\n\n" +
		"[ok](deploy.md#browser-webrtc-server-sideband) [ok](deploy.md#browser-webrtc--server-sideband) [ok](../src/main.rs#L10)\n" +
		"[ok](../src) [ok](guide) [ok](empty.md#anything) [ok](#here) [ok](../../outside.md) [ok](deploy.md#L3)\n" +
		"[bad](deploy.md#nothing) [bad](missing.md) [bad](#nowhere) [bad](img/x.png)\n" +
		"[unsure](../dist/api.md) [unsure](setup) [unsure](../dist/site.md#nothing) [ok](/docs/none.md) [ok]([https://x.io])\n"
	write("docs/usage.md", src)
	doc := document.Parse(filepath.Join(root, "docs/usage.md"), []byte(src))
	var got []string
	for _, p := range Check(doc, doc.Path, filepath.Join(root), tree{root}) {
		kind := "file"
		if p.Anchor {
			kind = "anchor"
		}
		if p.Uncertain {
			kind += "?"
		}
		got = append(got, kind+" "+p.Link.Dest)
	}
	want := []string{"anchor deploy.md#nothing", "file missing.md", "anchor #nowhere", "file img/x.png",
		"file? ../dist/api.md", "file? setup", "anchor? ../dist/site.md#nothing"}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n got  %q\n want %q", got, want)
	}
}
