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

	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/ops"
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

// openOps loads the workspace at dir and returns the operations over it.
func openOps(ctx context.Context, dir string, stderr io.Writer) (*ops.Ops, error) {
	lib, err := loadLibrary(ctx, dir, stderr)
	if err != nil {
		return nil, err
	}
	return ops.New(ops.Options{Snapshot: ops.Static(lib)}), nil
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
	domain := fs.String("domain", "", "list only this domain")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	o, err := openWorkspace(ctx, "catalog", *fs.dir, pos, stderr)
	if err != nil {
		return err
	}
	res, err := o.Catalog(ctx, ops.CatalogRequest{Domain: *domain})
	if err != nil {
		return err
	}
	if *fs.format == "json" {
		return printJSON(stdout, res)
	}
	printWarnings(stderr, res.Warnings)
	printCatalog(stdout, o.Library(), res.Items)
	if len(res.Warnings) > 0 && len(res.Items) == 0 {
		return exitError(1)
	}
	return nil
}

func printCatalog(w io.Writer, lib *library.Snapshot, items []ops.Reference) {
	rows := [][]string{{"TOPIC", "TYPE", "STRATEGY", "MEASURED", "DECLARED", "TITLE"}}
	measured, declared, domains := 0, 0, map[string]bool{}
	for _, it := range items {
		decl := "-"
		if it.EstimatedTokens > 0 {
			decl = thousands(it.EstimatedTokens)
			declared += it.EstimatedTokens
		}
		measured += it.MeasuredTokens
		if it.Domain != "" {
			domains[it.Domain] = true
		}
		rows = append(rows, []string{it.Key(), it.Type, it.LoadingStrategy, thousands(it.MeasuredTokens), decl, it.Title})
	}
	printTable(w, rows, []bool{false, false, false, true, true, false})
	fmt.Fprintf(w, "\n%s in %s · %s tokens measured (%s) · %s declared\n",
		count(len(items), "topic"), count(len(domains), "domain"), thousands(measured), lib.Counter().Name(), thousands(declared))
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
