package lsp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// This file runs the request fixtures under testdata/requests, as gopls
// runs its marker tests: each is a txtar archive holding a workspace, the
// editor's text with its cursors, the requests and their answers. The
// runner starts the server binary over stdio on the workspace (or a
// Server in this process, see below), sends each request and compares the
// answer, rendered as text, with the one in the archive. With -update it
// writes the answers it got instead.
//
// An archive's comment may set, one per line:
//
//	base: library          start from a copy of examples/library
//	base: agents           start from a copy of testdata/agents (the team project)
//	encoding: utf-8        offer UTF-8 positions (columns count bytes)
//	capabilities: JSON     merged into the client's default capabilities
//	link: path -> target   a symbolic link at path to target
//	server: in-process     serve from this process, without a file watcher of
//	                       the server's own: only the editor's tells of changes
//
// Its files are written over the base; without a base, a .ctxls.yaml
// naming context as the context root comes with files under context/
// unless the archive has its own. A file whose text holds cursors is
// written without them and opened in the editor. A cursor is ‸ or «name»;
// a section may give a position instead, line:char in the last document
// opened or path:line:char.
//
// The sections whose name starts with @ run in order. These change what
// the server sees and hold a text or nothing:
//
//	@open path...            the editor (re)opens path with this text, cursors
//	                         marked, or each path with its text on disk when
//	                         the section is empty, after closing every
//	                         document it had open
//	@change path             the editor replaces the whole text of the open
//	                         document path with this one, cursors marked
//	@close path              the editor closes path: the disk is its truth again
//	@settings {json}         the editor's ctxls settings change to these
//	@write path              another program writes path with this text, and
//	                         the editor's watcher tells the server
//	@remove path             another program removes path, and the editor's
//	                         watcher tells the server
//
// These ask, and each holds the answer it must get:
//
//	@hover [cursor]          hover at the cursor (‸ when none is named)
//	@definition [cursor]     definition
//	@references [cursor]     references without the declaration
//	@completion [cursor]     completion items
//	@prepareRename [cursor]  prepareRename
//	@rename cursor newName   rename (‸ as the cursor "‸")
//	@codeAction [cursor]     quick fixes for the diagnostic at the cursor
//	@codeAction cursor kind  the actions of kind (a prefix, as "refactor")
//	                         at the cursor, with no diagnostic in the context
//	@symbols [path]          document symbols (of the last opened document
//	@links [path]            document links   when no path is given)
//	@lens [path]             code lenses
//	@hints [path]            inlay hints of the whole document
//	@diagnostics [path]      the diagnostics the server publishes
//	@workspaceSymbol query   workspace symbols
//	@willRename old new      the edits before a file or folder is moved
//	@messages                the messages the server has shown (type and text)
//	@method name [params]    a custom method, its params a JSON object ({}
//	                         when none) in which $ROOT is the workspace's URI;
//	                         the answer is its result as indented JSON
//
// An answer is the result rendered as text, or "error CODE: message" for
// an error response; in every answer the workspace's URI and path are
// written $ROOT. The answers the server sends in its own time
// (diagnostics, messages) are waited for until they are the archive's.
// An argument that holds a space is written as a Go string:
// @willRename a.md "b c.md".
var fixtureUpdate = flag.Bool("update", false, "rewrite the answers of the fixtures under testdata/requests, and the editor's answers TestFrontendsAgree keeps, with the server's")

// fixtureDir holds the request fixtures.
const fixtureDir = "testdata/requests"

// TestFixtures runs every archive under testdata/requests, each on a
// server of its own.
func TestFixtures(t *testing.T) {
	t.Parallel()
	var paths []string
	err := filepath.WalkDir(fixtureDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".txtar") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.ToSlash(strings.TrimPrefix(p, fixtureDir+string(filepath.Separator))), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runFixture(t, p)
		})
	}
}

// fixtureCursor is a cursor of the editor's text.
type fixtureCursor struct {
	uri  string
	line int
	char int
}

// fixtureRun is the state of one archive's run.
type fixtureRun struct {
	t       *testing.T
	ctx     context.Context
	c       *Client
	root    string
	utf8    bool
	cursors map[string]fixtureCursor
	lastURI string
	version map[string]int // of the documents open
}

