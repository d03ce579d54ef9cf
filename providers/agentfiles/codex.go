package agentfiles

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
)

// codexConfig is what a project's .codex/config.toml says about the
// AGENTS.md chain.
type codexConfig struct {
	// Fallbacks are project_doc_fallback_filenames: names Codex tries in
	// a folder after AGENTS.override.md and AGENTS.md.
	Fallbacks []string
	// MaxBytes is project_doc_max_bytes, 0 when unset.
	MaxBytes int
	// Problem says why the file could not be used, at which line, or "".
	Problem string
}

// codexConfigFile is where a project configures Codex.
const codexConfigFile = ".codex/config.toml"

// maxCodexConfig bounds .codex/config.toml, a few dozen lines.
const maxCodexConfig = 256 << 10

// loadCodexConfig reads the project's .codex/config.toml, if any. A file
// Codex cannot load leaves Codex's defaults, with the reason kept.
func (s *Set) loadCodexConfig(ctx context.Context) {
	p := filepath.Join(s.Root, filepath.FromSlash(codexConfigFile))
	data, err := s.Guard().ReadFile(ctx, p, maxCodexConfig)
	if err != nil {
		s.codex = codexConfig{} // no file, or one Codex cannot use either: the defaults
		return
	}
	s.codex = parseCodexConfig(data)
}

