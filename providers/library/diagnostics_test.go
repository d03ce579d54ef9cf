package library

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
)

// base is a small library the diagnostic cases add to.
var base = map[string]string{
	"context/python/index.md": topicFM("python/index", "index", 16) +
		"\n# Python\n\n- `django_patterns.md`\n- `fastapi_patterns.md`\n",
	"context/python/django_patterns.md": topicFM("python/django_patterns", "framework", 26) +
		"\n# Django Patterns\n\n## Security Issues\n\nEscape output; validate forms; never build SQL by string formatting in views or managers.\n",
	"context/python/fastapi_patterns.md": "# FastAPI Patterns\n\n## Dependencies\n\nUse Depends.\n",
	"context/security/secure_coding.md":  "# Secure Coding\n\n## Input Validation\n\nValidate.\n",
}

// with returns base with extra added, extra winning.
func with(extra map[string]string) map[string]string { return merged(base, extra) }

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		file  string
		want  []wantDiag
	}{
		{
			name:  "clean library",
			files: base,
			file:  "context/python/django_patterns.md",
			want:  nil,
		},
		{
			name:  "unresolved key form with did-you-mean",
			files: with(map[string]string{"commands/review.md": "# Review\n\nLoad python:django first.\n"}),
			file:  "commands/review.md",
			want:  []wantDiag{{CodeUnresolved, diag.Error, "django"}},
		},
		{
			name:  "unresolved call form and unknown domain",
			files: with(map[string]string{"commands/review.md": "# Review\n\n```js\ngetReference(\"pyton\", \"django_patterns\")\ngetConditionalContext(\"python\", \"flask\")\n```\n"}),
			file:  "commands/review.md",
			want:  []wantDiag{{CodeUnresolved, diag.Error, "pyton"}, {CodeUnresolved, diag.Error, "flask"}},
		},
		{
			name:  "unresolved id form in a context list",
			files: with(map[string]string{"commands/review.md": "---\ncontext:\n  - python\n  - python/djangoo\n  - rust\n---\n# Review\n"}),
			file:  "commands/review.md",
			want:  []wantDiag{{CodeUnresolved, diag.Error, "djangoo"}, {CodeUnresolved, diag.Error, "rust"}},
		},
		{
			name:  "unresolved path form",
			files: with(map[string]string{"commands/review.md": "# Review\n\nSee [secure](../context/security/secure_codin.md).\n"}),
			file:  "commands/review.md",
			want:  []wantDiag{{CodeUnresolved, diag.Error, "../context/security/secure_codin.md"}},
		},
		{
			name:  "unknown section",
			files: with(map[string]string{"commands/review.md": "# Review\n\nRead `python:django_patterns#Securty Issues`.\n"}),
			file:  "commands/review.md",
			want:  []wantDiag{{codeUnknownSection, diag.Error, "Securty Issues"}},
		},
		{
			name:  "resolved references of every form are silent",
			files: with(map[string]string{"commands/review.md": "---\ncontext: [python, python/django_patterns]\n---\n# Review\n\nUse python:django_patterns#Security Issues and `security:secure_coding`.\n\n```js\ngetReference(\"python\", \"fastapi_patterns\")\ngetDomainIndex(\"security\")\n```\n\nSee [x](../context/python/fastapi_patterns.md#dependencies) and context/security/secure_coding.md.\n"}),
			file:  "commands/review.md",
			want:  nil,
		},
		{
			name:  "frontmatter missing fields",
			files: with(map[string]string{"context/python/x.md": "---\nid: python/x\ntitle: X\n---\n# X\n"}),
			file:  "context/python/x.md",
			want:  []wantDiag{{CodeMissingField, diag.Warning, "---"}},
		},
		{
			name:  "frontmatter invalid values",
			files: with(map[string]string{"context/python/x.md": "---\nid: python/x\ndomain: python\ntitle: X\ntype: recipe\nestimatedTokens: lots\nloadingStrategy: sometimes\nversion: one\nlastUpdated: yesterday\ntags: python\n---\n# X\n"}),
			file:  "context/python/x.md",
			want: []wantDiag{
				{codeInvalidValue, diag.Warning, "recipe"},
				{codeInvalidValue, diag.Warning, "lots"},
				{codeInvalidValue, diag.Warning, "sometimes"},
				{codeInvalidValue, diag.Warning, "one"},
				{codeInvalidValue, diag.Warning, "yesterday"},
				{codeInvalidValue, diag.Warning, "python"},
			},
		},
		{
			name:  "frontmatter id and domain mismatch",
			files: with(map[string]string{"context/python/x.md": strings.Replace(strings.Replace(topicFM("python/x", "reference", 3), "id: python/x", "id: python/y", 1), "domain: python", "domain: snake", 1) + "# X\n"}),
			file:  "context/python/x.md",
			want:  []wantDiag{{codeIDMismatch, diag.Warning, "python/y"}, {codeIDMismatch, diag.Warning, "snake"}},
		},
		{
			name:  "frontmatter parse error",
			files: with(map[string]string{"context/python/x.md": "---\nid: python/x\ntitle: x\nfoo: : bar\n---\n# X\n"}),
			file:  "context/python/x.md",
			want:  []wantDiag{{CodeParseError, diag.Error, "foo: : bar"}},
		},
		{
			name: "section named in frontmatter without a heading",
			files: with(map[string]string{"context/python/x.md": topicFM("python/x", "reference", 3,
				"sections:\n  - name: Security Issue\n    estimatedTokens: 3\n") + "# X\n\n## Security Issues\n\nA.\n"}),
			file: "context/python/x.md",
			want: []wantDiag{{codeSectionMissing, diag.Warning, "Security Issue"}},
		},
		{
			name:  "token drift of the body",
			files: with(map[string]string{"context/python/x.md": topicFM("python/x", "reference", 5000) + "# X\n\nShort body.\n"}),
			file:  "context/python/x.md",
			want:  []wantDiag{{CodeTokenDrift, diag.Information, "5000"}},
		},
		{
			name: "token drift of a section",
			files: with(map[string]string{"context/python/x.md": topicFM("python/x", "reference", 300,
				"sections:\n  - name: Long\n    estimatedTokens: 20\n") + "# X\n\n## Long\n\n" + strings.Repeat("Many words make a long section here. ", 40) + "\n"}),
			file: "context/python/x.md",
			want: []wantDiag{{CodeTokenDrift, diag.Information, "20"}},
		},
		{
			// One report per file, at the first drifting number.
			name: "token drift of the body and of two sections",
			files: with(map[string]string{"context/python/x.md": topicFM("python/x", "reference", 5000,
				"sections:\n  - name: Long\n    estimatedTokens: 20\n  - name: Other\n    estimatedTokens: 900\n") +
				"# X\n\n## Long\n\n" + strings.Repeat("Many words make a long section here. ", 40) + "\n\n## Other\n\nShort.\n"}),
			file: "context/python/x.md",
			want: []wantDiag{{CodeTokenDrift, diag.Information, "5000"}},
		},
		{
			name: "index lists a missing topic and misses one",
			files: with(map[string]string{
				"context/python/index.md": topicFM("python/index", "index", 16,
					"indexedFiles:\n  - {id: python/django_patterns, path: django_patterns.md}\n  - {id: python/ghost, path: ghost.md}") +
					"\n# Python\n\n- `django_patterns.md`\n- `phantom.md`\n",
			}),
			file: "context/python/index.md",
			want: []wantDiag{
				{codeIndexMissing, diag.Warning, "ghost"},
				{codeIndexUnlisted, diag.Warning, "Python"},
				{codeIndexMissing, diag.Warning, "phantom.md"},
			},
		},
		{
			// One report per missing topic, at its first mention, whatever
			// forms the later mentions take.
			name: "index mentions a missing topic several times",
			files: with(map[string]string{
				"context/python/index.md": topicFM("python/index", "index", 45,
					"indexedFiles:\n  - {id: python/django_patterns, path: django_patterns.md}\n  - {id: python/ghost, path: ghost.md}") +
					"\n# Python\n\n- `django_patterns.md`\n- `fastapi_patterns.md`\n- `ghost.md`, see [ghost](ghost.md)\n" +
					"- [phantom](./phantom.md), then `phantom.md`\n",
			}),
			file: "context/python/index.md",
			want: []wantDiag{
				{codeIndexMissing, diag.Warning, "ghost"},
				{codeIndexMissing, diag.Warning, "./phantom.md"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := loadTree(t, tc.files)
			got := diagsOf(t, l, tc.file)
			if !slices.Equal(got, tc.want) {
				t.Errorf("diagnostics of %s:\n got  %v\n want %v", tc.file, got, tc.want)
				for _, d := range l.Snapshot().Diagnose(filepath.Join(l.Snapshot().Dir(), tc.file)) {
					t.Logf("  %s %s", d.Code, d.Message)
				}
			}
		})
	}
}

