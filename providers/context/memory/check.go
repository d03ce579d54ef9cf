package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ctxls/ctxls/providers/context/agentfiles"
	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/glob"
	"github.com/ctxls/ctxls/providers/context/imports"
	"github.com/ctxls/ctxls/providers/context/rules"
	"github.com/ctxls/ctxls/providers/context/tokens"
)

// Check returns the diagnostics of the memory files and rules of set, and
// of the files their imports load, keyed by absolute path, without the
// codes cfg disables. A problem reached from several memory files is
// reported once.
func Check(ctx context.Context, set *agentfiles.Set, cfg *config.Config, counter tokens.Counter) map[string][]agentfiles.Diagnostic {
	if cfg == nil {
		cfg = config.Default()
	}
	out := map[string][]agentfiles.Diagnostic{}
	seen := map[key]bool{}
	add := func(d agentfiles.Diagnostic) {
		k := key{d.Path, d.Span, d.Code}
		if cfg.Disabled(d.Code) || seen[k] {
			return
		}
		seen[k] = true
		out[d.Path] = append(out[d.Path], d)
	}
	for _, f := range set.Files {
		if ctx.Err() != nil {
			break
		}
		if f.Skipped != "" || Classify(f.Rel) == NotMemory {
			continue
		}
		for _, d := range CheckFile(ctx, set, cfg, counter, f) {
			add(d)
		}
	}
	for p := range out {
		slices.SortStableFunc(out[p], func(a, b agentfiles.Diagnostic) int { return a.Span.Start - b.Span.Start })
	}
	return out
}

type key struct {
	path string
	span document.Span
	code string
}

// CheckFile returns the diagnostics of one memory file or rule: its
// imports and theirs (which may lie in other files), its size and, for a
// rule, its paths globs. Disabled codes are left in; Check drops them.
func CheckFile(ctx context.Context, set *agentfiles.Set, cfg *config.Config, counter tokens.Counter, f *agentfiles.File) []agentfiles.Diagnostic {
	var out []agentfiles.Diagnostic
	if f.Doc == nil {
		return nil
	}
	opt := Options(cfg, set.Root, counter)
	opt.Read = func(p string) ([]byte, error) {
		if p == f.Path {
			return f.Text, nil
		}
		return imports.ReadFile(p)
	}
	if t, err := imports.Build(ctx, f.Path, opt); err == nil {
		for _, p := range t.Problems(set.Root) {
			d := agentfiles.Diagnostic{Path: p.File, Span: p.Span, Severity: rules.Default(p.Code), Code: p.Code, Message: p.Message}
			if p.Fix != nil {
				d.Fix = &agentfiles.Fix{Title: "Put a space between the import and the punctuation",
					Edits: []agentfiles.Edit{{Span: p.Fix.Span, NewText: p.Fix.NewText}}}
			}
			out = append(out, d)
		}
	}
	if Classify(f.Rel) == Rule {
		out = append(out, rulePaths(f, ruleFiles(f.Rel, set.WorkspaceFiles()))...)
	}
	return out
}

// ruleFiles returns the files a rule's globs are matched against: those
// of the folder holding its .claude folder, relative to that folder.
func ruleFiles(rel string, files []string) []string {
	i := strings.Index(rel, ".claude/rules/")
	if i <= 0 {
		return files
	}
	prefix := rel[:i]
	var out []string
	for _, f := range files {
		if r, ok := strings.CutPrefix(f, prefix); ok {
			out = append(out, r)
		}
	}
	return out
}

// RulePaths returns the globs of a rule's paths field and whether it has
// one: a rule without paths loads at the start of every session.
func RulePaths(doc *document.Doc) ([]string, bool) {
	if doc.Frontmatter == nil {
		return nil, false
	}
	_, v := document.FieldOf(doc.Frontmatter.Root(), "paths")
	if v == nil || v.Tag == "!!null" {
		return nil, false
	}
	var out []string
	for _, n := range globNodes(v) {
		if n.Kind == yaml.ScalarNode {
			out = append(out, n.Value)
		}
	}
	return out, true
}

// globNodes returns the items of a paths value: the value itself when it
// is not a list.
func globNodes(v *yaml.Node) []*yaml.Node {
	if v.Kind == yaml.SequenceNode {
		return v.Content
	}
	return []*yaml.Node{v}
}

// rulePaths checks a rule's paths: a glob or a list of globs, each valid
// and matching at least one file of the workspace.
func rulePaths(f *agentfiles.File, files []string) []agentfiles.Diagnostic {
	doc := f.Doc
	if doc.Frontmatter == nil || doc.Frontmatter.Err != nil {
		return nil
	}
	k, v := document.FieldOf(doc.Frontmatter.Root(), "paths")
	if v == nil || v.Tag == "!!null" {
		return nil
	}
	var out []agentfiles.Diagnostic
	bad := func(n *yaml.Node, format string, args ...any) {
		sp := doc.NodeSpan(n)
		if sp.Len() == 0 {
			sp = doc.NodeSpan(k)
		}
		out = append(out, agentfiles.Diagnostic{Path: f.Path, Span: sp, Severity: rules.Default(rules.RulePathsInvalid),
			Code: rules.RulePathsInvalid, Message: fmt.Sprintf(format, args...)})
	}
	if v.Kind == yaml.MappingNode {
		bad(v, "paths must be a glob or a list of globs, not a map")
		return out
	}
	for _, n := range globNodes(v) {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			bad(n, "paths holds %s, not a glob string; the rule never attaches by it", describe(n))
			continue
		}
		g, err := glob.Compile(n.Value)
		if err != nil {
			bad(n, "paths glob %q is invalid: %v", n.Value, err)
			continue
		}
		if !slices.ContainsFunc(files, g.Match) {
			bad(n, "paths glob %q matches no file of the project, so the rule never loads", n.Value)
		}
	}
	return out
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a map"
	}
	switch n.Tag {
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	}
	return fmt.Sprintf("%q", n.Value)
}
