package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/tokens"
)

// workspaceDir picks the workspace of command cmd: --dir (flagDir), else
// the positional DIR (the one element of dirArgs), else the current
// directory. Naming more than one directory is a usage error.
func workspaceDir(cmd, flagDir string, dirArgs []string) (string, error) {
	switch {
	case len(dirArgs) > 1:
		return "", usageError{msg: fmt.Sprintf("%s takes at most one directory", cmd)}
	case len(dirArgs) == 1 && flagDir != "":
		return "", usageError{msg: fmt.Sprintf("%s takes one directory: give DIR or --dir, not both", cmd)}
	case len(dirArgs) == 1:
		flagDir = dirArgs[0]
	}
	dir := cmp.Or(flagDir, ".")
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return dir, nil
}

// openOps loads the workspace at dir and returns the operations over its
// one snapshot, whose agent files are read on first use (a catalog of one
// domain's topics needs none).
func openOps(ctx context.Context, dir string, stderr io.Writer) (*ops.Ops, error) {
	lib, err := loadLibrary(ctx, dir, stderr)
	if err != nil {
		return nil, err
	}
	return ops.New(ops.Options{Snapshot: ops.Static(lib), Logger: warnLogger(stderr)}), nil
}

// openWorkspace picks the workspace of command cmd as workspaceDir does
// and returns the operations over it.
func openWorkspace(ctx context.Context, cmd, flagDir string, dirArgs []string, stderr io.Writer) (*ops.Ops, error) {
	dir, err := workspaceDir(cmd, flagDir, dirArgs)
	if err != nil {
		return nil, err
	}
	return openOps(ctx, dir, stderr)
}

// printWarnings writes result warnings to stderr.
func printWarnings(stderr io.Writer, ws []ops.Warning) {
	for _, w := range ws {
		fmt.Fprintf(stderr, "warning: %s\n", w.Message)
	}
}

// printJSON writes v as indented JSON, with <, > and & as they are: the
// output is for people and programs, not for HTML.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runCatalog(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("catalog", stderr, true)
	domain := fs.String("domain", "", "list only this domain's topics")
	kind := fs.String("kind", "", "list only this kind: topic, skill, command, subagent or rule")
	tokenizer := tokenizerFlag(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := checkTokenizer(*tokenizer); err != nil {
		return err
	}
	o, err := openWorkspace(ctx, "catalog", *fs.dir, pos, stderr)
	if err != nil {
		return err
	}
	res, err := o.Inventory(ctx, ops.InventoryRequest{Domain: *domain, Kind: *kind, Tokenizer: *tokenizer})
	if err != nil {
		return err
	}
	if *fs.format == "json" {
		return printJSON(stdout, res)
	}
	printCatalog(stdout, res)
	return nil
}

// tokenizerFlag defines the --tokenizer flag of catalog and search.
func tokenizerFlag(fs workspaceFlags) *string {
	return fs.String("tokenizer", "", "count in this encoding: "+strings.Join(tokens.Names(), ", ")+" (default: the library's)")
}

// checkTokenizer fails with a usage error unless name is empty or names a
// tokenizer.
func checkTokenizer(name string) error {
	if name == "" {
		return nil
	}
	if _, err := tokens.New(name); err != nil {
		return usageError{msg: err.Error()}
	}
	return nil
}

// printCatalog writes the inventory as a table, the numbers aligned right,
// then a summary by kind.
func printCatalog(w io.Writer, res ops.InventoryResponse) {
	rows := [][]string{{"REFERENCE", "KIND", "TYPE", "STRATEGY", "TOKENS", "DECLARED", "TITLE"}}
	declared := 0
	for _, e := range res.Entries {
		rows = append(rows, entryRow(e, nil))
		declared += e.DeclaredTokens
	}
	printTable(w, rows, []bool{false, false, false, false, true, true, false})
	fmt.Fprintf(w, "\n%s · %s tokens measured (%s) · %s declared\n", kindSummary(res.Entries), numfmt.Thousands(res.Tokens), res.Tokenizer, numfmt.Thousands(declared))
}

// entryRow is the row of an inventory entry: reference, kind, a topic's
// type and strategy, tokens, declared tokens and title, with extra cells
// before them.
func entryRow(e ops.InventoryEntry, extra []string) []string {
	decl := "-"
	if e.DeclaredTokens > 0 {
		decl = numfmt.Thousands(e.DeclaredTokens)
	}
	return append(extra, e.Reference, e.Kind, cmp.Or(e.Type, "-"), cmp.Or(e.LoadingStrategy, "-"), numfmt.Thousands(e.Tokens), decl, e.Title)
}

// kindSummary counts entries by kind, topics with their domains: "8
// topics in 1 domain, 2 skills, 1 command".
func kindSummary(entries []ops.InventoryEntry) string {
	n := map[string]int{}
	domains := map[string]bool{}
	for _, e := range entries {
		n[e.Kind]++
		if d, _, ok := strings.Cut(e.Reference, ":"); ok && e.Kind == ops.KindTopic {
			domains[d] = true
		}
	}
	parts := []string{numfmt.Count(n[ops.KindTopic], "topic") + " in " + numfmt.Count(len(domains), "domain")}
	for _, k := range []string{ops.KindSkill, ops.KindCommand, ops.KindSubagent, ops.KindRule} {
		if n[k] > 0 {
			parts = append(parts, numfmt.Count(n[k], k))
		}
	}
	return strings.Join(parts, ", ")
}

// printTable writes rows as columns two spaces apart. Text columns align
// left and the columns marked in right, numbers, align right; the last
// column is not padded, so lines carry no trailing spaces.
func printTable(w io.Writer, rows [][]string, right []bool) {
	var wd []int
	for _, r := range rows {
		for i, s := range r {
			if i == len(wd) {
				wd = append(wd, 0)
			}
			wd[i] = max(wd[i], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for i, s := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", wd[i]-utf8.RuneCountInString(s))
			switch {
			case i < len(right) && right[i]:
				b.WriteString(pad + s)
			case i == len(r)-1:
				b.WriteString(s)
			default:
				b.WriteString(s + pad)
			}
		}
		b.WriteByte('\n')
		io.WriteString(w, b.String())
	}
}
