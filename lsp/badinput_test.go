//go:build unix

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// badCase is a case of the bad-input catalogue (testdata/badinput).
type badCase struct {
	About       string     `json:"about"`
	Setup       []badSetup `json:"setup"`
	Diagnostics []badDiag  `json:"diagnostics"`
	Warnings    []badDiag  `json:"warnings"`
	Frames      []string   `json:"frames"`
	// Hidden are texts that no part may print or send: what a link out of
	// the workspace leads to, and its path.
	Hidden []string `json:"hidden"`
	// RefuseRun names a command whose chain must not run, from the
	// command line or the server, because the workspace's exec executor
	// was not agreed to; the executor would write the file "ran".
	RefuseRun string `json:"refuseRun"`
	// Interrupt marks a case long enough to stop midway: ctxls check, sent
	// SIGTERM while it runs, must exit with status 130.
	Interrupt bool `json:"interrupt"`
	// Rename renames a topic through the language server, Move moves
	// files and folders as an editor does (workspace/willRenameFiles,
	// then the move); After is what the workspace must be once the edit
	// the server answered is applied. MoveRefused, instead, is what the
	// server's refusal of the move must say.
	Rename      *badRename `json:"rename"`
	Move        []badMove  `json:"move"`
	MoveRefused string     `json:"moveRefused"`
	After       *badAfter  `json:"after"`
	// Fix runs ctxls check --fix twice: the second run must write nothing.
	Fix *badFix `json:"fix"`
}

// badSetup is what a case generates at test time.
type badSetup struct {
	Kind    string `json:"kind"` // write, script (write, executable), symlink, hardlink, fifo, outside
	Path    string `json:"path"`
	Target  string `json:"target"` // symlink ("@outside/" stands for the directory outside); hardlink, in the workspace
	Prefix  string `json:"prefix"`
	Repeat  string `json:"repeat"` // "{i}" in it stands for the repetition's number
	Count   int    `json:"count"`
	Suffix  string `json:"suffix"`
	Content string `json:"content"` // outside
}

