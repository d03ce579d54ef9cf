package library

import (
	"slices"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
)

// Regression tests for findings on a real context library (numbered
// headings with anchors, a domain named like the commands folder, paths
// one level too deep, bare file names in an index). Each case is a minimal
// reproduction of what the library wrote.

func TestNumberedHeadingsWithAnchors(t *testing.T) {
	t.Parallel()
	src := topicFM("angular/common_issues", "always", 10,
		"sections:\n  - name: Memory Leaks\n  - name: Lists & `*ngFor`\n  - name: 'Step 2: Load Always Files'\n  - name: What to Check") +
		"# Common\n\n## 1. Memory Leaks {#memory-leaks}\n\nA.\n\n## 2. Lists & `*ngFor` {#trackby}\n\nB.\n\n## Step 2: Load \"Always\" Files\n\nC.\n\n## 3. What to Check (by Area)\n\nD.\n"
	l := loadTree(t, map[string]string{
		"context/angular/common_issues.md": src,
		"commands/review.md":               "# Review\n\nSee `angular:common_issues#memory-leaks`, `angular:common_issues#Memory Leaks`, `angular:common_issues#trackby` and `angular:common_issues#1. Memory Leaks`.\n",
	})
	tp, _ := l.Snapshot().Topic("angular/common_issues")
	s, ok := tp.Section("memory leaks")
	if !ok || s.Name != "1. Memory Leaks" || s.Anchor != "memory-leaks" {
		t.Fatalf("section = %+v, %v", s, ok)
	}
	got := slices.DeleteFunc(diagsOf(t, l, "context/angular/common_issues.md"), func(d wantDiag) bool { return d.Code == CodeTokenDrift })
	// Only the frontmatter name that really differs from its heading is
	// reported, and the suggestion drops the outline number.
	if want := []wantDiag{{codeSectionMissing, diag.Warning, "What to Check"}}; !slices.Equal(got, want) {
		t.Errorf("diagnostics = %v, want %v", got, want)
	}
	for _, d := range l.Snapshot().Diagnose(tp.Path) {
		if d.Code == codeSectionMissing && (len(d.Fixes) == 0 || candidates(d)[0] != "What to Check (by Area)") {
			t.Errorf("fixes = %+v", d.Fixes)
		}
	}
	wantDiags(t, l, "commands/review.md", "references by anchor and unnumbered name")
}

func TestWorkspaceRelativePathBesideRoot(t *testing.T) {
	t.Parallel()
	// The context root has a domain named "commands", and so has the
	// workspace a commands folder: "commands/analyze.md" written in a
	// command means the folder.
	l := loadTree(t, map[string]string{
		"context/commands/build_patterns.md": "---\ndomain: commands\n---\n# Build\n",
		"commands/build.md":                  "# Build\n",
		"commands/_docs/README.md":           "# Docs\n\n- `commands/analyze.md` → `/analyze`\n- `commands/build.md`\n",
		"context/commands/index.md":          "# Index\n\n- `build_patterns.md`\n- see `commands/build_patterns.md`\n",
	})
	wantDiags(t, l, "commands/_docs/README.md", "workspace-relative paths")
	// Inside the root the root-relative reading still holds.
	f, _ := l.Snapshot().File(l.Snapshot().Dir() + "/context/commands/index.md")
	for _, r := range f.Refs.All() {
		if tg := l.Snapshot().Resolve(f, r); tg.Topic == nil || tg.Topic.ID != "commands/build_patterns" {
			t.Errorf("%s resolved to %+v", r.Path, tg)
		}
	}
}

