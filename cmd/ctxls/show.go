package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/ops"
)

func runShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("show", stderr, false)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{msg: "show takes one reference, such as python:fastapi_patterns#Security Issues"}
	}
	o, err := openWorkspace(ctx, "show", *fs.dir, nil, stderr)
	if err != nil {
		return err
	}
	rec, err := o.Show(ctx, ops.ShowRequest{Reference: pos[0]})
	if err != nil {
		return err
	}
	if *fs.format == "json" {
		return printJSON(stdout, rec)
	}
	// stdout stays the exact text, for piping into an agent; a person at a
	// terminal also sees what was printed and its cost.
	if isTerminal(stdout) {
		fmt.Fprintln(stderr, showHeader(rec, o.Library().Counter().Name()))
	}
	return writeBody(stdout, rec.Content)
}

// showHeader is the line that names what show prints.
func showHeader(rec ops.ShowResponse, tokenizer string) string {
	return fmt.Sprintf("%s · %s · %s tokens (%s)", rec.Reference, rec.Title, numfmt.Thousands(rec.Tokens), tokenizer)
}

// isTerminal reports whether w, a reader or a writer, is a terminal: a
// character device that is a tty, not /dev/null.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// writeBody prints text, ending it with a newline.
func writeBody(w io.Writer, text string) error {
	if _, err := io.WriteString(w, text); err != nil {
		return err
	}
	if !strings.HasSuffix(text, "\n") {
		_, err := io.WriteString(w, "\n")
		return err
	}
	return nil
}
