//go:build unix

package fsguard

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/listing"
)

// tree makes a workspace and a directory outside it with the entries the
// cases below name, and returns both.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	root = t.TempDir()
	secret := fsguardtest.Outside(t, "secret.md", "# Secret\n")
	outside = filepath.Dir(secret)
	testtree.Write(t, filepath.Join(root, "a.md"), "# A\n")
	testtree.Write(t, filepath.Join(root, "sub/b.md"), "# B\n")
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
		"subdir":      "sub",
		"topipe.md":   "pipe.md",
	})
	return root, outside
}

func TestCheck(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	// A memo resolves as the root does, whatever it resolved before.
	memo := NewRoot(root).Memo()
	for _, r := range []*Root{NewRoot(root), memo, memo} {
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
			{name: "missing file below a link to a directory outside", path: "outdir/gone.md", want: fs.ErrNotExist},
			{name: "file below a link to a directory inside", path: "subdir/b.md"},
			{name: "file below a missing directory", path: "gone/b.md", want: fs.ErrNotExist},
			{name: "loop of links", path: "loop1.md", loop: true},
			{name: "dangling link", path: "dangling.md", want: fs.ErrNotExist},
			{name: "missing file", path: "gone.md", want: fs.ErrNotExist},
			{name: "named pipe", path: "pipe.md", want: ErrNotRegular},
			{name: "link to a named pipe", path: "topipe.md", want: ErrNotRegular},
			{name: "directory", path: "sub", want: ErrNotRegular},
			{name: "path outside the root", path: filepath.Join(outside, "secret.md"), want: ErrOutsideWorkspace},
			{name: "path climbing out with ..", path: root + "/sub/../../" + filepath.Base(outside) + "/secret.md", want: ErrOutsideWorkspace},
			{name: "path with a .. that stays inside", path: root + "/sub/../a.md"},
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
}

// TestLstat looks at names without following a link there, and refuses
// what lies outside the workspace by its name or by a link on the way.
func TestLstat(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	memo := NewRoot(root).Memo()
	for _, r := range []*Root{NewRoot(root), memo, memo} {
		for _, tc := range []struct {
			path string
			want error       // nil: found
			mode fs.FileMode // of what is found
		}{
			{path: "a.md"},
			{path: "sub/b.md"},
			{path: "sub", mode: fs.ModeDir},
			{path: ".", mode: fs.ModeDir},
			{path: "out.md", mode: fs.ModeSymlink},
			{path: "dangling.md", mode: fs.ModeSymlink},
			{path: "outdir", mode: fs.ModeSymlink},
			{path: "subdir/b.md"},
			{path: "pipe.md", mode: fs.ModeNamedPipe},
			{path: "gone.md", want: fs.ErrNotExist},
			{path: "gone/b.md", want: fs.ErrNotExist},
			{path: "outdir/secret.md", want: ErrOutsideWorkspace},
			{path: "outdir/gone.md", want: ErrOutsideWorkspace},
			{path: filepath.Join(outside, "secret.md"), want: ErrOutsideWorkspace},
			{path: root + "/sub/../../" + filepath.Base(outside) + "/secret.md", want: ErrOutsideWorkspace},
		} {
			p := tc.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			fi, err := r.Lstat(p)
			switch {
			case tc.want != nil:
				if !errors.Is(err, tc.want) {
					t.Errorf("Lstat(%s) = %v, %v; want %v", tc.path, fi, err, tc.want)
				}
			case err != nil || fi.Mode().Type() != tc.mode:
				t.Errorf("Lstat(%s) = %v, %v; want mode %v", tc.path, fi, err, tc.mode)
			}
		}
	}
}

// TestCheckRootBehindLink opens the workspace through a link to it: files
// inside are inside, whichever of the two paths their links use.
func TestCheckRootBehindLink(t *testing.T) {
	t.Parallel()
	real := t.TempDir()
	fsguardtest.Link(t, testtree.Write(t, filepath.Join(real, "a.md"), "# A\n"), filepath.Join(real, "abs.md"))
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
		p := testtree.Write(t, filepath.Join(t.TempDir(), "big.md"), data)
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

func TestRootReadFile(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	// A memo resolves as the root does, whatever it resolved before.
	memo := NewRoot(root).Memo()
	for _, r := range []*Root{NewRoot(root), memo, memo} {
		ctx := context.Background()
		for _, tc := range []struct {
			name string
			path string
			want error // nil: reads "# A\n" or "# B\n"
		}{
			{name: "regular file", path: "a.md"},
			{name: "link inside the root", path: "inside.md"},
			{name: "link into a subdirectory", path: "nested.md"},
			{name: "absolute link outside", path: "out.md", want: ErrOutsideWorkspace},
			{name: "relative link outside", path: "relout.md", want: ErrOutsideWorkspace},
			{name: "file below a link to a directory outside", path: "outdir/secret.md", want: ErrOutsideWorkspace},
			{name: "dangling link", path: "dangling.md", want: fs.ErrNotExist},
			{name: "named pipe", path: "pipe.md", want: ErrNotRegular},
			{name: "link to a named pipe", path: "topipe.md", want: ErrNotRegular},
			{name: "directory", path: "sub", want: ErrNotRegular},
			{name: "path outside the root", path: filepath.Join(outside, "secret.md"), want: ErrOutsideWorkspace},
			{name: "path climbing out with ..", path: root + "/sub/../../" + filepath.Base(outside) + "/secret.md", want: ErrOutsideWorkspace},
			{name: "path with a .. that stays inside", path: root + "/sub/../a.md"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				p := tc.path
				if !filepath.IsAbs(p) {
					p = filepath.Join(root, p)
				}
				var b []byte
				var err error
				fsguardtest.Within(t, "ReadFile", func() { b, err = r.ReadFile(ctx, p, 1<<20) })
				switch {
				case tc.want == nil:
					if err != nil || !strings.HasPrefix(string(b), "# ") {
						t.Errorf("ReadFile = %q, %v", b, err)
					}
				case !errors.Is(err, tc.want):
					t.Errorf("ReadFile = %q, %v; want %v", b, err, tc.want)
				case strings.Contains(err.Error(), outside) && !strings.HasPrefix(tc.path, outside):
					t.Errorf("ReadFile's error %q shows where the link leads", err)
				case len(b) != 0:
					t.Errorf("ReadFile returned %q with its error", b)
				}
			})
		}
	}
}

// TestReadKernelFiles reads files of /proc, which report themselves as
// regular files: they are refused, by the root check and by ReadFile.
func TestReadKernelFiles(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc here")
	}
	if fi, err := os.Stat("/proc/self/environ"); err == nil && !fi.Mode().IsRegular() {
		t.Fatalf("/proc/self/environ is %v; the case needs a regular file", fi.Mode())
	}
	ctx := context.Background()
	for _, p := range []string{"/proc/self/environ", "/proc/self/status", "/sys/kernel/mm/transparent_hugepage/enabled"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if b, err := ReadFile(ctx, p, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s) = %d bytes, %v; want ErrNotRegular", p, len(b), err)
		}
		// A workspace at / holds /proc: the root check lets it through,
		// the read does not.
		if b, err := NewRoot("/").ReadFile(ctx, p, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Root(/).ReadFile(%s) = %d bytes, %v; want ErrNotRegular", p, len(b), err)
		}
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	sep := string(filepath.Separator)
	root := filepath.Join(sep, "w")
	for _, tc := range []struct {
		dir, p string
		want   bool
		rel    string
	}{
		{root, root, true, "."},
		{root, filepath.Join(root, "a"), true, "a"},
		{root, filepath.Join(root, "a", "b.md"), true, "a/b.md"},
		{root, root + "-x", false, ""},
		{root, filepath.Join(root+"x", "a"), false, ""},
		{root, sep, false, ""},
		{root, filepath.Join(sep, "other"), false, ""},
		{sep, filepath.Join(sep, "a"), true, "a"},
		{sep, sep, true, "."},
		{"", sep, false, ""},
		{root, filepath.Join(root, "..foo"), true, "..foo"},
	} {
		if got := Within(tc.dir, tc.p); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.dir, tc.p, got, tc.want)
		}
		if rel, ok := Rel(tc.dir, tc.p); ok != tc.want || rel != tc.rel {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", tc.dir, tc.p, rel, ok, tc.rel, tc.want)
		}
	}
}

