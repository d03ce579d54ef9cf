package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/ops"
)

// runSearch exits as grep does: 0 when something matches, 1 when nothing
// does, whatever the format, and 2 on a usage error or a failure, so that
// scripts can tell "no match" from "could not search".
func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := search(ctx, args, stdout, stderr)
	var code exitError
	var ue usageError
	if err != nil && !errors.As(err, &code) && !errors.As(err, &ue) {
		return failure{status: 2, err: err}
	}
	return err
}

func search(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("search", stderr, true)
	domain := fs.String("domain", "", "search only this domain's topics")
	kind := fs.String("kind", "", "search only this kind: topic, skill, command, subagent or rule")
	limit := fs.Int("limit", contextapi.DefaultSearchLimit, "most results to show")
	tokenizer := tokenizerFlag(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := checkTokenizer(*tokenizer); err != nil {
		return err
	}
	// QUERY [DIR], like catalog [DIR] and grep PATTERN [FILE]: guessing
	// which words are a directory would misread "ctxls search loading
	// context" wherever context/ exists.
	if len(pos) == 0 || strings.TrimSpace(pos[0]) == "" {
		return usageError{msg: "search needs a query"}
	}
	query := strings.TrimSpace(pos[0])
	if len(pos) > 2 || len(pos) == 2 && *fs.dir != "" {
		return usageError{msg: fmt.Sprintf("search takes one QUERY and at most one directory; quote a query of several words: ctxls search %q", strings.Join(pos, " "))}
	}
	dir, err := workspaceDir("search", *fs.dir, pos[1:])
	if err != nil {
		if len(pos) == 2 {
			return fmt.Errorf("%w (quote a query of several words: ctxls search %q)", err, strings.Join(pos, " "))
		}
		return err
	}
	o, err := openOps(ctx, dir, stderr)
	if err != nil {
		return err
	}
	res, err := o.SearchInventory(ctx, ops.InventorySearchRequest{Query: query, Domain: *domain, Kind: *kind, Limit: *limit, Tokenizer: *tokenizer})
	if err != nil {
		return err
	}
	if *fs.format == "json" {
		if err := printJSON(stdout, res); err != nil {
			return err
		}
	} else {
		printWarnings(stderr, res.Warnings)
		printSearch(stdout, query, res)
	}
	if len(res.Items) == 0 {
		return exitError(1)
	}
	return nil
}

// printSearch writes results as catalog writes the inventory: a table with
// the numbers aligned right, then a summary.
func printSearch(w io.Writer, query string, res ops.InventorySearchResponse) {
	if len(res.Items) == 0 {
		fmt.Fprintf(w, "0 results for %q\n", query)
		return
	}
	rows := [][]string{{"RELEVANCE", "REFERENCE", "KIND", "TYPE", "STRATEGY", "TOKENS", "DECLARED", "TITLE", "MATCHED ON"}}
	tokens := 0
	entries := make([]ops.InventoryEntry, len(res.Items))
	for i, it := range res.Items {
		tokens += it.Tokens
		entries[i] = it.InventoryEntry
		rows = append(rows, append(entryRow(it.InventoryEntry, []string{fmt.Sprintf("%.2f", it.Relevance)}), strings.Join(it.MatchedOn, ", ")))
	}
	printTable(w, rows, []bool{true, false, false, false, false, true, true, false, false})
	fmt.Fprintf(w, "\n%s for %q: %s · %s tokens measured (%s)\n",
		numfmt.Count(len(res.Items), "result"), query, kindSummary(entries), numfmt.Thousands(tokens), res.Tokenizer)
}
