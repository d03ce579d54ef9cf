//go:build unix

package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

// TestOpenWorkspaceRefusesLinks ships the state directory, or one of its
// files, as a symbolic link to a file outside the workspace and checks that
// OpenWorkspace refuses it, names it, and writes nothing at the target.
func TestOpenWorkspaceRefusesLinks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// link is the path, relative to the workspace, made a link to the
		// outside target.
		link string
		// targetDir makes the target a directory rather than a file.
		targetDir bool
	}{
		{name: "state directory", link: DirName, targetDir: true},
		{name: "database", link: DirName + "/" + FileName},
		{name: "wal", link: DirName + "/" + FileName + "-wal"},
		{name: "shm", link: DirName + "/" + FileName + "-shm"},
		{name: "journal", link: DirName + "/" + FileName + "-journal"},
		{name: "gitignore", link: DirName + "/.gitignore"},
		{name: "dangling database", link: DirName + "/" + FileName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, outside := t.TempDir(), t.TempDir()
			target := filepath.Join(outside, "target")
			if tc.targetDir {
				if err := os.Mkdir(target, 0o755); err != nil {
					t.Fatal(err)
				}
			} else if tc.name != "dangling database" {
				testtree.Write(t, target, "")
			}
			link := fsguardtest.Link(t, target, filepath.Join(root, filepath.FromSlash(tc.link)))
			db, err := OpenWorkspace(context.Background(), root)
			if err == nil {
				db.Close()
				t.Fatal("OpenWorkspace followed the link")
			}
			if !errors.Is(err, errLink) || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("error = %v, want errLink naming %s as a symbolic link", err, link)
			}
			assertUntouched(t, outside, tc.targetDir)

			// Reading refuses it the same way.
			db, err = OpenExistingWorkspace(context.Background(), root)
			if err == nil {
				db.Close()
				t.Fatal("OpenExistingWorkspace followed the link")
			}
			if !errors.Is(err, errLink) && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("OpenExistingWorkspace error = %v, want errLink or ErrNotExist", err)
			}
			assertUntouched(t, outside, tc.targetDir)
		})
	}
}

// assertUntouched fails when anything was written in dir, the outside of
// the workspace: the target is still empty and nothing was added beside it.
func assertUntouched(t *testing.T, dir string, targetDir bool) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "target" {
			t.Errorf("%s written outside the workspace", e.Name())
			continue
		}
		if targetDir {
			sub, err := os.ReadDir(filepath.Join(dir, "target"))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sub {
				t.Errorf("%s written into the linked state directory", s.Name())
			}
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, "target")); err != nil || fi.Size() != 0 {
			t.Errorf("target written: %v %v", fi, err)
		}
	}
}

// TestOpenWorkspaceRefusesSpecialFiles checks the state paths that exist but
// are neither links nor what ctxls would create: a FIFO as the database
// (opening it would block) and a regular file as the state directory.
func TestOpenWorkspaceRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	t.Run("fifo database", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		fsguardtest.Pipe(t, filepath.Join(root, DirName, FileName))
		var err error
		fsguardtest.Within(t, "OpenWorkspace", func() { _, err = OpenWorkspace(context.Background(), root) })
		if !errors.Is(err, errLink) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("error = %v, want errLink for a named pipe", err)
		}
	})
	t.Run("file as state directory", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		testtree.Write(t, filepath.Join(root, DirName), "x")
		_, err := OpenWorkspace(context.Background(), root)
		if !errors.Is(err, errLink) || !strings.Contains(err.Error(), "not a directory") {
			t.Errorf("error = %v, want errLink for a file", err)
		}
	})
}

// TestOpenWorkspaceCreatesState opens a fresh workspace twice: the first
// time creates the directory, the .gitignore and the database as regular
// files, where the path says even when the folder's name holds characters
// a URL would read; the second keeps a .gitignore the user edited.
func TestOpenWorkspaceCreatesState(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"ws", "a dir?x=1#frag%20"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			root := filepath.Join(t.TempDir(), name)
			db, err := OpenWorkspace(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(root, DirName, FileName)
			if db.Path() != want || WorkspacePath(root) != want {
				t.Errorf("Path() = %q, WorkspacePath = %q, want %q", db.Path(), WorkspacePath(root), want)
			}
			db.Close()
			ignore := filepath.Join(root, DirName, ".gitignore")
			if b, err := os.ReadFile(ignore); err != nil || string(b) != "*\n" {
				t.Fatalf(".gitignore = %q, %v", b, err)
			}
			if fi, err := os.Lstat(want); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("database: %v %v", fi, err)
			}
			if err := os.WriteFile(ignore, []byte("*\n!keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			db, err = OpenWorkspace(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			if b, _ := os.ReadFile(ignore); string(b) != "*\n!keep\n" {
				t.Errorf(".gitignore rewritten: %q", b)
			}
			db, err = OpenExistingWorkspace(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
		})
	}
	if _, err := OpenExistingWorkspace(context.Background(), t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenExistingWorkspace without a database: %v, want ErrNotExist", err)
	}
}