// TestReadReplaced reads a path whose file is not the one the check found,
// as when a link is swapped in between: the read refuses it. The last
// element is opened without following a link.
func TestReadReplaced(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	ctx := context.Background()
	checked, err := os.Stat(filepath.Join(root, "a.md"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "sub", "b.md")
	if b, _, err := read(ctx, p, "b.md", 1<<20, openNoFollow, checked); !errors.Is(err, ErrChanged) || len(b) != 0 {
		t.Errorf("read of another file than the checked one = %q, %v; want ErrChanged", b, err)
	}
	if openNoFollow == 0 {
		return
	}
	if b, _, err := read(ctx, filepath.Join(root, "out.md"), "out.md", 1<<20, openNoFollow, nil); err == nil || len(b) != 0 || strings.Contains(err.Error(), outside) {
		t.Errorf("read of a link with openNoFollow = %q, %v; want a refusal that names out.md only", b, err)
	}
}

// TestReadWalked reads what a walk that does not follow links finds:
// regular files; a link at the path, wherever it leads, and a named pipe
// put there since the walk are refused, without saying where a link
// leads.
func TestReadWalked(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	r := NewRoot(root)
	for _, tc := range []struct {
		path string
		ok   bool
		want error // nil with !ok: any error
	}{
		{path: "a.md", ok: true},
		{path: "sub/b.md", ok: true},
		{path: "inside.md"},
		{path: "out.md"},
		{path: "relout.md"},
		{path: "pipe.md", want: ErrNotRegular},
		{path: filepath.Join(outside, "secret.md"), want: ErrOutsideWorkspace},
	} {
		p := tc.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		var b []byte
		var err error
		fsguardtest.Within(t, "ReadWalked", func() { b, err = r.ReadWalked(t.Context(), p, 1<<20) })
		switch {
		case tc.ok:
			if err != nil || !strings.HasPrefix(string(b), "# ") {
				t.Errorf("ReadWalked(%s) = %q, %v", tc.path, b, err)
			}
		case err == nil || len(b) != 0:
			t.Errorf("ReadWalked(%s) = %q, %v; want an error", tc.path, b, err)
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("ReadWalked(%s): %v; want %v", tc.path, err, tc.want)
		case strings.Contains(err.Error(), outside) && !strings.HasPrefix(tc.path, outside):
			t.Errorf("ReadWalked(%s)'s error %q shows where the link leads", tc.path, err)
		}
	}
}

// TestOpen opens files to stream them: a regular file, through a link or
// not, opens at its start; a named pipe and a file of /proc do not open.
func TestOpen(t *testing.T) {
	t.Parallel()
	root, _ := tree(t)
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(root, "a.md"), true},
		{filepath.Join(root, "out.md"), true}, // a link is followed
		{filepath.Join(root, "pipe.md"), false},
		{filepath.Join(root, "topipe.md"), false},
		{"/proc/self/environ", false},
	} {
		var f *os.File
		var fi fs.FileInfo
		var err error
		fsguardtest.Within(t, "Open", func() { f, fi, err = Open(tc.path) })
		switch {
		case tc.ok && (err != nil || fi.Size() != 4 && fi.Size() != 9):
			t.Errorf("Open(%s) = %v, %v", tc.path, fi, err)
		case !tc.ok && err == nil:
			t.Errorf("Open(%s) opened %v", tc.path, fi.Mode())
		case !tc.ok && !errors.Is(err, ErrNotRegular) && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("Open(%s) = %v; want ErrNotRegular", tc.path, err)
		}
		if f != nil {
			f.Close()
		}
	}
}