func runFixture(t *testing.T, path string) {
	a := testtree.ReadArchive(t, path)
	r := &fixtureRun{t: t, ctx: stdioCtx(t), cursors: map[string]fixtureCursor{}, version: map[string]int{}}
	caps := stdioDefaultCapabilities()
	base := ""
	links := map[string]string{}
	inProcess := false
	for _, line := range strings.Split(a.Comment, "\n") {
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch key {
		case "base":
			base = value
		case "encoding":
			if value != "utf-8" {
				t.Fatalf("encoding %q: only utf-8 is offered beside the default", value)
			}
			r.utf8 = true
			caps["general"] = map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}}
		case "server":
			if value != "in-process" {
				t.Fatalf("server %q: only in-process is offered beside the binary", value)
			}
			inProcess = true
		case "link":
			path, target, ok := strings.Cut(value, " -> ")
			if !ok {
				t.Fatalf("link %q: want path -> target", value)
			}
			links[path] = target
		case "capabilities":
			var more map[string]any
			if err := json.Unmarshal([]byte(value), &more); err != nil {
				t.Fatalf("capabilities: %v", err)
			}
			fixtureMerge(caps, more)
		}
	}
	switch base {
	case "":
		r.root = t.TempDir()
	case "library":
		r.root = libtest.CopyExample(t)
	case "agents":
		r.root = filepath.Join(t.TempDir(), "project")
		libtest.CopyTree(t, filepath.Join("..", "testdata", "agents"), r.root)
	default:
		t.Fatalf("base %q", base)
	}
	disk := map[string]string{}
	var opens []testtree.File
	for _, f := range a.Files {
		if strings.HasPrefix(f.Name, "@") {
			continue
		}
		text, marks := fixtureMarks(f.Data)
		disk[f.Name] = text
		if len(marks) > 0 {
			opens = append(opens, f)
		}
	}
	if base == "" {
		// A tree of topics under context/ is a library, as libtest
		// writes it.
		disk = libtest.WithRoot(disk)
	}
	testtree.WriteFiles(t, r.root, disk)
	fsguardtest.Links(t, r.root, links)

	if inProcess {
		r.c = inprocStart(t, r.root, inprocOptions{noInit: true}).Client
	} else {
		r.c = stdioStart(t, r.root)
	}
	init, err := r.c.Initialize(r.ctx, r.root, caps, nil)
	if err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, stdioTail(r.c.Stderr(), 2000))
	}
	if r.utf8 && !strings.Contains(string(init), `"positionEncoding":"utf-8"`) {
		t.Fatalf("the server did not take UTF-8 positions: %s", stdioTail(string(init), 500))
	}
	for _, f := range opens {
		r.open(f.Name, f.Data)
	}

	changed := false
	for i, f := range a.Files {
		if !strings.HasPrefix(f.Name, "@") {
			continue
		}
		verb, args, _ := strings.Cut(strings.TrimPrefix(f.Name, "@"), " ")
		switch verb {
		case "open":
			if err := r.c.CloseAll(); err != nil {
				t.Fatal(err)
			}
			clear(r.version)
			paths := fixtureArgs(t, args)
			if f.Data != "" && len(paths) != 1 {
				t.Fatalf("-- %s --: a text opens one path", f.Name)
			}
			for _, p := range paths {
				text := f.Data
				if text == "" {
					text = stdioRead(t, filepath.Join(r.root, filepath.FromSlash(p)))
				}
				r.open(p, text)
			}
			continue
		case "change":
			r.change(args, f.Data)
			continue
		case "settings":
			var settings map[string]any
			if err := json.Unmarshal([]byte(args), &settings); err != nil {
				t.Fatalf("-- %s --: %v", f.Name, err)
			}
			if err := r.c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": settings}}); err != nil {
				t.Fatal(err)
			}
			continue
		case "write", "remove":
			r.disk(verb, args, f.Data)
			continue
		case "close":
			uri := r.doc([]string{args})
			if err := r.c.DidClose(uri); err != nil {
				t.Fatal(err)
			}
			delete(r.version, uri)
			continue
		}
		want := f.Data
		var got string
		if verb == "method" {
			name, params, _ := strings.Cut(args, " ")
			got = r.method(name, params)
		} else {
			got = r.ask(verb, fixtureArgs(t, args), want)
		}
		if got == want {
			continue
		}
		if *fixtureUpdate {
			a.Files[i].Data = got
			changed = true
			continue
		}
		t.Errorf("%s: file %d, -- %s --: the answer differs (-want +got; -update writes what the server gave):\n%s", path, i+1, f.Name, fixtureDiff(want, got))
	}
	if changed {
		if err := os.WriteFile(path, testtree.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fixtureArgs splits a section's arguments at spaces; an argument that
// holds a space is written as a Go string, "like this".
func fixtureArgs(t *testing.T, s string) []string {
	t.Helper()
	var args []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] != '"' {
			arg, rest, _ := strings.Cut(s, " ")
			args = append(args, arg)
			s = rest
			continue
		}
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			t.Fatalf("arguments %s: %v", s, err)
		}
		arg, _ := strconv.Unquote(q)
		args = append(args, arg)
		s = s[len(q):]
	}
	return args
}

