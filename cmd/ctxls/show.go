package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ctxls/ctxls/providers/context/contextprovider"
	"github.com/ctxls/ctxls/providers/context/library"
)

// showRecord is show's JSON output: what was printed and what it costs.
type showRecord struct {
	// Reference is the canonical domain:topic, with #Section when one
	// section was asked for.
	Reference string `json:"reference"`
	Title     string `json:"title"`
	// Tokens is the measured cost of Content.
	Tokens  int    `json:"tokens"`
	Path    string `json:"path"`
	Content string `json:"content"`
}

func runShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("show", stderr)
	format := formatFlag(fs)
	dirFlag := fs.String("dir", "", "workspace directory (default .)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{msg: "show takes one reference, such as python:fastapi_patterns#Security Issues"}
	}
	ref := strings.TrimSpace(pos[0])
	section := ""
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref, section = ref[:i], strings.TrimSpace(ref[i+1:])
	}
	// The path form names the file under its context root.
	ref = strings.TrimPrefix(strings.TrimPrefix(ref, "./"), library.ContextDirName+"/")
	domain, file := "", ref
	if i := strings.IndexAny(ref, ":/"); i >= 0 {
		domain, file = ref[:i], ref[i+1:]
	}
	if file == "" && domain == "" {
		return usageError{msg: fmt.Sprintf("%q names no topic; write domain:topic", pos[0])}
	}
	dir, err := workspaceDir("show", *dirFlag, nil)
	if err != nil {
		return err
	}
	p, lib, err := openProvider(ctx, dir, stderr)
	if err != nil {
		return err
	}
	// "python" or "python:" names a domain, which has no body to print.
	if name := cmp.Or(domain, file); (file == "" || domain == "") && section == "" {
		if _, ok := lib.Domain(name); ok {
			return domainNotTopic(lib, name)
		}
	}
	if file == "" {
		return usageError{msg: fmt.Sprintf("%q names no topic; write domain:topic", pos[0])}
	}
	r, err := p.Reference(ctx, domain, file)
	if err != nil {
		return err
	}
	if r.ID == "" {
		return fmt.Errorf("unknown topic %s: %s", pos[0], joinWarnings(r.Warnings))
	}
	rec := showRecord{Reference: r.Key(), Title: r.Title, Path: r.Path}
	if section == "" {
		f, err := p.Materialize(ctx, r.Reference)
		if err != nil {
			return fmt.Errorf("load %s: %w", r.Key(), err)
		}
		rec.Tokens, rec.Content = f.EstimatedTokens, f.Content
	} else {
		pc, err := p.MaterializeSections(ctx, r.Reference, []string{section})
		if err != nil {
			return fmt.Errorf("load %s#%s: %w", r.Key(), section, err)
		}
		if len(pc.Sections) == 0 {
			return fmt.Errorf("unknown section %s#%s: %s", r.Key(), section, joinWarnings(pc.Warnings))
		}
		s := pc.Sections[0]
		rec.Reference += "#" + s.Name
		rec.Tokens, rec.Content = s.EstimatedTokens, s.Content
	}
	if *format == "json" {
		return printJSON(stdout, rec)
	}
	// stdout stays the exact text, for piping into an agent; a person at a
	// terminal also sees what was printed and its cost.
	if isTerminal(stdout) {
		fmt.Fprintln(stderr, showHeader(rec, lib.Counter().Name()))
	}
	return writeBody(stdout, rec.Content)
}

// domainNotTopic is the error for show given a domain: it lists the
// domain's topics, the references show takes.
func domainNotTopic(lib *library.Library, domain string) error {
	var refs []string
	for _, t := range lib.Topics() {
		if t.Domain == domain {
			refs = append(refs, t.Key())
		}
	}
	const most = 20
	list := strings.Join(refs[:min(len(refs), most)], ", ")
	if len(refs) > most {
		list += fmt.Sprintf(", … (%d in all; ctxls catalog --domain %s)", len(refs), domain)
	}
	if len(refs) == 0 {
		return fmt.Errorf("%s is a domain, not a topic, and has no topics", domain)
	}
	return fmt.Errorf("%s is a domain, not a topic; show one of its topics: %s", domain, list)
}

// showHeader is the line that names what show prints.
func showHeader(rec showRecord, tokenizer string) string {
	return fmt.Sprintf("%s · %s · %s tokens (%s)", rec.Reference, rec.Title, thousands(rec.Tokens), tokenizer)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func joinWarnings(ws []contextprovider.Warning) string {
	var msgs []string
	for _, w := range ws {
		msgs = append(msgs, w.Message)
	}
	return strings.Join(msgs, "; ")
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