// TestTarget resolves the links of the tree: a target inside comes with
// its path in the workspace, through the workspace's own path or a link
// to it; a link out, a loop and a dangling link fail as Check does.
func TestTarget(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	via := fsguardtest.Link(t, root, filepath.Join(t.TempDir(), "via"))
	for _, r := range []*Root{NewRoot(root), NewRoot(via)} {
		for _, tc := range []struct {
			path string
			rel  string // "" when it fails
			want error
			loop bool
		}{
			{path: "a.md", rel: "a.md"},
			{path: "inside.md", rel: "a.md"},
			{path: "nested.md", rel: "sub/b.md"},
			{path: "subdir", rel: "sub"},
			{path: "subdir/b.md", rel: "sub/b.md"},
			{path: ".", rel: "."},
			{path: "out.md", want: ErrOutsideWorkspace},
			{path: "relout.md", want: ErrOutsideWorkspace},
			{path: "outdir", want: ErrOutsideWorkspace},
			{path: "outdir/secret.md", want: ErrOutsideWorkspace},
			{path: filepath.Join(outside, "secret.md"), want: ErrOutsideWorkspace},
			{path: "loop1.md", loop: true},
			{path: "dangling.md", want: fs.ErrNotExist},
		} {
			p := tc.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(r.Dir(), p)
			}
			target, rel, err := r.Target(p)
			switch {
			case tc.loop:
				if err == nil || !IsLoop(err) {
					t.Errorf("Target(%s) = %q, %q, %v; want a loop error", p, target, rel, err)
				}
			case tc.want != nil:
				if !errors.Is(err, tc.want) || target != "" || rel != "" {
					t.Errorf("Target(%s) = %q, %q, %v; want %v", p, target, rel, err, tc.want)
				}
			case err != nil || rel != tc.rel || target != filepath.Join(r.Real(), filepath.FromSlash(tc.rel)):
				t.Errorf("Target(%s) = %q, %q, %v; want %q in %s", p, target, rel, err, tc.rel, r.Real())
			}
		}
	}
}