// fixtureMerge merges more into caps, object by object.
func fixtureMerge(caps, more map[string]any) {
	for k, v := range more {
		if sub, ok := v.(map[string]any); ok {
			if have, ok := caps[k].(map[string]any); ok {
				fixtureMerge(have, sub)
				continue
			}
		}
		caps[k] = v
	}
}

// fixtureMark is a cursor in a text: its name and byte offset.
type fixtureMark struct {
	name string
	off  int
}

// fixtureMarks returns text without its cursors, and the cursors.
func fixtureMarks(text string) (string, []fixtureMark) {
	var b strings.Builder
	var marks []fixtureMark
	for i := 0; i < len(text); {
		switch {
		case strings.HasPrefix(text[i:], "‸"):
			marks = append(marks, fixtureMark{"‸", b.Len()})
			i += len("‸")
			continue
		case strings.HasPrefix(text[i:], "«"):
			if j := strings.Index(text[i:], "»"); j > 0 {
				marks = append(marks, fixtureMark{text[i+len("«") : i+j], b.Len()})
				i += j + len("»")
				continue
			}
		}
		b.WriteByte(text[i])
		i++
	}
	return b.String(), marks
}

// open opens rel with text, its cursors taken out.
func (r *fixtureRun) open(rel, text string) {
	r.t.Helper()
	text, marks := fixtureMarks(text)
	uri := stdioFileURI(filepath.Join(r.root, filepath.FromSlash(rel)))
	if err := r.c.DidOpen(uri, text); err != nil {
		r.t.Fatal(err)
	}
	r.version[uri] = 1
	r.lastURI = uri
	r.mark(uri, text, marks)
}

// change replaces the text of the open document rel with text, its
// cursors taken out.
func (r *fixtureRun) change(rel, text string) {
	r.t.Helper()
	text, marks := fixtureMarks(text)
	uri := r.doc([]string{rel})
	v, ok := r.version[uri]
	if !ok {
		r.t.Fatalf("@change %s: the document is not open", rel)
	}
	r.version[uri] = v + 1
	if err := r.c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v + 1},
		"contentChanges": []any{map[string]any{"text": text}},
	}); err != nil {
		r.t.Fatal(err)
	}
	r.lastURI = uri
	r.mark(uri, text, marks)
}

// disk writes rel with text, or removes it, as another program does, and
// tells the server as the editor's watcher does.
func (r *fixtureRun) disk(verb, rel, text string) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	change := 2 // changed
	if verb == "remove" {
		change = 3
		if err := os.Remove(p); err != nil {
			r.t.Fatal(err)
		}
	} else {
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			change = 1 // created
		}
		testtree.Write(r.t, p, text)
	}
	if err := r.c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": stdioFileURI(p), "type": change}}}); err != nil {
		r.t.Fatal(err)
	}
}

// mark records the cursors of uri's text.
func (r *fixtureRun) mark(uri, text string, marks []fixtureMark) {
	for _, m := range marks {
		before := text[:m.off]
		start := strings.LastIndexByte(before, '\n') + 1
		char := m.off - start
		if !r.utf8 {
			char = stdioUTF16Len(before[start:])
		}
		r.cursors[m.name] = fixtureCursor{uri, strings.Count(before, "\n"), char}
	}
}