func TestPathOneLevelTooDeep(t *testing.T) {
	t.Parallel()
	l := loadTree(t, map[string]string{
		"context/security/security_guidelines.md": "---\ndomain: security\n---\n# Security\n",
		"context/angular/index.md": "# Angular\n\n| Security | `../../security/security_guidelines.md` |\n\n" +
			"- Memory: `../../memory/commands/index.md`\n- Skill: `../../skills/angular/SKILL.md`\n- Missing: `../../security/nothing_here.md`\n",
	})
	if !wantDiags(t, l, "context/angular/index.md", "paths one level too deep",
		wantDiag{CodeUnresolved, diag.Error, "../../security/security_guidelines.md"},
		wantDiag{codeIndexMissing, diag.Warning, "../../security/nothing_here.md"}) {
		t.FailNow()
	}
	d := l.Snapshot().Diagnose(l.Snapshot().Dir() + "/context/angular/index.md")[0]
	if !slices.Equal(candidates(d), []string{"../security/security_guidelines.md"}) {
		t.Errorf("fixes = %+v", d.Fixes)
	}
	// Removing the topic changes the diagnostic, so the index depends on it.
	res, err := l.Apply(t.Context(), []Change{{Path: "context/security/security_guidelines.md", Removed: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Affected, l.Snapshot().Dir()+"/context/angular/index.md") {
		t.Errorf("Affected = %v lacks the index", res.Affected)
	}
}

func TestBareNamesInIndexProse(t *testing.T) {
	t.Parallel()
	l := loadTree(t, map[string]string{
		"context/schema/index.md":           "# Schema\n\n### 📁 **file_formats.md**\n\n### **common_patterns.md**\n\nAlso see **ghost.md** here.\n",
		"context/schema/file_formats.md":    "---\ndomain: schema\n---\n# Files\n",
		"context/schema/common_patterns.md": "# Common\n",
		// Outside an index a bare name in prose is just text.
		"context/schema/notes.md": "# Notes\n\nWrite ghost.md and **phantom.md** later.\n",
	})
	wantDiags(t, l, "context/schema/index.md", "only notes.md unlisted, ghost.md missing",
		wantDiag{codeIndexUnlisted, diag.Warning, "Schema"},
		wantDiag{codeIndexMissing, diag.Warning, "ghost.md"})
	wantDiags(t, l, "context/schema/notes.md", "bare names outside an index")
}

func TestRootFileFrontmatterIDAlias(t *testing.T) {
	t.Parallel()
	l := loadTree(t, map[string]string{
		"context/cross_domain.md":            "---\nid: engineering/cross_domain\ndomain: engineering\ntitle: Cross\n---\n# Cross\n\n## Trigger Matrix\n",
		"context/engineering/index.md":       "# Engineering\n",
		"commands/review.md":                 "# Review\n\nSee engineering:cross_domain#Trigger Matrix and `getReference(\"engineering\", \"cross_domain\")`.\n",
		"context/engineering/code_review.md": "# Code review\n",
		"context/python/flask_patterns.md":   "# Flask\n",
		"context/python/index.md":            "# Python\n\n- `flask_patterns.md`\n",
	})
	wantDiags(t, l, "commands/review.md", "references by the declared id")
	wantDiags(t, l, "context/cross_domain.md", "root file with a domain id")
	a, ok1 := l.Snapshot().Topic("engineering/cross_domain")
	b, ok2 := l.Snapshot().Topic("cross_domain")
	if !ok1 || !ok2 || a != b {
		t.Errorf("Topic by alias %v %v", ok1, ok2)
	}
	if got := len(l.Snapshot().References("cross_domain")); got != 2 {
		t.Errorf("References = %d, want 2", got)
	}
	// Renaming the declared id drops the alias.
	res, err := l.Apply(t.Context(), []Change{{Path: "context/cross_domain.md", Content: []byte("---\nid: other/cross_domain\n---\n# Cross\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Affected, l.Snapshot().Dir()+"/commands/review.md") {
		t.Errorf("Affected = %v", res.Affected)
	}
	if got := codes(diagsOf(t, l, "commands/review.md")); len(got) != 2 {
		t.Errorf("after the id changed: %v", got)
	}
}

// A topic's section is named by Marksman's and VS Code's anchor too,
// whose hyphens GitHub doubles where the heading has a " + ".
func TestSectionByCollapsedAnchor(t *testing.T) {
	t.Parallel()
	l := loadTree(t, map[string]string{
		"context/web/deploy.md": topicFM("web/deploy", "reference", 10) + "# Deploy\n\n## Browser WebRTC + server sideband\n\nA.\n",
		"commands/ship.md":      "# Ship\n\nSee `web:deploy#browser-webrtc-server-sideband`, `web:deploy#browser-webrtc--server-sideband` and `web:deploy#browser-webrtc-server`.\n",
	})
	wantDiags(t, l, "commands/ship.md", "anchors of either rule", wantDiag{codeUnknownSection, diag.Error, "browser-webrtc-server"})
}