// badDiag is an expected diagnostic or warning: the message must hold
// Message.
type badDiag struct {
	File     string `json:"file"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Agent marks a diagnostic of an agent file (a memory file's import),
	// which the library loader does not report.
	Agent bool `json:"agent"`
	// Reported marks a warning of the scan about a file that a diagnostic
	// reports as not read already: check says it once, by the diagnostic.
	Reported bool `json:"reported"`
	// Count is how many such diagnostics there are; 0 means one.
	Count int `json:"count"`
}

func (d badDiag) String() string { return d.File + " " + d.Code + " " + d.Severity }

const badRoot = "../testdata/badinput"

// badTimeout bounds each part of a case: the cases of a million lines take
// seconds of CPU, which a machine shared by many processes stretches.
const badTimeout = 3 * time.Minute

// TestBadInputCatalogue runs every case of testdata/badinput through the
// library loader, ctxls check and the language server. Each must report
// exactly the case's diagnostics, warn as the case says, finish, and keep
// the base library whole: python:good#Part resolves and commands/use.md
// has no diagnostic.
//
// Its cases of a million lines keep both cores busy for minutes under the
// race detector, so the catalogue is not run in parallel with the
// package's other tests: they start once it is done, and their deadlines
// measure their own work.
func TestBadInputCatalogue(t *testing.T) {
	entries, err := os.ReadDir(badRoot)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), "_") {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(filepath.Join(badRoot, e.Name(), "expect.json"))
			if err != nil {
				t.Fatal(err)
			}
			var c badCase
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatalf("expect.json: %v", err)
			}
			if c.About == "" {
				t.Fatal("expect.json says nothing about the case")
			}
			dir := badWorkspace(t, e.Name(), c)
			// These only read dir; the parts that write make their own.
			own := func(applies bool, run func(*testing.T, string, badCase)) func(*testing.T, string, badCase) {
				return func(t *testing.T, _ string, c badCase) {
					if applies {
						run(t, badWorkspace(t, e.Name(), c), c)
					}
				}
			}
			for _, part := range []struct {
				name string
				run  func(*testing.T, string, badCase)
			}{{"library", badLibrary}, {"check", badCheck}, {"mcp", badMCP}, {"server", badServer}, {"interrupt", badInterrupt},
				{"rename", own(c.Rename != nil || len(c.Move) > 0, badRenameCase)}, {"fix", own(c.Fix != nil, badFixTwice)}} {
				t.Run(part.name, func(t *testing.T) {
					t.Parallel()
					part.run(t, dir, c)
				})
			}
		})
	}
	if n < 15 {
		t.Errorf("only %d cases in %s", n, badRoot)
	}
}

// badWorkspace lays the case's files over the base library in a new
// directory and runs its setup.
func badWorkspace(t *testing.T, name string, c badCase) string {
	t.Helper()
	dir, outside := t.TempDir(), t.TempDir()
	libtest.CopyTree(t, filepath.Join(badRoot, "_base"), dir)
	// A case may bring no files of its own, only a setup.
	files := filepath.Join(badRoot, name, "files")
	if _, err := os.Stat(files); err == nil {
		libtest.CopyTree(t, files, dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for _, s := range c.Setup {
		p := filepath.Join(dir, filepath.FromSlash(s.Path))
		switch s.Kind {
		case "write", "script":
			var b bytes.Buffer
			b.WriteString(s.Prefix)
			indexed := strings.Contains(s.Repeat, "{i}")
			for i := range s.Count {
				if indexed {
					b.WriteString(strings.ReplaceAll(s.Repeat, "{i}", strconv.Itoa(i)))
				} else {
					b.WriteString(s.Repeat)
				}
			}
			b.WriteString(s.Suffix)
			data := b.Bytes()
			if strings.Contains(s.Repeat, "\u00ff") {
				data = latin1(b.String()) // binary: one byte per character
			}
			testtree.Write(t, p, string(data))
			if s.Kind == "script" {
				if err := os.Chmod(p, 0o755); err != nil {
					t.Fatal(err)
				}
			}
		case "outside":
			testtree.Write(t, filepath.Join(outside, filepath.FromSlash(s.Path)), s.Content)
		case "symlink":
			fsguardtest.Link(t, strings.Replace(s.Target, "@outside", outside, 1), p)
		case "hardlink":
			if err := os.Link(filepath.Join(dir, filepath.FromSlash(s.Target)), p); err != nil {
				t.Fatal(err)
			}
		case "fifo":
			fsguardtest.Pipe(t, p)
		default:
			t.Fatalf("setup %+v: unknown kind %q", s, s.Kind)
		}
	}
	return dir
}

// latin1 turns characters 0 to 255 into one byte each.
func latin1(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		out = append(out, byte(r))
	}
	return out
}

// sameDiags fails t unless got holds exactly the diagnostics of want, by
// file, code and severity (when want names one), each message holding
// the expected text.
func sameDiags(t *testing.T, where string, got, want []badDiag) {
	t.Helper()
	var expanded []badDiag
	for _, w := range want {
		for range max(1, w.Count) {
			expanded = append(expanded, w)
		}
	}
	want = expanded
	key := func(d badDiag) string { return d.File + " " + d.Code }
	// Counted by key, so that a case of a thousand diagnostics fails
	// with a line per key.
	count := func(ds []badDiag) map[string]int {
		m := map[string]int{}
		for _, d := range ds {
			m[key(d)]++
		}
		return m
	}
	if gotN, wantN := count(got), count(want); !maps.Equal(gotN, wantN) {
		sample := got[:min(len(got), 5)]
		t.Errorf("%s: diagnostics by file and code\n got %v\nwant %v\nthe first: %+v", where, gotN, wantN, sample)
		return
	}
	for _, w := range want {
		i := slices.IndexFunc(got, func(g badDiag) bool {
			return key(g) == key(w) && strings.Contains(g.Message, w.Message) && (w.Severity == "" || g.Severity == w.Severity)
		})
		if i < 0 {
			t.Errorf("%s: no %s diagnostic says %q (severity %q); got %+v", where, key(w), w.Message, w.Severity, got)
		}
	}
}

func badLibrary(t *testing.T, dir string, c badCase) {
	done := make(chan *library.Library, 1)
	errc := make(chan error, 1)
	go func() {
		l, err := library.Load(context.Background(), dir, nil, library.Options{})
		if err != nil {
			errc <- err
			return
		}
		done <- l
	}()
	var l *library.Library
	select {
	case l = <-done:
	case err := <-errc:
		t.Fatalf("Load: %v", err)
	case <-time.After(badTimeout):
		t.Fatal("Load did not finish")
	}
	var got []badDiag
	for p, ds := range l.Snapshot().DiagnoseAll(context.Background()) {
		rel, _ := filepath.Rel(dir, p)
		for _, d := range ds {
			got = append(got, badDiag{File: filepath.ToSlash(rel), Code: d.Code, Severity: d.Severity.String(), Message: d.Message})
		}
	}
	for _, pr := range l.Snapshot().ConfigProblems() {
		got = append(got, badDiag{File: ".ctxls.yaml", Code: "config", Severity: pr.Severity, Message: pr.Message})
	}
	var want []badDiag
	for _, d := range c.Diagnostics {
		if !d.Agent {
			want = append(want, d)
		}
	}
	sameDiags(t, "library", got, want)
	for _, w := range c.Warnings {
		if !slices.ContainsFunc(l.Snapshot().Warnings(), func(lw discover.Warning) bool {
			return strings.HasSuffix(lw.Path, filepath.FromSlash(w.File)) && strings.Contains(lw.Message, w.Message)
		}) {
			t.Errorf("no warning for %s saying %q; warnings: %v", w.File, w.Message, l.Snapshot().Warnings())
		}
	}
	if tp, ok := l.Snapshot().Topic("python/good"); !ok || len(tp.Sections) == 0 {
		t.Error("python/good lost")
	}
}

func badCheck(t *testing.T, dir string, c badCase) {
	ctx, cancel := context.WithTimeout(context.Background(), badTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, stdioBinaryPath(t), "check", "--format", "json", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ctxls check did not finish; stderr:\n%s", stderr.String())
	}
	got := badParseJSON(t, stdout.Bytes())
	sameDiags(t, "check", got, c.Diagnostics)
	wantStatus := 0
	for _, d := range got {
		if d.Severity == "error" {
			wantStatus = 1
		}
	}
	var ee *exec.ExitError
	switch {
	case err == nil && wantStatus != 0, errors.As(err, &ee) && ee.ExitCode() != wantStatus, err != nil && !errors.As(err, &ee):
		t.Errorf("ctxls check: %v, want exit status %d; stderr:\n%s", err, wantStatus, stderr.String())
	}
	for _, w := range c.Warnings {
		switch {
		case w.Reported && strings.Contains(stderr.String(), w.File+": "):
			t.Errorf("check warns about %s, which a diagnostic reports already:\n%s", w.File, stderr.String())
		case !w.Reported && (!strings.Contains(stderr.String(), w.File+": ") || !strings.Contains(stderr.String(), w.Message)):
			t.Errorf("check's stderr lacks the warning for %s (%q):\n%s", w.File, w.Message, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("check panicked:\n%s", stderr.String())
	}
	badHidden(t, "check's output", c, stdout.Bytes(), stderr.Bytes())
	badSARIF(t, ctx, dir, got)
	if c.RefuseRun == "" {
		return
	}
	stdout.Reset()
	stderr.Reset()
	run := exec.CommandContext(ctx, stdioBinaryPath(t), "chain", "run", c.RefuseRun, "--dir", dir)
	run.Stdout, run.Stderr = &stdout, &stderr
	err = run.Run()
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "ctxls trust grant --dir") {
		t.Errorf("ctxls chain run %s: %v, want exit status 2 naming ctxls trust grant; stderr:\n%s", c.RefuseRun, err, stderr.String())
	}
	badNotRun(t, dir, "ctxls chain run")
}

// badSARIF checks that check's SARIF log, written result by result, holds
// the diagnostics of its JSON lines, one result each, in the same
// order.
func badSARIF(t *testing.T, ctx context.Context, dir string, lines []badDiag) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, stdioBinaryPath(t), "check", "--format", "sarif", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); ctx.Err() != nil || strings.Contains(stderr.String(), "panic") {
		t.Fatalf("ctxls check --format sarif: %v; stderr:\n%s", err, stderr.String())
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("check's SARIF log (%d bytes) does not parse as one run: %v", stdout.Len(), err)
	}
	res := log.Runs[0].Results
	if len(res) != len(lines) {
		t.Fatalf("SARIF log has %d results, JSON lines %d", len(res), len(lines))
	}
	for i, r := range res {
		if r.RuleID != lines[i].Code || len(r.Locations) != 1 || !strings.HasSuffix(r.Locations[0].PhysicalLocation.ArtifactLocation.URI, lines[i].File) {
			t.Errorf("SARIF result %d is %s in %v, JSON line %s in %s", i, r.RuleID, r.Locations, lines[i].Code, lines[i].File)
		}
	}
}

// lockedBuffer is a bytes.Buffer that a process's output may be copied
// into while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes returns a copy of what was written so far.
func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

func (b *lockedBuffer) String() string { return string(b.Bytes()) }

// badMCP runs the check tool of ctxls mcp: the same diagnostics as
// ctxls check.
func badMCP(t *testing.T, dir string, c badCase) {
	ctx, cancel := context.WithTimeout(context.Background(), badTimeout)
	defer cancel()
	var stderr lockedBuffer // the server writes it while the test reads it
	cmd := exec.Command(stdioBinaryPath(t), "mcp", "--dir", dir)
	cmd.Stderr = &stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "badinput", Version: "test"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to ctxls mcp: %v", err)
	}
	defer cs.Close()
	var items []badDiag
	var sent []byte
	for cursor, pages := "", 0; ; pages++ {
		if pages > 100 {
			t.Fatal("check answers page after page")
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "check", Arguments: map[string]any{"limit": 1000, "cursor": cursor}})
		if err != nil || res.IsError {
			t.Fatalf("check: %v %+v; stderr:\n%s", err, res, stderr.String())
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, raw...)
		var out struct {
			Items      []badDiag `json:"items"`
			NextCursor string    `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("check's result %.200s: %v", raw, err)
		}
		items = append(items, out.Items...)
		if cursor = out.NextCursor; cursor == "" {
			break
		}
	}
	sameDiags(t, "mcp", items, c.Diagnostics)
	badHidden(t, "what the MCP server sent", c, sent, stderr.Bytes())
}