// cursor returns the cursor named by args[0], or ‸; a name line:char is
// that position of the last document opened, path:line:char that of path.
func (r *fixtureRun) cursor(args []string) fixtureCursor {
	r.t.Helper()
	name := "‸"
	if len(args) > 0 {
		name = args[0]
	}
	if c, ok := r.cursors[name]; ok {
		return c
	}
	// [path:]line:char
	uri := r.lastURI
	parts := strings.Split(name, ":")
	if n := len(parts); n > 2 {
		uri = r.doc([]string{strings.Join(parts[:n-2], ":")})
		parts = parts[n-2:]
	}
	line, err1 := strconv.Atoi(parts[0])
	char, err2 := strconv.Atoi(parts[len(parts)-1])
	if len(parts) != 2 || err1 != nil || err2 != nil {
		r.t.Fatalf("no cursor %q in the texts opened", name)
	}
	return fixtureCursor{uri, line, char}
}

// doc returns the URI of the document args[0] names, or of the last one
// opened.
func (r *fixtureRun) doc(args []string) string {
	if len(args) > 0 {
		return stdioFileURI(filepath.Join(r.root, filepath.FromSlash(args[0])))
	}
	return r.lastURI
}

// call sends a request and decodes its result into out. An error
// response is an answer too: call returns it rendered, "" for a result.
func (r *fixtureRun) call(method string, params, out any) string {
	r.t.Helper()
	err := r.c.Call(r.ctx, method, params, out)
	var rpcErr *ClientRPCError
	if errors.As(err, &rpcErr) {
		return fmt.Sprintf("error %d: %s\n", rpcErr.Code, r.rel(rpcErr.Message))
	}
	if err != nil {
		r.t.Fatalf("%s: %v\nstderr: %s", method, err, stdioTail(r.c.Stderr(), 2000))
	}
	return ""
}

