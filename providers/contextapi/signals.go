package contextapi

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/fsguard"
)

// Bounds of workspaceSignals: what a scan of a large repository reads.
const (
	signalMaxDepth   = 4         // directories below the workspace
	signalMaxFiles   = 5000      // file paths collected
	signalMaxSources = 200       // source files read for imports
	signalMaxImports = 200       // packages whose import line is kept
	signalReadBytes  = 16 << 10  // read of one source file
	signalMaxSize    = 256 << 10 // larger source files are not read
)

// sourceExts are the extensions of the files whose import lines are
// collected.
var sourceExts = map[string]bool{
	".py": true, ".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".mjs": true,
	".go": true, ".rb": true, ".java": true, ".kt": true, ".rs": true, ".php": true, ".cs": true,
}

// workspaceSignals gathers the signals of the project around the library:
// the paths of its files (FilePatterns), the names of its files at the top
// and in the directories next to it (ConfigFiles), and the import lines
// of its source files (Imports). The workspace's context and command files
// and the directories the library never reads are left out, and the scan
// is bounded in depth, files and bytes read.
func (p *Provider) workspaceSignals(ctx context.Context) (Signals, error) {
	lib := p.library()
	root := lib.Dir()
	filter := lib.Filter()
	var sig Signals
	imports := map[string]bool{}
	sources := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner does not stop the scan
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := fsguard.Rel(root, path)
		if d.IsDir() {
			if path == root {
				return nil
			}
			depth := strings.Count(rel, "/") + 1
			if depth > signalMaxDepth || filter.SkipDir(path) || strings.HasPrefix(d.Name(), ".") || isLibraryDir(lib.Config().ContextRoots, lib.Config().CommandRoots, rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if len(sig.FilePatterns) >= signalMaxFiles {
			return filepath.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil
		}
		sig.FilePatterns = append(sig.FilePatterns, rel)
		if !strings.Contains(rel, "/") || strings.Count(rel, "/") == 1 {
			sig.ConfigFiles = append(sig.ConfigFiles, d.Name())
		}
		if sources < signalMaxSources && len(imports) < signalMaxImports && sourceExts[filepath.Ext(rel)] {
			sources++
			// One import line per package: a project's own modules would
			// otherwise crowd out the libraries, and every line costs a
			// match against every detection rule.
			for _, l := range importLines(lib.Root(), path) {
				if root := importRoot(l); len(imports) < signalMaxImports && !imports[root] {
					imports[root] = true
					sig.Imports = append(sig.Imports, l)
				}
			}
		}
		return nil
	})
	if err != nil {
		return Signals{}, err
	}
	slices.Sort(sig.ConfigFiles)
	sig.ConfigFiles = slices.Compact(sig.ConfigFiles)
	return sig, nil
}

// isLibraryDir reports whether the directory at rel (slash-separated,
// named name) holds the library rather than the project.
func isLibraryDir(contextRoots, commandRoots []string, rel, name string) bool {
	if name == "context" || name == "commands" {
		return true
	}
	return slices.Contains(contextRoots, rel) || slices.Contains(commandRoots, rel)
}

// importLines returns the import statements at the head of a source file,
// read through the workspace's root check.
func importLines(root *fsguard.Root, path string) []string {
	if info, err := root.Check(path); err != nil || info.Size() > signalMaxSize {
		return nil
	}
	head, err := root.ReadHead(path, signalReadBytes)
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 0, 4096), signalReadBytes)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(l, "import "), strings.HasPrefix(l, "from "),
			strings.HasPrefix(l, "require "), strings.Contains(l, "require("),
			strings.HasPrefix(l, "use "), strings.HasPrefix(l, "using "):
			out = append(out, l)
		}
	}
	return out
}

// importRoot names the package an import line imports from: the first
// name of a dotted module (app.models → app), the scope and name of an npm
// package, the host, owner and repository of a Go module path, else the
// first path element.
func importRoot(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return line
	}
	name := f[1]
	if i := strings.Index(line, "require("); i >= 0 {
		name = line[i+len("require("):]
	}
	if f[0] == "import" && len(f) > 2 && !strings.ContainsAny(f[1], `"'`) && strings.Contains(line, " from ") {
		// import x from 'pkg'
		name = line[strings.LastIndex(line, " from ")+len(" from "):]
	}
	name = strings.Trim(name, "\"'`();{}")
	if !strings.Contains(name, "/") {
		root, _, _ := strings.Cut(name, ".")
		return root
	}
	parts := strings.Split(name, "/")
	n := 1
	switch {
	case strings.HasPrefix(parts[0], "@"):
		n = 2
	case strings.Contains(parts[0], "."):
		n = 3
	}
	return strings.Join(parts[:min(n, len(parts))], "/")
}

// DetectWorkspace detects the project type of the workspace: it runs
// DetectProjectType with workspaceSignals on every domain that has
// detection rules and names the best match: the framework detected with
// the highest score, else the architecture, else the domain whose rules
// matched. It returns "" when nothing matched.
func (p *Provider) DetectWorkspace(ctx context.Context) (string, error) {
	sig, err := p.workspaceSignals(ctx)
	if err != nil {
		return "", err
	}
	if len(sig.FilePatterns) == 0 && len(sig.Imports) == 0 {
		return "", nil
	}
	best, bestScore := "", 0.0
	for _, d := range p.library().Domains() {
		res, err := p.DetectProjectType(ctx, d.Name, sig)
		if err != nil {
			return "", err
		}
		for _, m := range res.Matches {
			name := ""
			switch {
			case m.Category == catFramework:
				name = strings.ToLower(m.Name)
			case res.Framework == "" && m.Category == catArchitecture:
				name = strings.ToLower(m.Name)
			case res.Framework == "" && res.Architecture == "":
				name = d.Name
			}
			if name != "" && (m.Score > bestScore || m.Score == bestScore && name < best) {
				best, bestScore = name, m.Score
			}
		}
	}
	return best, nil
}