// TestContains asks by name through both paths of a workspace reached by
// a link.
func TestContains(t *testing.T) {
	t.Parallel()
	real := t.TempDir()
	via := fsguardtest.Link(t, real, filepath.Join(t.TempDir(), "via"))
	r := NewRoot(via)
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{filepath.Join(via, "a.md"), true},
		{filepath.Join(real, "a.md"), true},
		{via, true},
		{real + "x", false},
		{filepath.Dir(real), false},
		{filepath.Join(via, "..", "x"), false},
	} {
		if got := r.Contains(filepath.Clean(tc.p)); got != tc.want {
			t.Errorf("Contains(%s) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// TestMemoReadErrors checks that a memo, which opens a file without
// looking at its name first, fails with the errors of the root's read,
// word for word.
func TestMemoReadErrors(t *testing.T) {
	t.Parallel()
	root, _ := tree(t)
	plain, memo := NewRoot(root), NewRoot(root).Memo()
	for _, rel := range []string{"gone.md", "gone/b.md", "a.md/x.md", "sub", "pipe.md", "topipe.md", "dangling.md", "out.md", "outdir/secret.md", "outdir/gone.md", "loop1.md"} {
		p := filepath.Join(root, rel)
		_, want := plain.ReadFile(context.Background(), p, 1<<20)
		for range 2 {
			_, got := memo.ReadFile(context.Background(), p, 1<<20)
			if want == nil || got == nil || got.Error() != want.Error() {
				t.Errorf("memo ReadFile(%s) = %v; want %v", rel, got, want)
			}
		}
	}
}

// fakeListing is a Lister of given entries: by folder, each name's type.
type fakeListing map[string]map[string]fs.FileMode

func (l fakeListing) EntryType(dir, name string) (fs.FileMode, bool) {
	typ, ok := l[dir][name]
	return typ, ok
}

// TestListed reads through what a walk listed: every path reads as it
// reads without the listing, a folder the walk found as a link included,
// whatever a listing of that folder says, and a file replaced by a link
// or removed since the walk fails as it fails without the listing.
func TestListed(t *testing.T) {
	t.Parallel()
	root, outside := tree(t)
	lst := listing.New()
	if err := lst.WalkDir(root, func(p string, d fs.DirEntry, err error) error { return err }); err != nil {
		t.Fatal(err)
	}
	// A listing that also went into the links to folders, inside and out.
	through := fakeListing{
		root:                           {"a.md": 0, "sub": fs.ModeDir, "outdir": fs.ModeSymlink, "subdir": fs.ModeSymlink},
		filepath.Join(root, "sub"):     {"b.md": 0},
		filepath.Join(root, "outdir"):  {"secret.md": 0},
		filepath.Join(root, "subdir"):  {"b.md": 0},
		filepath.Join(root, "missing"): {"x.md": 0},
	}
	plain := NewRoot(root)
	rels := []string{"a.md", "sub/b.md", "inside.md", "nested.md", "out.md", "relout.md", "loop1.md", "dangling.md", "pipe.md", "topipe.md", "sub", "outdir/secret.md", "subdir/b.md", "missing/x.md", "gone.md"}
	for name, l := range map[string]Lister{"walk": lst, "through links": through} {
		listed := plain.Listed(l)
		for _, rel := range rels {
			p := filepath.Join(root, filepath.FromSlash(rel))
			want, wantErr := plain.ReadFile(t.Context(), p, 1<<20)
			got, err := listed.ReadFile(t.Context(), p, 1<<20)
			if string(got) != string(want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("%s: ReadFile(%s) = %q, %v; want %q, %v", name, rel, got, err, want, wantErr)
			}
			if err != nil && strings.Contains(err.Error(), outside) {
				t.Errorf("%s: ReadFile(%s)'s error %q shows where a link leads", name, rel, err)
			}
		}
	}

	// Since the walk: a file replaced by a link out, another removed.
	listed := plain.Listed(lst)
	if err := os.Remove(filepath.Join(root, "a.md")); err != nil {
		t.Fatal(err)
	}
	fsguardtest.Link(t, filepath.Join(outside, "secret.md"), filepath.Join(root, "a.md"))
	if b, err := listed.ReadFile(t.Context(), filepath.Join(root, "a.md"), 1<<20); !errors.Is(err, ErrOutsideWorkspace) || len(b) != 0 {
		t.Errorf("ReadFile of a listed file replaced by a link out = %q, %v; want ErrOutsideWorkspace", b, err)
	}
	if err := os.Remove(filepath.Join(root, "sub", "b.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := listed.ReadFile(t.Context(), filepath.Join(root, "sub", "b.md"), 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a listed file removed since = %v; want fs.ErrNotExist", err)
	}
}