// ask sends the request of verb and renders its answer. want is the
// answer of the archive, which a request answered from what the server
// publishes in its own time waits for.
func (r *fixtureRun) ask(verb string, args []string, want string) string {
	r.t.Helper()
	switch verb {
	case "hover":
		cur := r.cursor(args)
		var h *struct {
			Contents struct {
				Kind  string `json:"kind"`
				Value string `json:"value"`
			} `json:"contents"`
			Range *ClientRange `json:"range"`
		}
		if e := r.call("textDocument/hover", stdioPos(cur.uri, cur.line, cur.char), &h); e != "" {
			return e
		}
		if h == nil {
			return "null\n"
		}
		head := h.Contents.Kind
		if h.Range != nil {
			head += " " + fixtureRange(*h.Range)
		}
		return head + "\n\n" + r.rel(h.Contents.Value) + "\n"
	case "definition":
		cur := r.cursor(args)
		var raw json.RawMessage
		if e := r.call("textDocument/definition", stdioPos(cur.uri, cur.line, cur.char), &raw); e != "" {
			return e
		}
		return r.locations(stdioLocations(r.t, raw), false)
	case "references":
		cur := r.cursor(args)
		params := stdioPos(cur.uri, cur.line, cur.char)
		params["context"] = map[string]any{"includeDeclaration": false}
		var raw json.RawMessage
		if e := r.call("textDocument/references", params, &raw); e != "" {
			return e
		}
		return r.locations(stdioLocations(r.t, raw), true)
	case "completion":
		cur := r.cursor(args)
		var raw json.RawMessage
		if e := r.call("textDocument/completion", stdioPos(cur.uri, cur.line, cur.char), &raw); e != "" {
			return e
		}
		items, err := stdioDecodeCompletion(raw)
		if err != nil {
			r.t.Fatal(err)
		}
		var b strings.Builder
		for _, it := range items {
			fmt.Fprintf(&b, "%s", it.Label)
			if it.Detail != "" {
				fmt.Fprintf(&b, " | %s", it.Detail)
			}
			if it.LabelDetails != nil && it.LabelDetails.Description != "" {
				fmt.Fprintf(&b, " | %s", it.LabelDetails.Description)
			}
			if it.SortText != "" {
				fmt.Fprintf(&b, " | sort %s", it.SortText)
			}
			if e := it.TextEdit; e != nil {
				rng := e.Range
				if rng == nil {
					rng = e.Insert
				}
				if rng != nil {
					fmt.Fprintf(&b, " | %s %q", fixtureRange(*rng), e.NewText)
				}
			} else if it.InsertText != "" {
				fmt.Fprintf(&b, " | insert %q", it.InsertText)
			}
			b.WriteString("\n")
			// The documentation, indented, below its item.
			if doc := fixtureDoc(it.Documentation); doc != "" {
				for _, l := range strings.Split(strings.TrimRight(r.rel(doc), "\n"), "\n") {
					b.WriteString("\t" + l + "\n")
				}
			}
		}
		return b.String()
	case "prepareRename":
		cur := r.cursor(args)
		var raw json.RawMessage
		if e := r.call("textDocument/prepareRename", stdioPos(cur.uri, cur.line, cur.char), &raw); e != "" {
			return e
		}
		return string(raw) + "\n"
	case "rename":
		if len(args) != 2 {
			r.t.Fatalf("@rename cursor newName, not %q", args)
		}
		cur := r.cursor(args)
		params := stdioPos(cur.uri, cur.line, cur.char)
		params["newName"] = args[1]
		var edit *stdioWorkspaceEdit
		if e := r.call("textDocument/rename", params, &edit); e != "" {
			return e
		}
		return r.workspaceEdit(edit)
	case "willRename":
		if len(args) != 2 {
			r.t.Fatalf("@willRename old new, not %q", args)
		}
		var edit *stdioWorkspaceEdit
		if e := r.call("workspace/willRenameFiles", map[string]any{"files": []any{map[string]any{
			"oldUri": stdioFileURI(filepath.Join(r.root, filepath.FromSlash(args[0]))),
			"newUri": stdioFileURI(filepath.Join(r.root, filepath.FromSlash(args[1])))}}}, &edit); e != "" {
			return e
		}
		return r.workspaceEdit(edit)
	case "codeAction":
		cur := r.cursor(args)
		if len(args) == 2 {
			at := ClientRange{Start: ClientPosition{cur.line, cur.char}, End: ClientPosition{cur.line, cur.char}}
			return r.codeActions(map[string]any{
				"textDocument": map[string]any{"uri": cur.uri},
				"range":        at,
				"context":      map[string]any{"diagnostics": []any{}, "only": []string{args[1]}},
			})
		}
		ds, err := r.c.WaitDiagnostics(r.ctx, cur.uri, func(ds []ClientDiagnostic) bool {
			return slices.ContainsFunc(ds, func(d ClientDiagnostic) bool { return fixtureCovers(d.Range, cur) })
		})
		if err != nil {
			r.t.Fatalf("no diagnostic at the cursor: %v", err)
		}
		i := slices.IndexFunc(ds, func(d ClientDiagnostic) bool { return fixtureCovers(d.Range, cur) })
		return r.codeActions(map[string]any{
			"textDocument": map[string]any{"uri": cur.uri},
			"range":        ds[i].Range,
			"context":      map[string]any{"diagnostics": []ClientDiagnostic{ds[i]}, "only": []string{"quickfix"}},
		})
	case "symbols":
		var syms []fixtureSymbol
		if e := r.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": r.doc(args)}}, &syms); e != "" {
			return e
		}
		var b strings.Builder
		fixtureSymbols(&b, syms, "")
		return b.String()
	case "workspaceSymbol":
		var syms []struct {
			Name     string         `json:"name"`
			Location ClientLocation `json:"location"`
		}
		if e := r.call("workspace/symbol", map[string]any{"query": strings.Join(args, " ")}, &syms); e != "" {
			return e
		}
		var b strings.Builder
		for _, s := range syms {
			fmt.Fprintf(&b, "%s %s\n", s.Name, r.location(s.Location))
		}
		return b.String()
	case "links":
		var links []struct {
			Range  ClientRange `json:"range"`
			Target string      `json:"target"`
		}
		if e := r.call("textDocument/documentLink", map[string]any{"textDocument": map[string]any{"uri": r.doc(args)}}, &links); e != "" {
			return e
		}
		var b strings.Builder
		for _, l := range links {
			fmt.Fprintf(&b, "%s %s\n", fixtureRange(l.Range), r.rel(l.Target))
		}
		return b.String()
	case "lens":
		var lenses []struct {
			Range   ClientRange `json:"range"`
			Command *struct {
				Title string `json:"title"`
			} `json:"command"`
		}
		if e := r.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": r.doc(args)}}, &lenses); e != "" {
			return e
		}
		var b strings.Builder
		for _, l := range lenses {
			title := "(unresolved)"
			if l.Command != nil {
				title = l.Command.Title
			}
			fmt.Fprintf(&b, "%s %s\n", fixtureRange(l.Range), title)
		}
		return b.String()
	case "hints":
		var hints []struct {
			Label    json.RawMessage `json:"label"`
			Position ClientPosition  `json:"position"`
		}
		if e := r.call("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": r.doc(args)},
			"range": ClientRange{End: ClientPosition{Line: 1 << 20}}}, &hints); e != "" {
			return e
		}
		var b strings.Builder
		for _, h := range hints {
			var label string
			if json.Unmarshal(h.Label, &label) != nil {
				label = string(h.Label)
			}
			fmt.Fprintf(&b, "%d:%d %s\n", h.Position.Line, h.Position.Character, label)
		}
		return b.String()
	case "diagnostics":
		uri := r.doc(args)
		render := func(ds []ClientDiagnostic) string {
			var b strings.Builder
			for _, d := range ds {
				fmt.Fprintf(&b, "%s %d %s: %s\n", fixtureRange(d.Range), d.Severity, d.CodeString(), r.rel(d.Message))
				for _, rel := range d.Related {
					fmt.Fprintf(&b, "\trelated %s %s\n", r.location(rel.Location), r.rel(rel.Message))
				}
			}
			return b.String()
		}
		if *fixtureUpdate {
			// No answer to wait for: take the publication after which the
			// server stays quiet.
			return render(r.quietDiagnostics(uri))
		}
		ds, _ := r.c.WaitDiagnostics(r.ctx, uri, func(ds []ClientDiagnostic) bool { return render(ds) == want })
		return render(ds)
	case "messages":
		render := func() string {
			var b strings.Builder
			for _, n := range r.c.Notifications("window/showMessage") {
				var m struct {
					Type    int    `json:"type"`
					Message string `json:"message"`
				}
				if err := json.Unmarshal(n.Params, &m); err != nil {
					r.t.Fatalf("window/showMessage %s: %v", n.Params, err)
				}
				fmt.Fprintf(&b, "%d %s\n", m.Type, r.rel(m.Message))
			}
			return b.String()
		}
		if *fixtureUpdate {
			r.quiet("window/showMessage")
			return render()
		}
		for {
			ch := r.c.Expect("window/showMessage", func(json.RawMessage) bool { return true })
			if got := render(); got == want {
				return got
			}
			select {
			case <-ch:
			case <-r.ctx.Done():
				return render()
			}
		}
	}
	r.t.Fatalf("unknown request @%s", verb)
	return ""
}

