package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ctxls/ctxls/providers/contextprovider"
)

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("search", stderr)
	format := formatFlag(fs)
	domain := fs.String("domain", "", "search only this domain")
	dirFlag := fs.String("dir", "", "workspace directory (default .)")
	limit := fs.Int("limit", contextprovider.DefaultSearchLimit, "most results to show")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ctxls search QUERY [DIR] [--domain D] [--format text|json] [--dir DIR] [--limit N]\n\nFinds topics whose tags, section keywords, titles, detection triggers or names match QUERY, best first,\nin the workspace DIR (default .). Quote a QUERY of several words.")
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	// QUERY [DIR], like catalog [DIR] and grep PATTERN [FILE]: guessing
	// which words are a directory would misread "ctxls search loading
	// context" wherever context/ exists.
	if len(pos) == 0 || strings.TrimSpace(pos[0]) == "" {
		return usageError{"search needs a query"}
	}
	query := strings.TrimSpace(pos[0])
	if len(pos) > 2 || len(pos) == 2 && *dirFlag != "" {
		return usageError{fmt.Sprintf("search takes one QUERY and at most one directory; quote a query of several words: ctxls search %q", strings.Join(pos, " "))}
	}
	dir, err := workspaceDir("search", *dirFlag, pos[1:])
	if err != nil {
		if len(pos) == 2 {
			return fmt.Errorf("%w (quote a query of several words: ctxls search %q)", err, strings.Join(pos, " "))
		}
		return err
	}
	p, _, err := openProvider(ctx, dir, stderr)
	if err != nil {
		return err
	}
	res, err := p.Search(ctx, query, *domain, *limit)
	if err != nil {
		return err
	}
	if *format == "json" {
		return printJSON(stdout, res)
	}
	printWarnings(stderr, res.Warnings)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	if len(res.Items) > 0 {
		fmt.Fprintln(tw, "RELEVANCE\tTOPIC\tTYPE\tTOKENS\tMATCHED ON\tTITLE")
	}
	for _, it := range res.Items {
		r := it.Reference
		fmt.Fprintf(tw, "%.2f\t%s\t%s\t%s\t%s\t%s\n", it.Relevance, r.Key(), r.Type, thousands(r.MeasuredTokens), strings.Join(it.MatchedOn, ", "), r.Title)
	}
	tw.Flush()
	if len(res.Items) > 0 {
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "%s for %q\n", count(len(res.Items), "result"), query)
	if len(res.Items) == 0 {
		return exitError(1)
	}
	return nil
}
