package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func write(t *testing.T, p, text string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
}

func content(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemp fails when dir holds a temporary file.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if IsTemp(e.Name()) {
			t.Errorf("stray temporary file %s", e.Name())
		}
	}
}

func TestReplaceKeepsMode(t *testing.T) {
	t.Parallel()
	for _, perm := range []fs.FileMode{0o600, 0o755, 0o640} {
		dir := t.TempDir()
		p := filepath.Join(dir, "a.md")
		write(t, p, "old\r\n", perm)
		if err := Replace(p, []byte("old\r\n"), []byte("new\r\n")); err != nil {
			t.Fatal(err)
		}
		if got := content(t, p); got != "new\r\n" {
			t.Errorf("content %q", got)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != perm {
			t.Errorf("mode %s, want %s", fi.Mode().Perm(), perm)
		}
		noTemp(t, dir)
	}
}

func TestReplaceLeavesChangedFile(t *testing.T) {
	t.Parallel()
	for _, disk := range []string{"other", "olde", "ol"} {
		dir := t.TempDir()
		p := filepath.Join(dir, "a.md")
		write(t, p, disk, 0o644)
		err := Replace(p, []byte("old"), []byte("new"))
		if !errors.Is(err, ErrChanged) {
			t.Errorf("disk %q: err %v, want ErrChanged", disk, err)
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != p {
			t.Errorf("err %v does not name %s", err, p)
		}
		if got := content(t, p); got != disk {
			t.Errorf("content %q, want %q", got, disk)
		}
		noTemp(t, dir)
	}
}

func TestReplaceMissing(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "gone.md")
	if err := Replace(p, []byte("old"), []byte("new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err %v, want not exist", err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Replace created %s", p)
	}
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "cache")
	if err := Write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := content(t, p); got != "two" {
		t.Errorf("content %q", got)
	}
	if fi, _ := os.Stat(p); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %s, want the first write's 0600", fi.Mode().Perm())
	}
	noTemp(t, dir)
}

func TestCreate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, ".gitignore")
	if err := Create(p, []byte("*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Create(p, []byte("other\n"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Create: err %v, want exist", err)
	}
	if got := content(t, p); got != "*\n" {
		t.Errorf("content %q", got)
	}
	noTemp(t, dir)
}

func TestIsTemp(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		".a.md.ctxls-123.tmp":    true,
		".ctxls-1.tmp":           false,
		"a.md.ctxls-123.tmp":     false,
		".a.md.ctxls-12x.tmp":    false,
		".a.md.ctxls-.tmp":       false,
		".a.md.ctxls-123":        false,
		".x.ctxls-1.ctxls-2.tmp": true,
	} {
		if got := IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}
