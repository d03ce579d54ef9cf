package trust

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// workspace makes a workspace holding a script and a store outside it.
func workspace(t *testing.T) (dir string, s *Store) {
	t.Helper()
	dir = testtree.New(t, map[string]string{"tools/agent.sh": "#!/bin/sh\ncat\n"})
	return dir, Open(filepath.Join(t.TempDir(), "ctxls", FileName))
}

func TestGrantCheckRevoke(t *testing.T) {
	t.Parallel()
	dir, s := workspace(t)
	argv := []string{"./tools/agent.sh", "--all"}
	check := func(argv []string) Status {
		t.Helper()
		st, err := s.Check(dir, argv)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := check(argv); st.Agreed || st.Grant != nil {
		t.Fatalf("Check before any grant = %+v", st)
	}
	g, err := s.Grant(dir, argv, now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(g.Program, "sha256:") {
		t.Errorf("grant of a program of the workspace has no digest: %+v", g)
	}
	if st := check(argv); !st.Agreed {
		t.Fatalf("Check after the grant = %+v", st)
	}
	for _, tt := range []struct {
		name string
		argv []string
	}{
		{"an argument more", []string{"./tools/agent.sh", "--all", "--yes"}},
		{"arguments joined", []string{"./tools/agent.sh --all"}},
		{"another program", []string{"sh", "-c", "./tools/agent.sh --all"}},
	} {
		if st := check(tt.argv); st.Agreed || st.Changed != "the command line" || st.Grant == nil {
			t.Errorf("%s: Check = %+v; want refused, the command line changed", tt.name, st)
		}
	}
	// The repository rewrites its script: the same argv is asked about again.
	testtree.Write(t, filepath.Join(dir, "tools/agent.sh"), "#!/bin/sh\ncat ~/.ssh/id_rsa\n")
	if st := check(argv); st.Agreed || !strings.Contains(st.Changed, "./tools/agent.sh") {
		t.Errorf("Check after the script changed = %+v; want refused, naming the program", st)
	}
	if _, err := s.Grant(dir, argv, now); err != nil {
		t.Fatal(err)
	}
	if st := check(argv); !st.Agreed {
		t.Fatalf("Check after a new grant = %+v", st)
	}
	if had, err := s.Revoke(dir); err != nil || !had {
		t.Fatalf("Revoke = %v, %v", had, err)
	}
	if st := check(argv); st.Agreed || st.Grant != nil {
		t.Errorf("Check after Revoke = %+v", st)
	}
	if had, err := s.Revoke(dir); err != nil || had {
		t.Errorf("second Revoke = %v, %v; want nothing revoked", had, err)
	}
}

// TestWorkspacesApart checks that a grant holds for its workspace only,
// and for that workspace by whichever path it is reached.
func TestWorkspacesApart(t *testing.T) {
	t.Parallel()
	dir, s := workspace(t)
	other := testtree.New(t, map[string]string{"tools/agent.sh": "#!/bin/sh\ncat\n"})
	argv := []string{"claude", "-p"}
	if _, err := s.Grant(dir, argv, now); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Check(other, argv); err != nil || st.Agreed {
		t.Errorf("Check of another workspace = %+v, %v", st, err)
	}
	via := fsguardtest.Link(t, dir, filepath.Join(t.TempDir(), "via"))
	if st, err := s.Check(via, argv); err != nil || !st.Agreed {
		t.Errorf("Check through a link to the workspace = %+v, %v", st, err)
	}
}

func TestStoreFile(t *testing.T) {
	t.Parallel()
	dir, s := workspace(t)
	if _, err := s.Grant(dir, []string{"claude"}, now); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("store mode = %v; want 0600", fi.Mode().Perm())
	}
	// No temporary file is left beside it, only the lock.
	ents, err := os.ReadDir(filepath.Dir(s.Path()))
	for _, e := range ents {
		if e.Name() != FileName && e.Name() != FileName+".lock" {
			t.Errorf("store directory holds %s besides %s", e.Name(), FileName)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	// A store that is not JSON is an error that names it, never a grant.
	testtree.Write(t, s.Path(), "{not json")
	if st, err := s.Check(dir, []string{"claude"}); err == nil || st.Agreed || !strings.Contains(err.Error(), s.Path()) {
		t.Errorf("Check of a broken store = %+v, %v", st, err)
	}
	if _, err := s.Grant(dir, []string{"claude"}, now); err == nil {
		t.Error("Grant over a broken store succeeded; it would drop the other grants")
	}
}

func TestProgramDigest(t *testing.T) {
	t.Parallel()
	dir, _ := workspace(t)
	outside := fsguardtest.Outside(t, "agent", "#!/bin/sh\n")
	fsguardtest.Link(t, outside, filepath.Join(dir, "tools/linked"))
	for _, tt := range []struct {
		argv   []string
		digest bool
	}{
		{[]string{"claude", "-p"}, false},
		{[]string{"./tools/agent.sh"}, true},
		{[]string{"tools/agent.sh"}, true},
		{[]string{filepath.Join(dir, "tools/agent.sh")}, true},
		{[]string{outside}, false},
		{[]string{"./tools/missing.sh"}, false},
		// A link in the workspace to a program outside it: the link is
		// the repository's, so what it runs is hashed too.
		{[]string{"./tools/linked"}, true},
	} {
		sum, err := ProgramDigest(dir, tt.argv)
		if err != nil || (sum != "") != tt.digest {
			t.Errorf("ProgramDigest(%q) = %q, %v; want a digest: %v", tt.argv, sum, err, tt.digest)
		}
	}
	// A named pipe is no program to agree to, and opening it must not
	// wait for a writer.
	fsguardtest.Pipe(t, filepath.Join(dir, "tools/pipe"))
	var err error
	fsguardtest.Within(t, "ProgramDigest", func() { _, err = ProgramDigest(dir, []string{"./tools/pipe"}) })
	if !errors.Is(err, fsguard.ErrNotRegular) {
		t.Errorf("ProgramDigest of a named pipe: %v; want ErrNotRegular", err)
	}
}

// TestConcurrentGrants grants many workspaces at once, as parallel
// processes may: every grant is kept.
func TestConcurrentGrants(t *testing.T) {
	t.Parallel()
	s := Open(filepath.Join(t.TempDir(), FileName))
	dirs := make([]string, 16)
	for i := range dirs {
		dirs[i] = t.TempDir()
	}
	errs := make(chan error, len(dirs))
	for _, d := range dirs {
		go func() {
			// Another Store on the same file, as another process has.
			_, err := Open(s.Path()).Grant(d, []string{"claude"}, now)
			errs <- err
		}()
	}
	for range dirs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range dirs {
		if st, err := s.Check(d, []string{"claude"}); err != nil || !st.Agreed {
			t.Errorf("grant of %s lost: %+v, %v", d, st, err)
		}
	}
}
