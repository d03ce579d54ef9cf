package ops_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/workspace"
)

const fastapi = `---
id: python/fastapi_patterns
domain: python
title: FastAPI patterns
type: pattern
loadingStrategy: onDemand
tags: [fastapi, api]
---
# FastAPI patterns

Intro.

## Security

Use OAuth2.
`

var tree = map[string]string{
	"context/python/fastapi_patterns.md": fastapi,
	"commands/implement.md":              "# Implement\n\nLoad python:fastapi_patterns and python:missing.\n",
}

func load(t *testing.T, files map[string]string) (*ops.Ops, string) {
	t.Helper()
	dir := libtest.WriteTree(t, files)
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return ops.New(ops.Options{Snapshot: ops.Static(lib.Snapshot())}), dir
}

func TestContextOperations(t *testing.T) {
	t.Parallel()
	o, _ := load(t, tree)
	ctx := context.Background()

	cat, err := o.Catalog(ctx, ops.CatalogRequest{})
	if err != nil || len(cat.Items) != 1 || cat.Items[0].ID != "python/fastapi_patterns" {
		t.Fatalf("Catalog = %+v, %v; want the one topic", cat, err)
	}
	found, err := o.Search(ctx, ops.SearchRequest{Query: "fastapi"})
	if err != nil || len(found.Items) != 1 {
		t.Fatalf("Search(fastapi) = %+v, %v; want one item", found, err)
	}
	ref, err := o.Reference(ctx, ops.ReferenceRequest{Domain: "python", File: "fastapi_patterns"})
	if err != nil || ref.Title != "FastAPI patterns" {
		t.Fatalf("Reference = %+v, %v", ref, err)
	}
	file, err := o.Materialize(ctx, ops.MaterializeRequest{Reference: &ops.TopicRef{Reference: ref.Reference}})
	if err != nil || !strings.Contains(file.Content, "Use OAuth2.") || strings.Contains(file.Content, "loadingStrategy") {
		t.Fatalf("Materialize = %+v, %v; want the body without frontmatter", file, err)
	}
	shown, err := o.Show(ctx, ops.ShowRequest{Reference: "python:fastapi_patterns#Security"})
	if err != nil || shown.Reference != "python:fastapi_patterns#Security" || !strings.Contains(shown.Content, "OAuth2") || shown.Tokens <= 0 {
		t.Fatalf("Show = %+v, %v", shown, err)
	}
	cmds, err := o.Commands(ctx, ops.Empty{})
	if err != nil || len(cmds.Items) != 1 || cmds.Items[0].Unresolved != 1 || cmds.Items[0].Tokens <= 0 {
		t.Fatalf("Commands = %+v, %v; want one command with one unresolved reference", cmds, err)
	}
}