// badInterrupt sends SIGTERM to ctxls check a moment after it started on
// a case that takes seconds, and wants exit status 130 soon after. The
// time it took to stop is logged, not judged: the machine may be busy.
func badInterrupt(t *testing.T, dir string, c badCase) {
	if !c.Interrupt {
		return
	}
	var stderr bytes.Buffer
	cmd := exec.Command(stdioBinaryPath(t), "check", "--no-cache", "--format", "sarif", dir)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if err := awaitWorking(cmd.Process.Pid, dir, done); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("ctxls check after SIGTERM: %v, want exit status 130; stderr:\n%s", err, stderr.String())
		}
		t.Logf("stopped %v after SIGTERM", time.Since(sent).Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("ctxls check still runs 30 s after SIGTERM")
	}
}

// awaitWorking returns once the process pid has read half of the largest
// file of dir: it is then past its start, where SIGTERM is the default's
// to handle (exit 143), and in its work. A timer instead fails on a loaded
// machine both ways: the signal comes before the handler or after the
// work; open files are no sign either, as a case's file is read whole
// and closed at once. Where /proc does not count what a process read, it
// waits 200 ms, past a start of about 10 ms and well before the shortest
// case ends.
func awaitWorking(pid int, dir string, done <-chan error) error {
	counters := fmt.Sprintf("/proc/%d/io", pid)
	if _, err := os.ReadFile(counters); err != nil {
		select {
		case err := <-done:
			return fmt.Errorf("ctxls check finished (%v) before it could be interrupted", err)
		case <-time.After(200 * time.Millisecond):
			return nil
		}
	}
	var largest int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if info, err := d.Info(); err == nil {
			largest = max(largest, info.Size())
		}
		return nil
	})
	if err != nil {
		return err
	}
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return fmt.Errorf("ctxls check finished (%v) before it could be interrupted", err)
		case <-deadline:
			return fmt.Errorf("ctxls check read less than %d bytes in 30 s", largest/2)
		case <-tick.C:
		}
		data, err := os.ReadFile(counters)
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(data)) {
			if v, ok := strings.CutPrefix(line, "rchar: "); ok {
				if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= largest/2 {
					return nil
				}
			}
		}
	}
}

