//go:build unix

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// sharedTopic is a topic's text with the given id and domain.
func sharedTopic(id, domain string) string {
	return fmt.Sprintf("---\nid: %s\ndomain: %s\ntitle: T\ntype: reference\nloadingStrategy: onDemand\nestimatedTokens: 5\n---\n\n# T\n\nText.\n", id, domain)
}

// TestFixSettlesOnSharedFiles runs --fix twice on trees where one file is
// a topic of two domains, through symbolic or hard links: the first run
// fixes it once or leaves it and says why, the second writes nothing.
func TestFixSettlesOnSharedFiles(t *testing.T) {
	t.Parallel()
	other := entry{text: sharedTopic("b/u", "b")}
	tests := []struct {
		name  string
		tree  map[string]entry
		fixed map[string]string // rel -> text after the first run; nil: nothing written
		left  string            // what the first run says it leaves, "" for nothing
	}{{
		name: "links from two domains to a file outside the context roots",
		tree: map[string]entry{
			".shared/t.md":   {text: sharedTopic("c/t", "c")},
			"context/a/t.md": {link: "../../.shared/t.md"},
			"context/b/t.md": {link: "../../.shared/t.md"},
			"context/b/u.md": other,
		},
		left: ".shared/t.md left as it was: the fixes of its links context/a/t.md and context/b/t.md disagree",
	}, {
		name: "links from two domains, the file right for one of them",
		tree: map[string]entry{
			".shared/t.md":   {text: sharedTopic("a/t", "a")},
			"context/a/t.md": {link: "../../.shared/t.md"},
			"context/b/t.md": {link: "../../.shared/t.md"},
			"context/b/u.md": other,
		},
		left: ".shared/t.md left as it was",
	}, {
		name: "a topic of one domain linked into another",
		tree: map[string]entry{
			"context/a/t.md": {text: sharedTopic("c/t", "c")},
			"context/b/t.md": {link: "../a/t.md"},
			"context/b/u.md": other,
		},
		fixed: map[string]string{"context/a/t.md": sharedTopic("a/t", "a")},
	}, {
		name: "a hard link in two domains",
		tree: map[string]entry{
			"context/a/t.md": {text: sharedTopic("a/t", "a")},
			"context/b/t.md": {hard: "context/a/t.md"},
			"context/b/u.md": other,
		},
		left: "context/b/t.md left as it was: it has 2 hard links",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			buildTree(t, dir, tc.tree)
			before := readTree(t, dir)
			_, errOut, err := runCLI(t, "check", dir, "--no-cache", "--fix")
			if code := exitCode(err); code > 1 {
				t.Fatalf("first --fix: exit %d (%v)\n%s", code, err, errOut)
			}
			if tc.left != "" && !strings.Contains(errOut, tc.left) {
				t.Errorf("first --fix does not say %q:\n%s", tc.left, errOut)
			}
			if strings.Contains(errOut, "settle") {
				t.Errorf("first --fix does not settle:\n%s", errOut)
			}
			want := before
			if tc.fixed != nil {
				want = map[string]entry{}
				for rel, e := range before {
					if text, ok := tc.fixed[rel]; ok {
						e.text = text
					}
					want[rel] = e
				}
			}
			after := readTree(t, dir)
			sameTrees(t, "after the first --fix", want, after)
			_, errOut, err = runCLI(t, "check", dir, "--no-cache", "--fix")
			if code := exitCode(err); code > 1 || strings.Contains(errOut, "fixed") || strings.Contains(errOut, "settle") {
				t.Errorf("second --fix: exit %d, stderr:\n%s", code, errOut)
			}
			sameTrees(t, "after the second --fix", after, readTree(t, dir))
			for rel, e := range tc.tree {
				if e.hard == "" {
					continue
				}
				var st syscall.Stat_t
				if err := syscall.Stat(filepath.Join(dir, rel), &st); err != nil || st.Nlink != 2 {
					t.Errorf("%s has %d links (%v), want 2", rel, st.Nlink, err)
				}
			}
		})
	}
}
