//go:build unix

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// badRename is a rename of the topic named at the first At of File.
type badRename struct {
	File    string `json:"file"`
	At      string `json:"at"`
	NewName string `json:"newName"`
}

// badMove is a file or folder an editor moves; a To starting with
// "@outside/" leaves the workspace.
type badMove struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// badAfter is the workspace once a rename or move is done.
type badAfter struct {
	// Moved maps files that moved to where they are now.
	Moved map[string]string `json:"moved"`
	// Contains maps files to a text each holds.
	Contains map[string]string `json:"contains"`
	// Diagnostics are exactly those of ctxls check.
	Diagnostics []badDiag `json:"diagnostics"`
}

// badFix is what the first of two runs of ctxls check --fix says.
type badFix struct {
	// Left is what it says of a file it leaves; "" for nothing.
	Left string `json:"left"`
}

// badRenameCase renames or moves through ctxls serve over stdio, applies
// the workspace edit it answers as an editor does (the text edits, then
// the file renames, then the editor's own moves), and checks the
// workspace with ctxls check: every reference followed, none broken.
func badRenameCase(t *testing.T, dir string, c badCase) {
	ctx, cancel := context.WithTimeout(context.Background(), badTimeout)
	defer cancel()
	outside := t.TempDir()
	abs := func(rel string) string {
		if rest, ok := strings.CutPrefix(rel, "@outside/"); ok {
			return filepath.Join(outside, filepath.FromSlash(rest))
		}
		return filepath.Join(dir, filepath.FromSlash(rel))
	}
	cl := StartClient(t, dir, stdioBinaryPath(t), "serve")
	if _, err := cl.Initialize(ctx, dir, nil, nil); err != nil {
		t.Fatalf("initialize: %v\n%s", err, cl.Stderr())
	}
	var edit stdioWorkspaceEdit
	var err error
	start := time.Now()
	if r := c.Rename; r != nil {
		p := abs(r.File)
		line, col, _ := stdioFind(t, stdioRead(t, p), r.At, 0)
		params := stdioPos(stdioFileURI(p), line, col+stdioUTF16Len(r.At)-1)
		params["newName"] = r.NewName
		err = cl.Call(ctx, "textDocument/rename", params, &edit)
	} else {
		var files []any
		for _, m := range c.Move {
			files = append(files, map[string]any{"oldUri": stdioFileURI(abs(m.From)), "newUri": stdioFileURI(abs(m.To))})
		}
		err = cl.Call(ctx, "workspace/willRenameFiles", map[string]any{"files": files}, &edit)
	}
	took := time.Since(start)
	if c.MoveRefused != "" {
		var rpcErr *ClientRPCError
		if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, c.MoveRefused) {
			t.Fatalf("the move: %v, want a refusal saying %q; edit %+v", err, c.MoveRefused, edit)
		}
		if !slicesContainsMessage(cl, c.MoveRefused) {
			t.Errorf("the user is not told why (window/showMessage saying %q)", c.MoveRefused)
		}
		return
	}
	if err != nil {
		t.Fatalf("the rename: %v\n%s", err, cl.Stderr())
	}
	edits, files := badApplyEdit(t, edit)
	t.Logf("answered in %v: %d edits in %d files, %d file renames", took.Round(time.Millisecond), edits, files, len(edit.DocumentChanges)-files)
	for _, m := range c.Move {
		if err := os.MkdirAll(filepath.Dir(abs(m.To)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(abs(m.From), abs(m.To)); err != nil {
			t.Fatal(err)
		}
	}
	a := c.After
	if a == nil {
		t.Fatal("the case says nothing of the workspace after the rename")
	}
	for from, to := range a.Moved {
		if _, err := os.Lstat(abs(from)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there (%v)", from, err)
		}
		if _, err := os.Lstat(abs(to)); err != nil {
			t.Errorf("%s did not move to %s: %v", from, to, err)
		}
	}
	for rel, want := range a.Contains {
		if got := stdioRead(t, abs(rel)); !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", rel, want, stdioTail(got, 2000))
		}
	}
	sameDiags(t, "check after the rename", badCheckJSON(t, ctx, dir), a.Diagnostics)
}

