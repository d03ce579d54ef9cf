// Package testtree writes trees of files for tests: a map of slash paths
// to texts, or a txtar archive, becomes files under a directory, making
// the folders they need.
//
// The archive format is the one of golang.org/x/tools/txtar, which gopls's
// tests use: a comment, then files, each introduced by a line
// "-- name --". It is parsed here, in a few lines, rather than taken as a
// dependency of the module for tests alone.
package testtree

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Write writes content at p, creating its folder, and returns p.
func Write(t testing.TB, p, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteAt writes content at the slash path rel below dir, creating its
// folder, and returns the file's path.
func WriteAt(t testing.TB, dir, rel, content string) string {
	t.Helper()
	return Write(t, filepath.Join(dir, filepath.FromSlash(rel)), content)
}

// WriteFiles writes files (slash path → content) below dir, replacing
// what is there, and creating the folders they need.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	// In order, so a failure names the same file each run.
	names := make([]string, 0, len(files))
	for rel := range files {
		names = append(names, rel)
	}
	sort.Strings(names)
	for _, rel := range names {
		Write(t, filepath.Join(dir, filepath.FromSlash(rel)), files[rel])
	}
}

// New writes files as WriteFiles does below a new temporary directory
// and returns the directory.
func New(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	WriteFiles(t, dir, files)
	return dir
}

// Archive is a parsed txtar archive.
type Archive struct {
	// Comment is the text before the first file.
	Comment string
	Files   []File
}

// File is one file of an archive.
type File struct {
	Name string
	Data string
}

// Parse parses a txtar archive. Every line "-- name --" starts a file;
// the text of each ends with a newline unless it is empty. Two files may
// have the same name.
func Parse(data []byte) *Archive {
	a := &Archive{}
	var cur *File
	var body bytes.Buffer
	flush := func() {
		if cur == nil {
			a.Comment = body.String()
		} else {
			cur.Data = body.String()
			a.Files = append(a.Files, *cur)
		}
		body.Reset()
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if name, ok := marker(line); ok {
			flush()
			cur = &File{Name: name}
			continue
		}
		body.Write(line)
		if len(data) == 0 && line[len(line)-1] != '\n' {
			body.WriteByte('\n')
		}
	}
	flush()
	return a
}

// marker returns the name of a line "-- name --".
func marker(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < len("-- x --") {
		return "", false
	}
	return strings.TrimSpace(s[3 : len(s)-3]), true
}

// Format is the inverse of Parse: an archive's text.
func Format(a *Archive) []byte {
	var b bytes.Buffer
	b.WriteString(a.Comment)
	for _, f := range a.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.WriteString(f.Data)
		if f.Data != "" && !strings.HasSuffix(f.Data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// ReadArchive parses the archive at path, failing the test if it cannot
// be read.
func ReadArchive(t testing.TB, path string) *Archive {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(data)
}

// Map returns the files of a as a map of name to text, the last of two
// with one name winning.
func (a *Archive) Map() map[string]string {
	m := make(map[string]string, len(a.Files))
	for _, f := range a.Files {
		m[f.Name] = f.Data
	}
	return m
}