func TestDidYouMean(t *testing.T) {
	t.Parallel()
	files := with(map[string]string{
		"commands/review.md": "# Review\n\npython:django\npython:fastapi_pattern\npython:djangoo\n`python:django_patterns#Security Isues`\n",
	})
	l := loadTree(t, files)
	p := filepath.Join(l.Snapshot().Dir(), "commands/review.md")
	type want struct {
		code      string
		candidate string
	}
	wants := []want{
		{CodeUnresolved, "django_patterns"},
		{CodeUnresolved, "fastapi_patterns"},
		{CodeUnresolved, "django_patterns"},
		{codeUnknownSection, "Security Issues"},
	}
	ds := l.Snapshot().Diagnose(p)
	if len(ds) != len(wants) {
		t.Fatalf("got %d diagnostics, want %d: %+v", len(ds), len(wants), ds)
	}
	f, _ := l.Snapshot().File(p)
	text := string(docText(f.Doc))
	for i, w := range wants {
		d := ds[i]
		if c := candidates(d); d.Code != w.code || len(c) == 0 || c[0] != w.candidate {
			t.Fatalf("diagnostic %d = %s %+v, want %s with candidate %q", i, d.Code, d.Fixes, w.code, w.candidate)
		}
		if !strings.Contains(d.Message, "did you mean '"+w.candidate+"'") {
			t.Errorf("message %q lacks the candidate", d.Message)
		}
	}
	// Applying every fix (from the end, so spans stay valid) must leave
	// references that resolve.
	for i := len(ds) - 1; i >= 0; i-- {
		e := ds[i].Fixes[0].Edits[0]
		text = text[:e.Span.Start] + e.NewText + text[e.Span.End:]
	}
	if _, err := l.Apply(context.Background(), []Change{{Path: p, Content: []byte(text)}}); err != nil {
		t.Fatal(err)
	}
	if ds := l.Snapshot().Diagnose(p); len(ds) != 0 {
		t.Errorf("after applying the fixes, diagnostics = %+v\n%s", ds, text)
	}
}

