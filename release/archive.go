package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"cmp"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// entry is one file of an archive: its path inside the archive, its
// content and whether it is executable.
type entry struct {
	name string
	data []byte
	exec bool
}

// mode is the entry's permission bits: every file is world-readable and
// owned by no one in particular, whatever the umask of the build was.
func (e entry) mode() os.FileMode {
	if e.exec {
		return 0o755
	}
	return 0o644
}

// fileEntry reads path as the entry name.
func fileEntry(name, path string, exec bool) (entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return entry{}, err
	}
	return entry{name: name, data: data, exec: exec}, nil
}

// sorted returns the entries in name order, so that the archive does not
// depend on the order they were gathered in.
func sorted(entries []entry) []entry {
	out := append([]entry(nil), entries...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// writeTarGz writes a gzipped tar of the entries under the folder top:
// every entry, and the folder itself, with the time mtime, owner and
// group 0 and no names, in name order, and a gzip header without name or
// time. The same entries give the same bytes.
func writeTarGz(w io.Writer, top string, entries []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	mtime = mtime.UTC().Truncate(time.Second)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
		return err
	}
	for _, e := range sorted(entries) {
		h := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     top + "/" + e.name,
			Mode:     int64(e.mode()),
			Size:     int64(len(e.data)),
			ModTime:  mtime,
			Format:   tar.FormatPAX,
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes a zip of the entries under the folder top, as
// writeTarGz does: fixed times, fixed modes, name order.
func writeZip(w io.Writer, top string, entries []entry, mtime time.Time) error {
	zw := newZipWriter(w)
	if top != "" {
		h := &zip.FileHeader{Name: top + "/", Modified: zipTime(mtime)}
		h.SetMode(os.ModeDir | 0o755)
		if _, err := zw.CreateHeader(h); err != nil {
			return err
		}
		top += "/"
	}
	for _, e := range sorted(entries) {
		if err := addZipFile(zw, top+e.name, e.data, e.mode(), mtime); err != nil {
			return err
		}
	}
	return zw.Close()
}

func newZipWriter(w io.Writer) *zip.Writer {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	return zw
}

func addZipFile(zw *zip.Writer, name string, data []byte, mode os.FileMode, mtime time.Time) error {
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime(mtime)}
	h.SetMode(mode)
	f, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return err
}

// zipTime is mtime as zip stores it: in UTC, to the second (the extended
// timestamp field), so that the local time zone of the build is not in
// the archive.
func zipTime(mtime time.Time) time.Time {
	return mtime.UTC().Truncate(time.Second)
}

// normalizeZip rewrites the zip at path with every entry's time set to
// mtime and compressed anew, in name order after the two entries a VSIX
// opens with, keeping names, modes and content. vsce stamps the files it
// generates with the time of the build and lists them in the order it
// finds them; after this, two builds of the same commit are the same
// bytes.
func normalizeZip(path string, mtime time.Time) error {
	r, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer r.Close()
	files := slices.Clone(r.File)
	first := func(name string) int {
		switch name {
		case "[Content_Types].xml":
			return 0
		case "extension.vsixmanifest":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(files, func(a, b *zip.File) int {
		return cmp.Or(cmp.Compare(first(a.Name), first(b.Name)), strings.Compare(a.Name, b.Name))
	})
	var buf bytes.Buffer
	zw := newZipWriter(&buf)
	for _, f := range files {
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		if f.FileInfo().IsDir() {
			h := &zip.FileHeader{Name: f.Name, Modified: zipTime(mtime)}
			h.SetMode(os.ModeDir | 0o755)
			if _, err := zw.CreateHeader(h); err != nil {
				return err
			}
			continue
		}
		mode := os.FileMode(0o644)
		if f.Mode()&0o111 != 0 {
			mode = 0o755
		}
		if err := addZipFile(zw, f.Name, data, mode, mtime); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes(), 0o644)
}

// writeFileAtomic writes data to path through a temporary file in the
// same folder, so that path is either the old file or the new one.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