func TestInvalidRequests(t *testing.T) {
	t.Parallel()
	o, _ := load(t, tree)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
	}{
		{"search without query", func() error { _, err := o.Search(ctx, ops.SearchRequest{Query: " "}); return err }},
		{"negative limit", func() error { _, err := o.Search(ctx, ops.SearchRequest{Query: "x", Limit: -1}); return err }},
		{"reference without file", func() error { _, err := o.Reference(ctx, ops.ReferenceRequest{Domain: "python"}); return err }},
		{"reference escaping the root", func() error {
			_, err := o.Reference(ctx, ops.ReferenceRequest{Domain: "..", File: "etc/passwd"})
			return err
		}},
		{"materialize without reference", func() error { _, err := o.Materialize(ctx, ops.MaterializeRequest{}); return err }},
		{"domain index without domain", func() error { _, err := o.DomainIndex(ctx, ops.DomainRequest{}); return err }},
		{"invalidate a file without domain", func() error {
			_, err := o.Invalidate(ctx, ops.InvalidateRequest{File: "x"})
			return err
		}},
		{"show an unknown topic", func() error { _, err := o.Show(ctx, ops.ShowRequest{Reference: "python:nope"}); return err }},
		{"show an unknown section", func() error {
			_, err := o.Show(ctx, ops.ShowRequest{Reference: "python:fastapi_patterns#Nope"})
			return err
		}},
		{"check outside the workspace", func() error { _, err := o.Check(ctx, ops.CheckRequest{Path: "../x"}); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.call()
			if !errors.Is(err, ops.ErrInvalid) {
				t.Fatalf("error = %v; want one matching ErrInvalid", err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	o, dir := load(t, tree)
	ctx := context.Background()
	all, err := o.Check(ctx, ops.CheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var unresolved *ops.Diagnostic
	for i, d := range all.Items {
		if d.Code == "unresolved-reference" {
			unresolved = &all.Items[i]
		}
	}
	if unresolved == nil || unresolved.File != "commands/implement.md" || unresolved.Line != 3 || all.Errors == 0 {
		t.Fatalf("Check = %+v; want the unresolved python:missing on line 3 of commands/implement.md", all)
	}
	for _, path := range []string{"context", filepath.Join(dir, "context", "python", "fastapi_patterns.md")} {
		some, err := o.Check(ctx, ops.CheckRequest{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range some.Items {
			if !strings.HasPrefix(d.File, "context/") {
				t.Errorf("Check(%s) reports %s; want only files under context/", path, d.File)
			}
		}
	}
}

func TestDocumentCostOverlay(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, tree)
	ws, err := workspace.Open(context.Background(), dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	cmd := filepath.Join(dir, "commands", "implement.md")
	ws.DidOpen(cmd, "python:fastapi_patterns\n", 1)
	o := ops.New(ops.Options{Snapshot: func() ops.Snapshot { return ws.Snapshot() }})
	res, err := o.DocumentCost(context.Background(), ops.DocumentCostRequest{URI: "file://" + filepath.ToSlash(cmd)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || !res.Items[0].Resolved || res.Total <= 0 {
		t.Fatalf("DocumentCost = %+v; want the one resolved reference of the editor's text", res)
	}
	res, err = o.DocumentCost(context.Background(), ops.DocumentCostRequest{URI: filepath.Join(dir, "absent.md")})
	if err != nil || len(res.Warnings) != 1 || res.Warnings[0].Code != "unreadable-document" {
		t.Fatalf("DocumentCost(absent) = %+v, %v; want a warning", res, err)
	}
}

// TestCostRepliesBounded prices a command of 4,000 references, half of
// them to distinct missing topics: the replies list at most 500 and count
// the rest, and a cancelled request gives its context's error.
func TestCostRepliesBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# Dense\n\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "python:fastapi_patterns python:missing%d\n", i)
	}
	o, dir := load(t, map[string]string{
		"context/python/fastapi_patterns.md": fastapi,
		"commands/dense.md":                  b.String(),
	})
	ctx := context.Background()
	res, err := o.DocumentCost(ctx, ops.DocumentCostRequest{URI: filepath.Join(dir, "commands", "dense.md")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 500 || res.Omitted != 3500 || res.References != 4000 || res.Unresolved != 2000 || res.Total <= 0 {
		t.Errorf("DocumentCost: %d items, %d omitted, %d references, %d unresolved, total %d; want 500, 3500, 4000, 2000, > 0",
			len(res.Items), res.Omitted, res.References, res.Unresolved, res.Total)
	}
	if len(res.Topics) != 1 || res.Topics[0].References != 2000 || res.Topics[0].Tokens != res.Total {
		t.Errorf("DocumentCost topics = %+v; want fastapi_patterns, 2000 references, the whole total", res.Topics)
	}
	cmds, err := o.Commands(ctx, ops.Empty{})
	if err != nil || len(cmds.Items) != 1 {
		t.Fatalf("Commands = %+v, %v; want one command", cmds, err)
	}
	if c := cmds.Items[0]; len(c.References) != 500 || c.OmittedReferences != 2001-500 || c.Unresolved != 2000 || c.Tokens != res.Total {
		t.Errorf("Commands: %d references, %d omitted, %d unresolved, %d tokens; want 500, 1501, 2000, %d",
			len(c.References), c.OmittedReferences, c.Unresolved, c.Tokens, res.Total)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := o.Commands(cancelled, ops.Empty{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Commands with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestDocumentCostGuardedRead checks that a document neither open nor
// indexed is read only when the workspace's root check allows it: a link
// to a file outside is refused without reading it, and a named pipe
// neither blocks the request nor is read.
func TestDocumentCostGuardedRead(t *testing.T) {
	t.Parallel()
	o, dir := load(t, tree)
	secret := fsguardtest.Outside(t, "secret.md", "python:fastapi_patterns TOP-SECRET\n")
	link := fsguardtest.Link(t, secret, filepath.Join(dir, "notes", "leak.md"))
	fifo := fsguardtest.Pipe(t, filepath.Join(dir, "notes", "pipe.md"))
	tests := []struct {
		name, path, want string
	}{
		{"link out of the root", link, "outside the workspace"},
		{"named pipe", fifo, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var res ops.DocumentCostResponse
			var err error
			fsguardtest.Within(t, "DocumentCost("+tt.path+")", func() {
				res, err = o.DocumentCost(context.Background(), ops.DocumentCostRequest{URI: tt.path})
			})
			if err != nil {
				t.Fatalf("DocumentCost(%s): %v", tt.path, err)
			}
			if len(res.Items) != 0 || res.Total != 0 {
				t.Errorf("DocumentCost(%s) read the file: %+v", tt.path, res)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, tt.want) {
				t.Errorf("DocumentCost(%s) warnings = %+v; want one containing %q", tt.path, res.Warnings, tt.want)
			}
		})
	}
}