// slicesContainsMessage reports whether the server showed the user a
// message holding text.
func slicesContainsMessage(cl *Client, text string) bool {
	for _, n := range cl.Notifications("window/showMessage") {
		var p struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(n.Params, &p) == nil && strings.Contains(p.Message, text) {
			return true
		}
	}
	return false
}

// badApplyEdit applies a workspace edit to the files on disk as an editor
// does: the text edits of each file, then the file renames, in order. It
// returns how many text edits it made, in how many files.
func badApplyEdit(t *testing.T, edit stdioWorkspaceEdit) (edits, files int) {
	t.Helper()
	write := func(p string, es []ClientTextEdit) {
		if err := os.WriteFile(p, []byte(stdioApplyEdits(t, stdioRead(t, p), es)), 0o644); err != nil {
			t.Fatal(err)
		}
		edits += len(es)
		files++
	}
	for u, es := range edit.Changes {
		write(stdioURIPath(u), es)
	}
	for _, dc := range edit.DocumentChanges {
		switch {
		case dc.Kind == "rename":
			if err := os.Rename(stdioURIPath(dc.OldURI), stdioURIPath(dc.NewURI)); err != nil {
				t.Fatal(err)
			}
		case dc.Kind != "":
			t.Fatalf("a %s in the edit", dc.Kind)
		case dc.TextDocument != nil:
			write(stdioURIPath(dc.TextDocument.URI), dc.Edits)
		}
	}
	return edits, files
}

// badCheckJSON returns the diagnostics of ctxls check --format json.
func badCheckJSON(t *testing.T, ctx context.Context, dir string) []badDiag {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, stdioBinaryPath(t), "check", "--no-cache", "--format", "json", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); ctx.Err() != nil || strings.Contains(stderr.String(), "panic") {
		t.Fatalf("ctxls check: %v\n%s", err, stderr.String())
	}
	return badParseJSON(t, stdout.Bytes())
}

// badFixTwice runs ctxls check --fix twice: the first may fix and may
// leave a file it says it leaves, the second writes nothing.
func badFixTwice(t *testing.T, dir string, c badCase) {
	ctx, cancel := context.WithTimeout(context.Background(), badTimeout)
	defer cancel()
	fix := func() string {
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, stdioBinaryPath(t), "check", "--no-cache", "--fix", dir)
		cmd.Stdout, cmd.Stderr = new(bytes.Buffer), &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if ctx.Err() != nil || err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
			t.Fatalf("ctxls check --fix: %v\n%s", err, stderr.String())
		}
		return stderr.String()
	}
	first := fix()
	if c.Fix.Left != "" && !strings.Contains(first, c.Fix.Left) {
		t.Errorf("the first --fix does not say %q:\n%s", c.Fix.Left, first)
	}
	if strings.Contains(first, "settle") {
		t.Errorf("the first --fix does not settle:\n%s", first)
	}
	before := badTree(t, dir)
	second := fix()
	if strings.Contains(second, "fixed") || strings.Contains(second, "settle") {
		t.Errorf("the second --fix writes:\n%s", second)
	}
	after := badTree(t, dir)
	for rel, e := range before {
		if after[rel] != e {
			t.Errorf("the second --fix changed %s: %+v, was %+v", rel, after[rel], e)
		}
	}
}

// badEntry is a file of a tree: its text, or where its link leads, and
// how many names it has.
type badEntry struct {
	text, link string
	links      uint64
}

// badTree reads every file and link of dir.
func badTree(t *testing.T, dir string) map[string]badEntry {
	t.Helper()
	out := map[string]badEntry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		var e badEntry
		if d.Type()&fs.ModeSymlink != 0 {
			e.link, err = os.Readlink(p)
		} else if d.Type().IsRegular() {
			var data []byte
			data, err = os.ReadFile(p)
			e.text = string(data)
			var st syscall.Stat_t
			if err == nil {
				err = syscall.Stat(p, &st)
			}
			e.links = uint64(st.Nlink)
		}
		out[filepath.ToSlash(rel)] = e
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
