// Command gen rewrites the rule list in README.md from the rules table.
// Run it from the repository root: go run ./providers/context/rules/gen
package main

import (
	"fmt"
	"os"

	"github.com/ctxls/ctxls/providers/context/rules"
)

func main() {
	if err := run("README.md"); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	out, err := rules.Splice(string(data))
	if err != nil {
		return err
	}
	if out == string(data) {
		return nil
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