// badParseJSON returns the diagnostics of ctxls check --format json's
// output, one object a line.
func badParseJSON(t *testing.T, out []byte) []badDiag {
	t.Helper()
	var got []badDiag
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		var d badDiag
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("check output line %q: %v", line, err)
		}
		got = append(got, d)
	}
	return got
}

// badHidden fails t when any of outs holds a text the case hides.
func badHidden(t *testing.T, where string, c badCase, outs ...[]byte) {
	t.Helper()
	for _, h := range c.Hidden {
		for _, out := range outs {
			if bytes.Contains(out, []byte(h)) {
				t.Errorf("%s holds %q, which the case hides", where, h)
			}
		}
	}
}

// badNotRun fails t when the workspace's executor ran.
func badNotRun(t *testing.T, dir, what string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Errorf("%s ran the workspace's executor, which nobody agreed to", what)
	}
}

func badServer(t *testing.T, dir string, c badCase) {
	cl := &chainClient{StartClient(t, dir, stdioBinaryPath(t), "serve")}
	cl.Record()
	ctx, cancel := context.WithTimeout(context.Background(), badTimeout)
	defer cancel()
	if _, err := cl.Initialize(ctx, dir, map[string]any{"window": map[string]any{"workDoneProgress": true}}, nil); err != nil {
		t.Fatalf("initialize: %v\n%s", err, cl.Stderr())
	}
	for _, f := range c.Frames {
		if err := cl.WriteRaw(latin1(f)); err != nil {
			t.Fatalf("write frame %q: %v", f, err)
		}
	}
	// The server still answers, and python:good#Part resolves.
	use := filepath.Join(dir, "commands", "use.md")
	var hover struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	cl.must("textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": "file://" + filepath.ToSlash(use)},
		"position":     map[string]any{"line": 2, "character": 8},
	}, &hover)
	if !strings.Contains(hover.Contents.Value, "Good") {
		t.Errorf("hover on python:good#Part = %q", hover.Contents.Value)
	}
	// The workspace's diagnostics, as published after the index.
	want := map[string]bool{}
	for _, d := range c.Diagnostics {
		want[d.File] = true
	}
	var got []badDiag
	deadline := time.Now().Add(badTimeout)
	for {
		got = got[:0]
		seen := map[string]bool{}
		latest := map[string][]badDiag{}
		for _, n := range cl.Notifications("textDocument/publishDiagnostics") {
			raw := n.Params
			var p struct {
				URI         string `json:"uri"`
				Diagnostics []struct {
					Code     string `json:"code"`
					Severity int    `json:"severity"`
					Message  string `json:"message"`
				} `json:"diagnostics"`
			}
			if json.Unmarshal(raw, &p) != nil {
				continue
			}
			rel, _ := filepath.Rel(dir, strings.TrimPrefix(p.URI, "file://"))
			rel = filepath.ToSlash(rel)
			seen[rel] = true
			latest[rel] = nil
			for _, d := range p.Diagnostics {
				sev := map[int]string{1: "error", 2: "warning", 3: "information", 4: "hint"}[d.Severity]
				latest[rel] = append(latest[rel], badDiag{File: rel, Code: d.Code, Severity: sev, Message: d.Message})
			}
		}
		for _, ds := range latest {
			got = append(got, ds...)
		}
		complete := true
		for f := range want {
			complete = complete && seen[f]
		}
		if complete || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	sameDiags(t, "server", got, c.Diagnostics)
	for _, d := range got {
		if d.File == "commands/use.md" {
			t.Errorf("diagnostic beside the bad input: %+v", d)
		}
	}
	if c.RefuseRun != "" {
		e := cl.rpcErr("ctxls/chain/run", map[string]any{"commands": []string{c.RefuseRun}, "input": "x"})
		if e.Code != int(ops.CodeConsent) {
			t.Errorf("ctxls/chain/run %s: %v; want the consent refusal (%d)", c.RefuseRun, e, ops.CodeConsent)
		}
		badNotRun(t, dir, "ctxls/chain/run")
	}
	badHidden(t, "what the server sent", c, cl.Received(), []byte(cl.Stderr()))
}