// codeActions asks for the code actions of params and renders each: its
// title and kind, and its edit indented below.
func (r *fixtureRun) codeActions(params map[string]any) string {
	r.t.Helper()
	var actions []struct {
		Title string              `json:"title"`
		Kind  string              `json:"kind"`
		Edit  *stdioWorkspaceEdit `json:"edit"`
	}
	if e := r.call("textDocument/codeAction", params, &actions); e != "" {
		return e
	}
	var b strings.Builder
	for _, a := range actions {
		fmt.Fprintf(&b, "%s (%s)\n", a.Title, a.Kind)
		for _, l := range strings.SplitAfter(r.workspaceEdit(a.Edit), "\n") {
			if l != "" {
				b.WriteString("\t" + l)
			}
		}
	}
	return b.String()
}

// method calls a custom method with params, JSON in which $ROOT stands
// for the workspace's URI, and renders its result as indented JSON.
func (r *fixtureRun) method(name, params string) string {
	r.t.Helper()
	params = strings.TrimSpace(params)
	if params == "" {
		params = "{}"
	}
	params = strings.ReplaceAll(params, "$ROOT", stdioFileURI(r.root))
	if !json.Valid([]byte(params)) {
		r.t.Fatalf("@method %s: params %s are not JSON", name, params)
	}
	var raw json.RawMessage
	if e := r.call(name, json.RawMessage(params), &raw); e != "" {
		return e
	}
	out, err := fixtureJSON(raw)
	if err != nil {
		r.t.Fatalf("%s: result %s: %v", name, raw, err)
	}
	return r.rel(out)
}

// fixtureJSONWidth is the width up to which fixtureJSON writes an object
// or array on one line.
const fixtureJSONWidth = 100

// fixtureJSON renders a JSON value indented, its keys in the order they
// came, each object or array that fits on fixtureJSONWidth columns on one
// line.
func fixtureJSON(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := fixtureJSONValue(dec)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	v.write(&b, "")
	b.WriteString("\n")
	return b.String(), nil
}