// parseCodexConfig reads what the text of a .codex/config.toml says about
// the AGENTS.md chain.
func parseCodexConfig(data []byte) codexConfig {
	var c codexConfig
	root, problems, off, err := parseTOML(data)
	if err != nil {
		c.Problem = fmt.Sprintf("line %d is not valid TOML (%v)", lineAt(data, off), err)
		return c
	}
	problems = append(problems, codexDocProblems(data, root)...)
	if len(problems) > 0 {
		c.Problem = fmt.Sprintf("line %d: %s", lineAt(data, problems[0].span.Start), problems[0].msg)
		return c
	}
	if v, _ := root.get("project_doc_fallback_filenames"); v != nil {
		for _, it := range v.items {
			if it.str != "" && !strings.ContainsAny(it.str, `/\`) {
				c.Fallbacks = append(c.Fallbacks, it.str)
			}
		}
	}
	if v, _ := root.get("project_doc_max_bytes"); v != nil {
		n, _ := tomlWhole(data[v.span.Start:v.span.End])
		c.MaxBytes = int(n)
	}
	return c
}

// CodexConfigProblem says why the project's .codex/config.toml cannot be
// loaded, with the line, or "" when it can (or there is none): Codex's
// defaults are then what the chain is read with.
func (s *Set) CodexConfigProblem() string {
	if s.codex.Problem == "" {
		return ""
	}
	return codexConfigFile + " " + s.codex.Problem
}

// codexDocProblems checks the keys of .codex/config.toml that shape the
// AGENTS.md chain against the types Codex's configuration reference
// gives them: project_doc_fallback_filenames a list of file names,
// project_doc_max_bytes a number of bytes, which Codex reads as a whole
// number that is not negative.
func codexDocProblems(text []byte, root *jnode) []tomlProblem {
	var out []tomlProblem
	if v, k := root.get("project_doc_fallback_filenames"); k != nil {
		if v.kind != '[' {
			out = append(out, tomlProblem{v.span, fmt.Sprintf("project_doc_fallback_filenames must be a list of file names, as [\"TEAM.md\"], not %s", tomlKindName(text, v))})
		} else {
			for _, it := range v.items {
				if it.kind != '"' {
					out = append(out, tomlProblem{it.span, fmt.Sprintf("each entry of project_doc_fallback_filenames must be a file name in quotes, not %s", tomlKindName(text, it))})
				}
			}
		}
	}
	if v, k := root.get("project_doc_max_bytes"); k != nil {
		if _, ok := tomlWhole(text[v.span.Start:v.span.End]); v.kind != '0' || !ok {
			out = append(out, tomlProblem{v.span, fmt.Sprintf("project_doc_max_bytes must be a whole number of bytes, as 65536, not %s", tomlKindName(text, v))})
		}
	}
	return out
}

// tomlWhole reads a TOML integer that is not negative: decimal with
// underscores, or hexadecimal, octal or binary.
func tomlWhole(raw []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(raw), 0, 64)
	return n, err == nil && n >= 0 && n <= math.MaxInt32
}

// tomlKindName names a value as a TOML reader sees it: a number by its
// text, which may be a float, a date or a negative number.
func tomlKindName(text []byte, v *jnode) string {
	if v.kind == '0' {
		return string(text[v.span.Start:v.span.End])
	}
	if v.kind == '"' {
		return fmt.Sprintf("the string %q", v.str)
	}
	return kindName(v.kind)
}

// lineAt is the 1-based line of byte offset off.
func lineAt(text []byte, off int) int {
	return bytes.Count(text[:min(max(off, 0), len(text))], []byte("\n")) + 1
}

// codexNames returns the names Codex tries in a folder, in order.
func (s *Set) codexNames() []string {
	return append([]string{"AGENTS.override.md", "AGENTS.md"}, s.codex.Fallbacks...)
}

// isCodexName reports whether a file of that name can be in the chain.
func (s *Set) isCodexName(base string) bool { return slices.Contains(s.codexNames(), base) }

// CodexCap returns the byte cap over the AGENTS.md chain: the project's
// project_doc_max_bytes when .codex/config.toml sets it, else
// limits.agentsMdBytes.
func (s *Set) CodexCap() int {
	if s.codex.MaxBytes > 0 {
		return s.codex.MaxBytes
	}
	return s.cfg.Limits.AgentsMdBytes
}

// ChainLink is one file of Codex's instruction chain.
type ChainLink struct {
	// File is the agent file.
	File *File
	// Start is the chain's size before it, in bytes.
	Start int
	// Read is how many of its bytes Codex reads: all, or up to the cap.
	Read int
}

// CodexChain returns the files Codex reads when it starts in the folder
// dir (relative, slash-separated; "." for the root): from the root down,
// in each folder the first of AGENTS.override.md, AGENTS.md and the
// fallback names that is not empty, until the chain reaches the cap. A
// file past the cap is left out.
func (s *Set) CodexChain(dir string) []ChainLink {
	var out []ChainLink
	budget, used := s.CodexCap(), 0
	for _, d := range ancestors(dir) {
		f := s.codexFileIn(d)
		if f == nil {
			continue
		}
		if used >= budget {
			break
		}
		n := min(len(f.Text), budget-used)
		out = append(out, ChainLink{File: f, Start: used, Read: n})
		used += n
	}
	return out
}

// codexFileIn returns the file Codex reads in folder d, or nil.
func (s *Set) codexFileIn(d string) *File {
	for _, name := range s.codexNames() {
		f, ok := s.byPath[filepath.Join(s.Root, filepath.FromSlash(path.Join(d, name)))]
		if !ok || f.Skipped != "" || len(bytes.TrimSpace(f.Text)) == 0 {
			continue // Codex skips empty files and tries the next name
		}
		return f
	}
	return nil
}

// ancestors returns the folders from the root down to dir, both included.
func ancestors(dir string) []string {
	dir = path.Clean(dir)
	out := []string{"."}
	if dir == "." {
		return out
	}
	segs := strings.Split(dir, "/")
	for i := range segs {
		out = append(out, path.Join(segs[:i+1]...))
	}
	return out
}

// codexChainCheck reports where the cap over the chain falls in an
// AGENTS.md read by Codex, and a file Codex passes over for another of
// its folder.
func (c *checker) codexChainCheck() {
	dir := path.Dir(c.f.Rel)
	chosen := c.s.codexFileIn(dir)
	if len(bytes.TrimSpace(c.f.Text)) == 0 {
		return // Codex skips it, and so says nothing
	}
	if chosen != nil && chosen.Path != c.f.Path {
		c.add(c.lineSpan(0), diag.AgentsMdShadowed, "Codex reads %s in this folder instead of %s: one file per folder, in the order %s",
			path.Base(chosen.Rel), path.Base(c.f.Rel), strings.Join(c.s.codexNames(), ", "))
		return
	}
	budget := c.s.CodexCap()
	var before []ChainLink
	start := 0
	for _, d := range ancestors(dir)[:len(ancestors(dir))-1] {
		if f := c.s.codexFileIn(d); f != nil {
			before = append(before, ChainLink{File: f, Start: start, Read: len(f.Text)})
			start += len(f.Text)
		}
	}
	setting := "project_doc_max_bytes"
	if c.s.codex.MaxBytes == 0 {
		setting += ", limits.agentsMdBytes"
	}
	switch {
	case start >= budget:
		c.add(c.lineSpan(0), diag.AgentsMdTooLarge, "Codex started in %s never reads this file: the AGENTS.md files above it (%s, %d bytes) already reach its cap of %d bytes (%s)",
			folderName(dir), chainNames(before), start, budget, setting)
	case start+len(c.f.Text) > budget:
		cut := budget - start
		at := c.f.Lines.LineOf(cut)
		what := fmt.Sprintf("%s is %d bytes", path.Base(c.f.Rel), len(c.f.Text))
		if start > 0 {
			what = fmt.Sprintf("with the AGENTS.md files above it (%s, %d bytes), the chain Codex reads when started in %s is %d bytes", chainNames(before), start, folderName(dir), start+len(c.f.Text))
		}
		c.add(c.lineSpan(at), diag.AgentsMdTooLarge, "%s; Codex reads the first %d (%s) and drops the rest, from this line on", what, budget, setting)
	}
}

func folderName(dir string) string {
	if dir == "." {
		return "the root"
	}
	return dir + "/"
}

func chainNames(links []ChainLink) string {
	var names []string
	for _, l := range links {
		names = append(names, l.File.Rel)
	}
	return strings.Join(names, ", ")
}
