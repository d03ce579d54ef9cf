//go:build unix

package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/atomicfile"
)

// killLibrary is a context library of n topics, each with two safe fixes
// (its id and its token count), with LF or CRLF line breaks, a byte order
// mark or none, a final newline or none, and modes 0644, 0600 and 0755.
func killLibrary(n int) map[string]entry {
	files := map[string]entry{".ctxls.yaml": {text: "contextRoots: [context]\n"}}
	modes := []fs.FileMode{0o644, 0o600, 0o755}
	for i := range n {
		eol := "\n"
		if i%2 == 1 {
			eol = "\r\n"
		}
		var b strings.Builder
		if i%5 == 0 {
			b.WriteString("\xef\xbb\xbf")
		}
		domain := fmt.Sprintf("d%02d", i%30)
		lines := []string{"---", "id: wrong/t" + fmt.Sprint(i), "domain: " + domain, "estimatedTokens: 9999", "---", fmt.Sprintf("# Topic %d", i), ""}
		for j := range 20 {
			lines = append(lines, fmt.Sprintf("Line %d of topic %d says something worth a few tokens.", j, i))
		}
		b.WriteString(strings.Join(lines, eol))
		if i%3 != 2 {
			b.WriteString(eol) // a third of the files end without a line break
		}
		files[fmt.Sprintf("context/%s/t%04d.md", domain, i)] = entry{text: b.String(), mode: modes[i%len(modes)]}
	}
	return files
}

// fixRun is one run of the real binary's check --fix on dir.
type fixRun struct {
	cmd  *exec.Cmd
	out  strings.Builder
	done chan error
}

func startFix(t *testing.T, bin, dir, tmp string) *fixRun {
	t.Helper()
	r := &fixRun{cmd: exec.Command(bin, "check", dir, "--no-cache", "--fix"), done: make(chan error, 1)}
	r.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	r.cmd.Stdout = &r.out
	r.cmd.Stderr = &r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	return r
}

// inode returns the inode of the file at p, 0 when there is none.
func inode(p string) uint64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// waitWrite waits until the file at p is no longer the inode was (a
// rename replaced it) or the run ends, and reports whether it was
// replaced.
func (r *fixRun) waitWrite(t *testing.T, p string, was uint64) bool {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if inode(p) != was {
			return true
		}
		select {
		case err := <-r.done:
			r.done <- err
			return inode(p) != was
		case <-time.After(200 * time.Microsecond):
		}
	}
	t.Fatalf("check --fix neither wrote %s nor ended", p)
	return false
}

func (r *fixRun) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(5 * time.Minute):
		r.cmd.Process.Kill()
		t.Fatalf("check --fix did not end:\n%s", r.out.String())
		return nil
	}
}

// restoreTree writes back every file of files that dir holds otherwise,
// and leaves what else dir holds (the temporary files of a killed run).
func restoreTree(t *testing.T, dir string, files map[string]entry, now map[string]entry) {
	t.Helper()
	for rel, e := range files {
		if now[rel] == e {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(e.text), e.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, e.mode); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixSurvivesSIGKILL kills the real binary's check --fix with SIGKILL
// at random moments of its write phase on a library of 3,000 topics, 25
// times: each file must then be as it was or as fully fixed, byte for
// byte, with its mode; the temporary files and the copy of the workspace
// a killed run leaves must be gone once the next run writes; and a last
// run to its end must leave every file fixed and nothing else. The
// moments come from a fixed seed; the assertions hold for any.
func TestFixSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs check --fix on 3,000 topics 27 times")
	}
	const topics, runs = 3000, 25
	bin := buildCtxls(t)
	lib := killLibrary(topics)
	// The files written first and last, in the order of their paths.
	first, last := filepath.FromSlash("context/d00/t0000.md"), filepath.FromSlash("context/d29/t2999.md")
	tmp := t.TempDir()

	// One run to its end gives the fixed files and the length of the
	// write phase.
	calib := t.TempDir()
	buildTree(t, calib, lib)
	orig := readTree(t, calib)
	was := inode(filepath.Join(calib, last))
	r := startFix(t, bin, calib, tmp)
	if !r.waitWrite(t, filepath.Join(calib, first), inode(filepath.Join(calib, first))) {
		t.Fatalf("check --fix did not write %s:\n%s", first, r.out.String())
	}
	began := time.Now()
	r.waitWrite(t, filepath.Join(calib, last), was)
	phase := time.Since(began)
	if err := r.wait(t); exitCode(err) > 1 {
		t.Fatalf("check --fix: %v\n%s", err, r.out.String())
	}
	fixed := readTree(t, calib)
	for rel, e := range orig {
		if strings.HasSuffix(rel, ".md") && fixed[rel].text == e.text {
			t.Fatalf("%s was not fixed: the test needs every topic to have a fix", rel)
		}
	}

	rng := rand.New(rand.NewPCG(33, 2026))
	work := filepath.Join(t.TempDir(), "library")
	buildTree(t, work, lib)
	var counts []string
	var strays []string // the temporary files the last killed run left
	lastPid := 0
	for run := range runs {
		restoreTree(t, work, orig, readTree(t, work))
		r := startFix(t, bin, work, tmp)
		// Within the first three quarters of the phase: a busy machine
		// writes faster or slower from one run to the next.
		delay := time.Duration(rng.Int64N(int64(phase)*3/4 + 1))
		wrote := r.waitWrite(t, filepath.Join(work, first), inode(filepath.Join(work, first)))
		if wrote {
			// The run cleans up after the one before it writes.
			for _, rel := range strays {
				if _, err := os.Lstat(filepath.Join(work, rel)); err == nil {
					t.Errorf("run %d: the temporary file %s of the killed run before survives", run, rel)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("ctxls-fix-%d-*", lastPid))); lastPid != 0 && len(left) > 0 {
				t.Errorf("run %d: the copy of the workspace of the killed run before survives: %v", run, left)
			}
			time.Sleep(delay)
		}
		r.cmd.Process.Signal(syscall.SIGKILL)
		r.wait(t)
		lastPid = r.cmd.Process.Pid

		got := readTree(t, work)
		n := 0
		strays = strays[:0]
		for rel, e := range got {
			if atomicfile.IsTemp(filepath.Base(rel)) {
				strays = append(strays, rel)
				continue
			}
			switch e {
			case orig[rel]:
			case fixed[rel]:
				n++
			default:
				t.Errorf("run %d: %s is neither the original nor the fixed file (mode %s, %d bytes)", run, rel, e.mode, len(e.text))
			}
		}
		counts = append(counts, fmt.Sprintf("%d/%d", n, len(strays)))
		if t.Failed() {
			t.Fatalf("run %d: killed %v after the write phase began", run, delay)
		}
	}
	// The next run to its end fixes every file and leaves nothing else.
	next := startFix(t, bin, work, tmp)
	if err := next.wait(t); exitCode(err) > 1 {
		t.Fatalf("the run after the last kill: %v\n%s", err, next.out.String())
	}
	sameTrees(t, "after the run after the last kill", fixed, readTree(t, work))
	if left, _ := filepath.Glob(filepath.Join(tmp, "ctxls-fix-*")); len(left) > 0 {
		t.Errorf("copies of the workspace survive: %v", left)
	}
	t.Logf("%d topics, write phase %v; files fixed/temporary files left when killed, per run: %s",
		topics, phase.Round(time.Millisecond), strings.Join(counts, " "))
}