// fixtureJSONNode is a JSON value: a scalar's text, or an object's keys
// and values, or an array's values.
type fixtureJSONNode struct {
	scalar string
	delim  json.Delim // '{' or '[' for an object or array
	keys   []string
	vals   []*fixtureJSONNode
}

func fixtureJSONValue(dec *json.Decoder) (*fixtureJSONNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		text, err := json.Marshal(tok)
		return &fixtureJSONNode{scalar: string(text)}, err
	}
	n := &fixtureJSONNode{delim: d}
	for dec.More() {
		if d == '{' {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := json.Marshal(key)
			n.keys = append(n.keys, string(k))
		}
		v, err := fixtureJSONValue(dec)
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
	}
	_, err = dec.Token() // the closing delimiter
	return n, err
}

// compact is the value on one line.
func (n *fixtureJSONNode) compact() string {
	if n.delim == 0 {
		return n.scalar
	}
	var b strings.Builder
	b.WriteRune(rune(n.delim))
	for i, v := range n.vals {
		if i > 0 {
			b.WriteString(", ")
		}
		if n.delim == '{' {
			b.WriteString(n.keys[i] + ": ")
		}
		b.WriteString(v.compact())
	}
	b.WriteRune(rune(n.delim) + 2) // '}' or ']'
	return b.String()
}

func (n *fixtureJSONNode) write(b *strings.Builder, indent string) {
	if one := n.compact(); n.delim == 0 || len(n.vals) == 0 || len(indent)+len(one) <= fixtureJSONWidth {
		b.WriteString(one)
		return
	}
	b.WriteRune(rune(n.delim))
	for i, v := range n.vals {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n" + indent + "  ")
		if n.delim == '{' {
			b.WriteString(n.keys[i] + ": ")
		}
		v.write(b, indent+"  ")
	}
	b.WriteString("\n" + indent)
	b.WriteRune(rune(n.delim) + 2)
}

// quietDiagnostics waits for a publication of uri's diagnostics and then
// until none has come for two seconds, and returns the last.
func (r *fixtureRun) quietDiagnostics(uri string) []ClientDiagnostic {
	r.t.Helper()
	if _, err := r.c.WaitDiagnostics(r.ctx, uri, func([]ClientDiagnostic) bool { return true }); err != nil {
		r.t.Fatal(err)
	}
	r.quiet("textDocument/publishDiagnostics")
	p, _ := r.c.LatestDiagnostics(uri)
	return p.Diagnostics
}

// quiet waits until no notification of method has come for two seconds.
func (r *fixtureRun) quiet(method string) {
	r.t.Helper()
	n := len(r.c.Notifications(method))
	for {
		select {
		case <-r.ctx.Done():
			r.t.Fatalf("%s kept coming", method)
		case <-time.After(2 * time.Second):
		}
		m := len(r.c.Notifications(method))
		if m == n {
			return
		}
		n = m
	}
}

