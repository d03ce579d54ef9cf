package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
)

// PathCandidate is a file or folder that completes a path being typed.
type PathCandidate struct {
	// Text is the entry's name, with a slash after a folder's.
	Text string
	Dir  bool
}

// CompletePath returns the files and folders that complete the path being
// typed at off in doc, the memory file at path: an @import or a markdown
// link target, relative to the file's folder. It returns where the name
// being completed starts, and false when off is in no such path or ctx is
// done. Hidden entries are offered once a dot is typed; paths from the
// home folder or the root are not completed, nor a folder that guard
// refuses (one outside the workspace, its links resolved). It returns at
// most max candidates, in the folder's order, which is by name.
func CompletePath(ctx context.Context, doc *document.Doc, path string, off, max int, guard *fsguard.Root) ([]PathCandidate, int, bool) {
	start, ok := pathPrefixAt(doc, off)
	if !ok {
		return nil, 0, false
	}
	typed := string(doc.Text[start:off])
	dirPart, prefix := "", typed
	if i := strings.LastIndexByte(typed, '/'); i >= 0 {
		dirPart, prefix = typed[:i+1], typed[i+1:]
	}
	from := off - len(prefix)
	if strings.HasPrefix(dirPart, "~/") || strings.HasPrefix(dirPart, "/") {
		return nil, from, true
	}
	dir := filepath.Join(filepath.Dir(path), filepath.FromSlash(dirPart))
	if fi, err := guard.Stat(dir); err != nil || !fi.IsDir() {
		return nil, from, true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, from, true
	}
	var out []PathCandidate
	for _, e := range entries {
		if ctx.Err() != nil {
			return nil, 0, false
		}
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".")) {
			continue
		}
		c := PathCandidate{Text: name, Dir: e.IsDir()}
		if c.Dir {
			c.Text += "/"
		}
		out = append(out, c)
		if len(out) == max {
			break
		}
	}
	return out, from, true
}
