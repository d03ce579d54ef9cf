package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The same files give the same archive, whatever order they come in.
func TestArchivesAreDeterministic(t *testing.T) {
	t.Parallel()
	mtime := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	a := []entry{{name: "ctxls", data: []byte("binary"), exec: true}, {name: "README.md", data: []byte("# ctxls\n")}, {name: "LICENSE", data: []byte("MIT\n")}}
	b := []entry{a[2], a[0], a[1]}
	for _, write := range []func(*bytes.Buffer, []entry) error{
		func(w *bytes.Buffer, e []entry) error { return writeTarGz(w, "top", e, mtime) },
		func(w *bytes.Buffer, e []entry) error { return writeZip(w, "top", e, mtime) },
	} {
		var x, y bytes.Buffer
		if err := write(&x, a); err != nil {
			t.Fatal(err)
		}
		if err := write(&y, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			t.Error("the order of the entries changed the archive")
		}
	}
}

// normalizeZip makes two zips that differ only in their entries' times
// the same bytes, whatever the order of its entries, and keeps names,
// content and the executable bit.
func TestNormalizeZip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	type file struct {
		name string
		mode os.FileMode
	}
	files := []file{{"extension/server/linux-x64/ctxls", 0o755}, {"extension.vsixmanifest", 0o644}, {"[Content_Types].xml", 0o644}}
	write := func(name string, stamp time.Time) string {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		// vsce lists the files in the order it finds them.
		slices.Reverse(files)
		for _, f := range files {
			h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: stamp}
			h.SetMode(f.mode)
			w, err := zw.CreateHeader(h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte("content of " + f.name))
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p1 := write("a.vsix", time.Date(2026, 1, 1, 1, 1, 1, 0, time.Local))
	p2 := write("b.vsix", time.Date(2027, 2, 2, 2, 2, 2, 0, time.UTC))
	mtime := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, p := range []string{p1, p2} {
		if err := normalizeZip(p, mtime); err != nil {
			t.Fatal(err)
		}
	}
	d1, _ := os.ReadFile(p1)
	d2, _ := os.ReadFile(p2)
	if !bytes.Equal(d1, d2) {
		t.Fatal("normalized zips differ")
	}
	r, err := zip.OpenReader(p1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(r.File) != 3 || r.File[0].Name != "[Content_Types].xml" || r.File[1].Name != "extension.vsixmanifest" || r.File[2].Mode().Perm() != 0o755 || !r.File[2].Modified.Equal(mtime) {
		t.Errorf("entries after normalizing: %v %v %v %v", r.File[0].Name, r.File[1].Name, r.File[2].Mode(), r.File[2].Modified)
	}
	if got := readZipFile(t, r.File[2]); got != "content of extension/server/linux-x64/ctxls" {
		t.Errorf("content %q", got)
	}
}

// Every package carries the repository's licence: the copies the plugin
// and the Zed extension keep are the same text.
func TestLicenseCopies(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile(filepath.Join(repoRoot, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, copy := range []string{"claude-plugin/LICENSE", "editors/zed/LICENSE"} {
		got, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(copy)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not the repository's LICENSE (%v)", copy, err)
		}
	}
	if !bytes.Contains(want, []byte("MIT License")) || !bytes.Contains(want, []byte("The ctxls authors")) {
		t.Errorf("LICENSE is not the MIT licence of the ctxls authors")
	}
}

// A release has one version: the extension's and the plugin's agree.
func TestManifestVersionsAgree(t *testing.T) {
	t.Parallel()
	ext, err := manifestVersion(filepath.Join(repoRoot, "vscode-extension", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := manifestVersion(filepath.Join(repoRoot, "claude-plugin", ".claude-plugin", "plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ext != plugin {
		t.Errorf("vscode-extension says %s, claude-plugin %s", ext, plugin)
	}
}
