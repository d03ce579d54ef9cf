package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readmeRows returns the rows of the README's command table: the
// subcommand of each (as commands names it) and the flags its flags column
// lists.
func readmeRows(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## The command line\n")
	if !ok {
		t.Fatal(`README.md has no "## The command line" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	word := regexp.MustCompile(`^[a-z]+$`)
	flagRE := regexp.MustCompile("`(--?[a-zA-Z0-9-]+)")
	rows := map[string][]string{}
	for line := range strings.Lines(section) {
		if !strings.HasPrefix(line, "| `ctxls ") {
			continue
		}
		// Cells split at the pipes that are not escaped.
		cells := strings.Split(strings.ReplaceAll(strings.TrimSpace(line), `\|`, "\x00"), "|")
		cells = cells[1 : len(cells)-1]
		if len(cells) < 3 {
			t.Fatalf("README.md command table: row %q has not the three columns command | flags | what it does", strings.TrimSpace(line))
		}
		var name []string
		for _, w := range strings.Fields(strings.Trim(cells[0], "` "))[1:] {
			if !word.MatchString(w) {
				break
			}
			name = append(name, w)
		}
		var flags []string
		for _, m := range flagRE.FindAllStringSubmatch(cells[1], -1) {
			flags = append(flags, strings.TrimLeft(m[1], "-"))
		}
		rows[strings.Join(name, " ")] = flags
	}
	return rows
}

// definedFlags returns the flags subcommand name defines, as its help
// lists them.
func definedFlags(t *testing.T, name string) []string {
	t.Helper()
	stdout, stderr, status := runCLIStatus(t, "", append(strings.Fields(name), "--help")...)
	if status != 0 {
		t.Fatalf("ctxls %s --help: exit %d\n%s", name, status, stderr)
	}
	_, list, _ := strings.Cut(stdout+stderr, "\nFlags:\n")
	re := regexp.MustCompile(`(?m)^  --?([a-zA-Z0-9-]+)`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(list, -1) {
		out = append(out, m[1])
	}
	return out
}

// The README's command table has a row for every subcommand, and each row
// lists exactly the flags that subcommand defines.
func TestReadmeCommandTable(t *testing.T) {
	t.Parallel()
	rows := readmeRows(t)
	for _, c := range commands {
		listed, ok := rows[c.name]
		if !ok {
			t.Errorf("README.md command table: no row for `ctxls %s`; add | `ctxls %s` | its flags | what it does |", c.name, c.synopsis(false)[len("ctxls "):])
			continue
		}
		delete(rows, c.name)
		defined := definedFlags(t, c.name)
		for _, f := range defined {
			if !slices.Contains(listed, f) {
				t.Errorf("README.md command table, row `ctxls %s`: flag --%s is defined but not in the flags column", c.name, f)
			}
		}
		for _, f := range listed {
			if !slices.Contains(defined, f) {
				t.Errorf("README.md command table, row `ctxls %s`: the flags column lists --%s, which the command does not define", c.name, f)
			}
		}
	}
	for name := range rows {
		t.Errorf("README.md command table: row `ctxls %s` names no subcommand of ctxls (none in the commands table of cmd/ctxls/help.go)", name)
	}
}

// Every subcommand dispatch knows has help, and so a README row.
func TestEverySubcommandHasHelp(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	aliases := map[string]bool{"help": true, "-h": true, "--help": true, "--version": true}
	found := 0
	ast.Inspect(f, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "dispatch" {
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok {
				return true
			}
			for _, e := range cc.List {
				lit, ok := e.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				name, _ := strconv.Unquote(lit.Value)
				found++
				if aliases[name] || name == "chain" {
					continue
				}
				if _, ok := helpFor(name); !ok {
					t.Errorf("subcommand %q of dispatch (main.go) has no entry in the commands table of help.go", name)
				}
			}
			return true
		})
		return false
	})
	if found == 0 {
		t.Fatal("found no case of dispatch in main.go")
	}
}

// The README's Development table has a row for every Go package of the
// module, and every folder a row names exists, so that a reader finds any
// feature from it.
func TestReadmeFolderTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## Development\n")
	if !ok {
		t.Fatal(`README.md has no "## Development" section`)
	}
	section, _, _ = strings.Cut(section, "\n\n`")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	rows := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		dir := strings.TrimSuffix(m[1], "/")
		rows[dir] = true
		if fi, err := os.Stat(filepath.Join("../..", dir)); err != nil || !fi.IsDir() {
			t.Errorf("README.md's Development table names %s, which is not a folder of the repository", m[1])
		}
	}
	if len(rows) == 0 {
		t.Fatal("README.md's Development table has no rows")
	}
	root := "../.."
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		switch d.Name() {
		case "testdata", "node_modules", ".git", "vscode-extension":
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != "." && hasPackage(t, p) && !rows[rel] {
			t.Errorf("README.md's Development table has no row for the package in %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hasPackage reports whether dir holds a Go file that is not a test.
func hasPackage(t *testing.T, dir string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(entries, func(e fs.DirEntry) bool {
		n := e.Name()
		return !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go")
	})
}
