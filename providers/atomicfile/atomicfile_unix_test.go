//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReplaceThroughLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "real", "a.md")
	write(t, target, "old", 0o600)
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("real/a.md", link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, []byte("old"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link is gone: %v %v", fi, err)
	}
	if to, _ := os.Readlink(link); to != "real/a.md" {
		t.Errorf("the link leads to %q", to)
	}
	if got := content(t, target); got != "new" {
		t.Errorf("target %q", got)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode %s", fi.Mode().Perm())
	}
	noTemp(t, dir)
	noTemp(t, filepath.Join(dir, "real"))
}

func TestReplaceRefusesReadOnlyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	write(t, p, "old", 0o444)
	err := Replace(p, []byte("old"), []byte("new"))
	if !errors.Is(err, ErrReadOnly) {
		t.Errorf("err %v, want ErrReadOnly (uid %d)", err, os.Geteuid())
	}
	if !strings.Contains(fmt.Sprint(err), p) {
		t.Errorf("err %v does not name the file", err)
	}
	if got := content(t, p); got != "old" {
		t.Errorf("content %q", got)
	}
	noTemp(t, dir)
}

func TestReplaceRefusesReadOnlyFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "ro")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(sub, "a.md")
	write(t, p, "old", 0o644)
	if err := os.Chmod(sub, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sub, 0o755) })
	err := Replace(p, []byte("old"), []byte("new"))
	if !errors.Is(err, ErrFolderReadOnly) {
		t.Errorf("err %v, want ErrFolderReadOnly", err)
	}
	if got := content(t, p); got != "old" {
		t.Errorf("content %q", got)
	}
	noTemp(t, sub)
}

func TestReplaceKeepsOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root may give a file to another user")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	write(t, p, "old", 0o644)
	if err := os.Chown(p, 4242, 4343); err != nil {
		t.Fatal(err)
	}
	if err := Replace(p, []byte("old"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 4242 || st.Gid != 4343 {
		t.Errorf("owner %d:%d, want 4242:4343", st.Uid, st.Gid)
	}
}

// TestReplaceFullDisk fills a small tmpfs and replaces a file by a larger
// text: the write fails and the file keeps its content.
func TestReplaceFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	p := filepath.Join(dir, "a.md")
	old := strings.Repeat("old line\n", 10_000) // 90,000 bytes
	write(t, p, old, 0o644)
	// Fill what is left but a few pages.
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := fill.Write(chunk); err != nil {
			break
		}
	}
	fill.Close()
	err = Replace(p, []byte(old), []byte(old+strings.Repeat("new line\n", 10_000)))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("err %v, want no space left", err)
	}
	if !strings.Contains(fmt.Sprint(err), p) {
		t.Errorf("err %v does not name the file", err)
	}
	if got := content(t, p); got != old {
		t.Errorf("the file holds %d bytes, want its %d", len(got), len(old))
	}
	noTemp(t, dir)
}

func TestCleanRemovesAbandonedOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	abandoned := filepath.Join(dir, ".a.md.ctxls-111.tmp")
	write(t, abandoned, "half", 0o644)
	other := filepath.Join(dir, ".notes.tmp")
	write(t, other, "mine", 0o644)
	live, err := newTemp(dir, "b.md")
	if err != nil {
		t.Fatal(err)
	}
	defer live.discard()
	n, err := Clean(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("removed %d, want 1", n)
	}
	if _, err := os.Lstat(abandoned); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("abandoned temporary file kept")
	}
	if _, err := os.Lstat(live.name); err != nil {
		t.Errorf("a temporary file being written was removed: %v", err)
	}
	if _, err := os.Lstat(other); err != nil {
		t.Errorf("a file of another name was removed: %v", err)
	}
}