func TestDriftThresholdConfigurable(t *testing.T) {
	t.Parallel()
	src := topicFM("python/x", "reference", 10) + "# X\n\n" + strings.Repeat("word ", 60) + "\n"
	files := with(map[string]string{"context/python/x.md": src})
	for _, tc := range []struct {
		threshold float64
		drift     bool
	}{{0.25, true}, {5, false}} {
		cfg := config.Default()
		cfg.DriftThreshold = tc.threshold
		l := load(t, testtree.New(t, files), cfg)
		got := slices.Contains(codes(diagsOf(t, l, "context/python/x.md")), CodeTokenDrift)
		if got != tc.drift {
			t.Errorf("threshold %v: drift reported %v, want %v", tc.threshold, got, tc.drift)
		}
	}
}

// TestMissingFileMessages checks that a path reference to a missing file
// says what is missing in the library's terms, not where the path leads.
func TestMissingFileMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line, want string
	}{
		{"link into a domain", "[x](../context/security/owasp_checklist.md)", "domain security has no topic file owasp_checklist.md"},
		{"path form into a domain", "`context/python/celery_patterns.md`", "domain python has no topic file celery_patterns.md"},
		{"link to a root file", "[x](../context/style_guide.md)", "context root context/ has no topic file style_guide.md"},
		{"key form", "python:celery", `domain python has no topic "celery"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := loadTree(t, with(map[string]string{"commands/c.md": "# C\n\n" + tc.line + "\n"}))
			ds := l.Snapshot().Diagnose(filepath.Join(l.Snapshot().Dir(), "commands", "c.md"))
			if len(ds) != 1 || ds[0].Message != tc.want {
				t.Errorf("diagnostics of %q = %+v, want one with message %q", tc.line, ds, tc.want)
			}
		})
	}
}

func TestDisabledCodesAreNotReported(t *testing.T) {
	t.Parallel()
	src := topicFM("python/x", "reference", 10) + "# X\n\n" + strings.Repeat("word ", 60) + "\nSee python:nothing_here.\n"
	files := with(map[string]string{"context/python/x.md": src})
	cfg := config.Default()
	cfg.Disable = []string{CodeTokenDrift}
	got := codes(diagsOf(t, load(t, testtree.New(t, files), cfg), "context/python/x.md"))
	if slices.Contains(got, CodeTokenDrift) || !slices.Contains(got, CodeUnresolved) {
		t.Errorf("codes with token-drift disabled = %v, want the unresolved reference only", got)
	}
}

// A Forge skill's context mapping names a primary domain and topics of it;
// each resolves like any reference, and a template is not one.
func TestForgeSkillContextResolves(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"context/python/dependency_management.md": topicFM("python/dependency_management", "reference", 3) + "# Deps\n\nA.\n",
		"skills/deps/SKILL.md": "---\nname: deps\ndescription: Manages dependencies.\ncontext:\n  primary: [python]\n  topics: [dependency_management, virtual_envs]\n---\n\n" +
			"Load python:{topic} as needed.\n",
	}
	l := loadTree(t, files)
	wantDiags(t, l, "skills/deps/SKILL.md", "a skill's references", wantDiag{CodeUnresolved, diag.Error, "virtual_envs"})
}

// A field means what the file's kind says: "context: fork" in a skill is
// Claude Code's field, and the same key in a command lists topics.
func TestSkillContextForkIsNoReference(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"context/python/fork.md":         topicFM("python/fork", "reference", 3) + "# Fork\n\nA.\n",
		".claude/skills/review/SKILL.md": "---\nname: review\ndescription: Reviews.\ncontext: fork\nagent: Explore\n---\n\nReview the change.\n",
		"skills/plain/SKILL.md":          "---\nname: plain\ndescription: Plain.\ncontext: fork\n---\n\nBody.\n",
		"commands/ship.md":               "---\ncontext: [forks]\n---\n# Ship\n",
	}
	l := loadTree(t, files)
	wantDiags(t, l, "skills/plain/SKILL.md", "a skill's context: fork")
	wantDiags(t, l, "commands/ship.md", "a command's context list", wantDiag{CodeUnresolved, diag.Error, "forks"})
}

// A preview diagnoses a document as the full index does, read from the
// files or from the index cache.
func TestPreviewDiagnose(t *testing.T) {
	t.Parallel()
	tree := merged(cacheTree, map[string]string{
		"context/python/dup.md":     "# Dup\n\nsee python:fastapi#Errors and python:fastapi#Nope\n",
		"context/cross_domain.md":   "---\nid: engineering/cross_domain\n---\n# Cross\n\n## Matrix\n\nx\n",
		"commands/review.md":        "# Review\n\nLoad engineering/cross_domain and python:dup and python:fastapi#Routing and `../context/python/missing.md`.\n",
		"context/python/skipped.md": "binary\x00data",
	})
	dir := testtree.New(t, tree)
	full := load(t, dir, nil)
	cacheDir := t.TempDir()
	for _, run := range []string{"no cache", "cold cache", "warm cache"} {
		opts := Options{}
		if run != "no cache" {
			opts = Options{CacheDir: cacheDir, Version: "test"}
		}
		if run == "warm cache" {
			loadCached(t, dir, cacheDir)
		}
		p, err := NewPreview(context.Background(), dir, config.Default(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := 0; run != "warm cache" && p.FromCache != want {
			t.Errorf("%s: %d files from the cache, want %d", run, p.FromCache, want)
		}
		if run == "warm cache" && p.FromCache != len(full.Snapshot().Files())-1 {
			t.Errorf("%s: %d files from the cache, want %d (all but the binary one)", run, p.FromCache, len(full.Snapshot().Files())-1)
		}
		for rel := range tree {
			path := filepath.Join(dir, filepath.FromSlash(rel))
			content, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, ds, err := p.Diagnose(path, content)
			if err != nil {
				t.Fatal(err)
			}
			var got []wantDiag
			for _, d := range ds {
				text := ""
				if f.Doc != nil {
					text = string(docText(f.Doc)[d.Span.Start:d.Span.End])
				}
				got = append(got, wantDiag{d.Code, d.Severity, text})
			}
			if want := diagsOf(t, full, rel); !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s:\n got %v\nwant %v", run, rel, got, want)
			}
		}
	}
	// The preview diagnoses an edited text, not the file.
	p, err := NewPreview(context.Background(), dir, config.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, ds, err := p.Diagnose(filepath.Join(dir, "commands", "implement.md"), []byte("# Implement\n\npython:fastapi#Nowhere\n"))
	if err != nil {
		t.Fatal(err)
	}
	if codes := diagCodes(ds); !slices.Equal(codes, []string{codeUnknownSection}) {
		t.Errorf("edited text: codes %v, want [%s]", codes, codeUnknownSection)
	}
}

func diagCodes(ds []diag.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}
