//go:build unix

package fsguard

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/fsguard/fsguardtest"
)

// tree makes a workspace and a directory outside it with the entries the
// cases below name, and returns both.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	root = t.TempDir()
	secret := fsguardtest.Outside(t, "secret.md", "# Secret\n")
	outside = filepath.Dir(secret)
	fsguardtest.Write(t, filepath.Join(root, "a.md"), "# A\n")
	fsguardtest.Write(t, filepath.Join(root, "sub/b.md"), "# B\n")
	fsguardtest.Pipe(t, filepath.Join(root, "pipe.md"))
	fsguardtest.Links(t, root, map[string]string{
		"inside.md":   "a.md",
		"nested.md":   "sub/b.md",
		"out.md":      secret,
		"relout.md":   "../" + filepath.Base(outside) + "/secret.md",
		"loop1.md":    "loop2.md",
		"loop2.md":    "loop1.md",
		"dangling.md": "nowhere.md",
		"outdir":      outside,
		"topipe.md":   "pipe.md",
	})
	return root, outside
}

func TestCheck(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	r := NewRoot(root)
	for _, tc := range []struct {
		name string
		path string
		want error // nil: readable
		loop bool
	}{
		{name: "regular file", path: "a.md"},
		{name: "regular file in a directory", path: "sub/b.md"},
		{name: "link inside the root", path: "inside.md"},
		{name: "link into a subdirectory", path: "nested.md"},
		{name: "absolute link outside", path: "out.md", want: ErrOutsideWorkspace},
		{name: "relative link outside", path: "relout.md", want: ErrOutsideWorkspace},
		{name: "file below a link to a directory outside", path: "outdir/secret.md", want: ErrOutsideWorkspace},
		{name: "loop of links", path: "loop1.md", loop: true},
		{name: "dangling link", path: "dangling.md", want: fs.ErrNotExist},
		{name: "missing file", path: "gone.md", want: fs.ErrNotExist},
		{name: "named pipe", path: "pipe.md", want: ErrNotRegular},
		{name: "link to a named pipe", path: "topipe.md", want: ErrNotRegular},
		{name: "directory", path: "sub", want: ErrNotRegular},
		{name: "path outside the root", path: filepath.Join(outside, "secret.md"), want: ErrOutsideWorkspace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			fi, err := r.Check(p)
			switch {
			case tc.loop:
				if err == nil || !IsLoop(err) {
					t.Errorf("Check = %v, %v; want a loop error", fi, err)
				}
			case tc.want == nil:
				if err != nil || !fi.Mode().IsRegular() {
					t.Errorf("Check = %v, %v; want a regular file", fi, err)
				}
			case !errors.Is(err, tc.want):
				t.Errorf("Check = %v, %v; want %v", fi, err, tc.want)
			}
		})
	}
}

// TestCheckRootBehindLink opens the workspace through a link to it: files
// inside are inside, whichever of the two paths their links use.
func TestCheckRootBehindLink(t *testing.T) {
	t.Parallel()
	real := t.TempDir()
	fsguardtest.Link(t, fsguardtest.Write(t, filepath.Join(real, "a.md"), "# A\n"), filepath.Join(real, "abs.md"))
	via := fsguardtest.Link(t, real, filepath.Join(t.TempDir(), "via"))
	r := NewRoot(via)
	for _, name := range []string{"a.md", "abs.md"} {
		if _, err := r.Check(filepath.Join(via, name)); err != nil {
			t.Errorf("Check(%s) = %v", name, err)
		}
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	root, _ := tree(t)
	ctx := context.Background()
	t.Run("regular", func(t *testing.T) {
		t.Parallel()
		b, err := ReadFile(ctx, filepath.Join(root, "a.md"), 1<<20)
		if err != nil || string(b) != "# A\n" {
			t.Errorf("ReadFile = %q, %v", b, err)
		}
	})
	t.Run("exactly the limit", func(t *testing.T) {
		t.Parallel()
		b, err := ReadFile(ctx, filepath.Join(root, "a.md"), 4)
		if err != nil || len(b) != 4 {
			t.Errorf("ReadFile = %q, %v", b, err)
		}
	})
	t.Run("above the limit", func(t *testing.T) {
		t.Parallel()
		_, err := ReadFile(ctx, filepath.Join(root, "a.md"), 3)
		var big *TooLargeError
		if !errors.As(err, &big) || big.Size != 4 || big.Limit != 3 {
			t.Errorf("ReadFile = %v, want a TooLargeError of 4 bytes", err)
		}
	})
	t.Run("larger than a chunk", func(t *testing.T) {
		t.Parallel()
		data := strings.Repeat("0123456789abcdef", 3*readChunk/16+7)
		p := fsguardtest.Write(t, filepath.Join(t.TempDir(), "big.md"), data)
		b, err := ReadFile(ctx, p, int64(len(data)))
		if err != nil || string(b) != data {
			t.Errorf("ReadFile = %d bytes, %v; want %d", len(b), err, len(data))
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := ReadFile(cctx, filepath.Join(root, "a.md"), 1<<20); !errors.Is(err, context.Canceled) {
			t.Errorf("ReadFile = %v, want context.Canceled", err)
		}
	})
	for _, name := range []string{"pipe.md", "topipe.md"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The open itself would block on a pipe without a writer.
			var err error
			fsguardtest.Within(t, "ReadFile", func() { _, err = ReadFile(ctx, filepath.Join(root, name), 1<<20) })
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
				t.Errorf("ReadFile = %v, want ErrNotRegular naming a named pipe", err)
			}
		})
	}
}
