// Command gen writes what the rules table and the agent facts generate:
// the rule list and the per-agent table in README.md and a page per rule
// under docs/rules. Run it from the
// repository root: go run ./providers/diag/gen
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfacts"
	"github.com/ctxls/ctxls/providers/diag"
)

func main() {
	if err := run("README.md"); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := writePages(filepath.FromSlash(diag.PagesDir)); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	out, err := diag.Splice(string(data))
	if err != nil {
		return err
	}
	if out, err = agentfacts.Splice(out); err != nil {
		return err
	}
	return writeIfChanged(path, data, out)
}

// writePages makes dir hold exactly the rule pages: each written when it
// differs, and a page of a rule the table no longer has removed.
func writePages(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pages := diag.Pages()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, ok := pages[e.Name()]; !ok && strings.HasSuffix(e.Name(), ".md") {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for name, text := range pages {
		path := filepath.Join(dir, name)
		old, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := writeIfChanged(path, old, text); err != nil {
			return err
		}
	}
	return nil
}

func writeIfChanged(path string, old []byte, text string) error {
	if string(old) == text {
		return nil
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