// fixtureDoc returns the text of a completion item's documentation, a
// string or markup content.
func fixtureDoc(raw json.RawMessage) string {
	var markup struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(raw, &markup) == nil && markup.Value != "" {
		return markup.Value
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// fixtureCovers reports whether rng holds the cursor.
func fixtureCovers(rng ClientRange, cur fixtureCursor) bool {
	at := ClientPosition{cur.line, cur.char}
	before := func(a, b ClientPosition) bool {
		return a.Line < b.Line || a.Line == b.Line && a.Character <= b.Character
	}
	return before(rng.Start, at) && before(at, rng.End)
}

// fixtureSymbol is a DocumentSymbol.
type fixtureSymbol struct {
	Name     string          `json:"name"`
	Detail   string          `json:"detail"`
	Kind     int             `json:"kind"`
	Range    ClientRange     `json:"range"`
	Children []fixtureSymbol `json:"children"`
}

func fixtureSymbols(b *strings.Builder, syms []fixtureSymbol, indent string) {
	for _, s := range syms {
		fmt.Fprintf(b, "%s%s | %s | kind %d %s\n", indent, s.Name, s.Detail, s.Kind, fixtureRange(s.Range))
		fixtureSymbols(b, s.Children, indent+"\t")
	}
}

// fixtureRange renders a range as line:char-line:char, zero-based, in
// the units of the encoding.
func fixtureRange(r ClientRange) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
}

// rel replaces the workspace's URI and path in s with $ROOT.
func (r *fixtureRun) rel(s string) string {
	s = strings.ReplaceAll(s, stdioFileURI(r.root), "$ROOT")
	return strings.ReplaceAll(s, r.root, "$ROOT")
}

// location renders a location as its path relative to the workspace and
// its range.
func (r *fixtureRun) location(l ClientLocation) string {
	return r.rel(l.URI) + ":" + fixtureRange(l.Range)
}

// locations renders locations one a line, sorted when sorted is set (the
// order of references is the server's own).
func (r *fixtureRun) locations(locs []ClientLocation, sorted bool) string {
	if sorted {
		locs = slices.Clone(locs)
		slices.SortFunc(locs, func(a, b ClientLocation) int {
			return cmp.Or(strings.Compare(a.URI, b.URI), a.Range.Start.Line-b.Range.Start.Line, a.Range.Start.Character-b.Range.Start.Character)
		})
	}
	var b strings.Builder
	for _, l := range locs {
		b.WriteString(r.location(l) + "\n")
	}
	return b.String()
}

// workspaceEdit renders a WorkspaceEdit: its text edits in order of file
// and position, then its file operations and the versions of the open
// documents its edits apply to, one a line.
func (r *fixtureRun) workspaceEdit(e *stdioWorkspaceEdit) string {
	if e == nil {
		return "null\n"
	}
	type edit struct {
		uri string
		ClientTextEdit
	}
	var edits []edit
	for uri, es := range e.Changes {
		for _, te := range es {
			edits = append(edits, edit{uri, te})
		}
	}
	var ops []string
	for _, dc := range e.DocumentChanges {
		switch {
		case dc.Kind != "":
			ops = append(ops, fmt.Sprintf("%s %s %s\n", dc.Kind, r.rel(dc.OldURI), r.rel(dc.NewURI)))
		case dc.TextDocument != nil:
			for _, te := range dc.Edits {
				edits = append(edits, edit{dc.TextDocument.URI, te})
			}
			if v := dc.TextDocument.Version; v != nil {
				ops = append(ops, fmt.Sprintf("edits %s at version %d\n", r.rel(dc.TextDocument.URI), *v))
			}
		}
	}
	slices.SortStableFunc(edits, func(a, b edit) int {
		return cmp.Or(strings.Compare(a.uri, b.uri), a.Range.Start.Line-b.Range.Start.Line, a.Range.Start.Character-b.Range.Start.Character)
	})
	var b strings.Builder
	for _, e := range edits {
		fmt.Fprintf(&b, "%s:%s %q\n", r.rel(e.uri), fixtureRange(e.Range), e.NewText)
	}
	slices.Sort(ops)
	for _, op := range ops {
		b.WriteString(op)
	}
	return b.String()
}

// fixtureDiff is a line diff of want and got: lines only in want start
// with -, lines only in got with +.
func fixtureDiff(want, got string) string {
	a, b := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	// Longest common subsequence, by dynamic programming: answers are
	// short.
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	line := func(prefix, s string) {
		if s == "" {
			return
		}
		out.WriteString(prefix + strings.TrimSuffix(s, "\n") + "\n")
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			line(" ", a[i])
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			line("-", a[i])
			i++
		default:
			line("+", b[j])
			j++
		}
	}
	return out.String()
}

func TestFixtureMarks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, text string
		marks    []fixtureMark
	}{
		{"no cursor", "no cursor", nil},
		{"a‸b", "ab", []fixtureMark{{"‸", 1}}},
		{"😀«x»y«long name»", "😀y", []fixtureMark{{"x", 4}, {"long name", 5}}},
		{"an « alone", "an « alone", nil},
	} {
		text, marks := fixtureMarks(tc.in)
		if text != tc.text || !slices.Equal(marks, tc.marks) {
			t.Errorf("fixtureMarks(%q) = %q, %v; want %q, %v", tc.in, text, marks, tc.text, tc.marks)
		}
	}
}

func TestFixtureDiff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ want, got, diff string }{
		{"a\nb\n", "a\nb\n", " a\n b\n"},
		{"a\nb\nc\n", "a\nB\nc\n", " a\n-b\n+B\n c\n"},
		{"a\n", "", "-a\n"},
		{"", "a\n", "+a\n"},
	} {
		if got := fixtureDiff(tc.want, tc.got); got != tc.diff {
			t.Errorf("fixtureDiff(%q, %q) = %q, want %q", tc.want, tc.got, got, tc.diff)
		}
	}
}
