package ops_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// TestCheckReportsRefusedFileOnce checks a workspace whose memory file
// imports a link out of the workspace and whose AGENTS.md is one: each
// link is reported once, by its diagnostic, and not again as a markdown
// file the index skipped; a check of the folder alone, where no
// diagnostic reports the link, keeps the warning.
func TestCheckReportsRefusedFileOnce(t *testing.T) {
	t.Parallel()
	secret := fsguardtest.Outside(t, "secret.md", "# Secret\n")
	dir := testtree.New(t, map[string]string{
		"CLAUDE.md": "# Project\n\nSee @docs/notes.md for the setup.\n",
	})
	fsguardtest.Links(t, dir, map[string]string{
		"docs/notes.md": secret,
		"AGENTS.md":     secret,
	})
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := ops.New(ops.Options{Snapshot: ops.Static(lib.Snapshot())})
	tests := []struct {
		path      string
		codes     []string // file:code of the diagnostics
		warnNotes bool     // whether docs/notes.md is among the warnings
	}{
		{"", []string{"AGENTS.md:file-skipped", "CLAUDE.md:import-outside-project"}, false},
		{"docs", nil, true},
	}
	for _, tt := range tests {
		res, err := o.Check(t.Context(), ops.CheckRequest{Path: tt.path})
		if err != nil {
			t.Fatalf("Check(%q): %v", tt.path, err)
		}
		var codes []string
		for _, d := range res.Items {
			codes = append(codes, d.File+":"+d.Code)
		}
		if !slices.Equal(codes, tt.codes) {
			t.Errorf("Check(%q) diagnostics %v; want %v", tt.path, codes, tt.codes)
		}
		notes := false
		for _, w := range res.Warnings {
			if strings.Contains(w.Message, "AGENTS.md") {
				t.Errorf("Check(%q): AGENTS.md is a diagnostic and a warning: %s", tt.path, w.Message)
			}
			if strings.Contains(w.Message, "notes.md") {
				notes = true
			}
			if strings.Contains(w.Message, filepath.Dir(secret)) {
				t.Errorf("Check(%q): a warning says where the link leads: %s", tt.path, w.Message)
			}
		}
		if notes != tt.warnNotes {
			t.Errorf("Check(%q): docs/notes.md among the warnings %v = %v; want %v", tt.path, res.Warnings, notes, tt.warnNotes)
		}
	}
}

// TestCheckDuplicateTopicRelated checks that the record of a topic
// defined twice names the definition used as a related place, at its
// start, relative to the workspace.
func TestCheckDuplicateTopicRelated(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/python/a.md":      "# A\n\nText.\n",
		"docs/context/python/a.md": "---\ndomain: python\n---\n# A\n\nText.\n",
	})
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := ops.New(ops.Options{Snapshot: ops.Static(lib.Snapshot())})
	defer o.Close()
	res, err := o.Check(t.Context(), ops.CheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var dups []ops.Diagnostic
	for _, d := range res.Items {
		if d.Code == "duplicate-topic" {
			dups = append(dups, d)
		} else if len(d.Related) > 0 {
			t.Errorf("%s has related places: %+v", d.Code, d.Related)
		}
	}
	if len(dups) != 1 || len(dups[0].Related) != 1 {
		t.Fatalf("duplicate-topic records %+v, want one with one related place", dups)
	}
	files := []string{"context/python/a.md", "docs/context/python/a.md"}
	r := dups[0].Related[0]
	if !slices.Contains(files, r.File) || r.File == dups[0].File || r.Line != 1 || r.Column != 1 || r.Message == "" {
		t.Errorf("related %+v of %s, want the start of the other file", r, dups[0].File)
	}
}

// TestConfigDiagnostics checks the diagnostics of .ctxls.yaml: each covers
// the line of its problem, or the file's start, with the problem's
// severity and words; disabling their code leaves none.
func TestConfigDiagnostics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		want       []string // line:column-line:column severity message
	}{
		{name: "no file"},
		{name: "unknown setting and a chain of no command", yaml: "bogus: 1\nchains:\n  go: [nosuch]\n", want: []string{
			`1:1-2:1 warning unknown setting "bogus" is ignored`,
			`3:1-4:1 error chain "go" names "nosuch", which is no command of the workspace`,
		}},
		{name: "unparsable", yaml: "a: [\n", want: []string{"1:1-1:1 error cannot parse"}},
		{name: "disabled", yaml: "bogus: 1\ndisable: [config]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tree := map[string]string{"context/python/a.md": "# A\n\nText.\n"}
			if tc.yaml != "" {
				tree[".ctxls.yaml"] = tc.yaml
			}
			dir := libtest.WriteTree(t, tree)
			lib, err := library.Load(t.Context(), dir, nil, library.Options{})
			if err != nil {
				t.Fatal(err)
			}
			lines, ds := ops.ConfigDiagnostics(lib.Snapshot())
			var got []string
			for _, d := range ds {
				rg := document.Range{}
				if lines != nil {
					rg = lines.Range(d.Span, document.UTF32)
				}
				got = append(got, fmt.Sprintf("%d:%d-%d:%d %s %s", rg.Start.Line+1, rg.Start.Character+1, rg.End.Line+1, rg.End.Character+1, d.Severity, d.Message))
				if d.Code != "config" || d.Path != filepath.Join(dir, ".ctxls.yaml") {
					t.Errorf("diagnostic of code %s at %s", d.Code, d.Path)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("ConfigDiagnostics = %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("diagnostic %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// A check of a path the workspace does not hold is an error of kind not
// found, and one of a path outside it an invalid request, whether or not
// the path exists there.
func TestCheckPathErrors(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{"context/python/a.md": "# A\n\nText.\n"})
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := ops.New(ops.Options{Snapshot: ops.Static(lib.Snapshot())})
	defer o.Close()
	tests := []struct {
		path string
		kind error
	}{
		{"context/python/nope.md", ops.ErrNotFound},
		{filepath.Join(dir, "nope"), ops.ErrNotFound},
		{"../outside", ops.ErrInvalid},
		{"..", ops.ErrInvalid},
	}
	for _, tt := range tests {
		_, err := o.Check(t.Context(), ops.CheckRequest{Path: tt.path})
		if !errors.Is(err, tt.kind) {
			t.Errorf("Check(%q) = %v, want an error of kind %v", tt.path, err, tt.kind)
		}
	}
	if _, err := o.Check(t.Context(), ops.CheckRequest{Path: "context/python/a.md"}); err != nil {
		t.Errorf("Check of a file the workspace holds: %v", err)
	}
}
