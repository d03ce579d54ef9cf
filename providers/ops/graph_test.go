package ops_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of the repository's module.
const module = "github.com/ctxls/ctxls"

// layer is how far a package of the module is from the user: the command
// line (3), the front ends it serves (2), the operations layer (1), and
// the providers under it (0). front names the front end or layer a
// package belongs to, so that the front ends do not import each other.
func layer(pkg string) (rank int, front string) {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	top, _, _ := strings.Cut(rel, "/")
	switch {
	case top == "cmd":
		return 3, "cmd"
	case top == "lsp" || top == "mcp":
		return 2, top
	case rel == "providers/ops" || strings.HasPrefix(rel, "providers/ops/"):
		return 1, "ops"
	}
	return 0, "providers"
}

// badImport says why the package from must not import to, or "" when it
// may: imports go one way, from the command line to the front ends to the
// operations layer to the providers, and a front end does not import
// another.
func badImport(from, to string) string {
	fr, ff := layer(from)
	tr, tf := layer(to)
	switch {
	case tr > fr:
		return "imports upwards, against the layers cmd -> lsp, mcp -> ops -> providers"
	case tr == fr && ff != tf:
		return "a front end imports another"
	}
	return ""
}

func TestBadImport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, to string
		bad      bool
	}{
		{"cmd/ctxls", "lsp", false},
		{"cmd/ctxls", "providers/ops", false},
		{"lsp", "providers/ops", false},
		{"lsp", "providers/library", false},
		{"mcp", "providers/present", false},
		{"providers/ops", "providers/runs/chain", false},
		{"providers/ops/internal/protocolts", "providers/ops", false},
		{"providers/library", "watcher", false},
		{"providers/library", "providers/ops", true},
		{"providers/runs/chain", "lsp", true},
		{"providers/present", "mcp", true},
		{"watcher", "cmd/ctxls", true},
		{"providers/ops", "lsp", true},
		{"lsp", "mcp", true},
		{"mcp", "lsp", true},
		{"lsp", "cmd/ctxls", true},
	}
	for _, tt := range tests {
		if got := badImport(module+"/"+tt.from, module+"/"+tt.to); (got != "") != tt.bad {
			t.Errorf("badImport(%s, %s) = %q, want bad %v", tt.from, tt.to, got, tt.bad)
		}
	}
}

// TestImportGraph reads the imports of every package of the repository
// (all platforms, tests left out) and finds none against the layers and
// no cycle.
func TestImportGraph(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.Contains(string(b), "module "+module+"\n") {
		t.Fatalf("%s is not the module's root: %v", root, err)
	}
	graph := map[string][]string{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := path.Join(module, filepath.ToSlash(rel))
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
		for _, im := range f.Imports {
			to, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			if (to == module || strings.HasPrefix(to, module+"/")) && !slices.Contains(graph[pkg], to) {
				graph[pkg] = append(graph[pkg], to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, need := range []string{"cmd/ctxls", "lsp", "mcp", "providers/ops", "providers/library"} {
		if _, ok := graph[module+"/"+need]; !ok {
			t.Fatalf("the walk found no package %s: %v", need, len(graph))
		}
	}
	edges := 0
	for from, tos := range graph {
		for _, to := range tos {
			edges++
			if why := badImport(from, to); why != "" {
				t.Errorf("%s imports %s: %s", from, to, why)
			}
		}
	}
	if edges < 100 {
		t.Errorf("found %d imports among the module's %d packages, too few to be the whole graph", edges, len(graph))
	}
	// A cycle: a package reached again while its imports are walked.
	const (
		unseen = iota
		walking
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(p string)
	visit = func(p string) {
		switch state[p] {
		case walking:
			i := slices.Index(stack, p)
			t.Errorf("import cycle: %s -> %s", strings.Join(stack[i:], " -> "), p)
			return
		case done:
			return
		}
		state[p] = walking
		stack = append(stack, p)
		for _, to := range graph[p] {
			visit(to)
		}
		stack = stack[:len(stack)-1]
		state[p] = done
	}
	for p := range graph {
		visit(p)
	}
}
