package discover

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/refs"
)

// A ContextRoot is a directory taken as a context library, and what
// showed it to be one.
//
// A directory is a context library only when the configuration says so
// (contextRoots in .ctxls.yaml) or when its own files show it beyond
// doubt; a folder's name proves nothing, since "context" names a module
// in many programs. A directory named context, or the workspace when it
// is laid out as a library (an index.md in each of two folders, or a
// loading protocol), is taken when one of these holds:
//
//   - it holds a loading protocol, loading_protocol.md or cross_domain.md,
//     or a domain's detection rules, DOMAIN/context_detection.md;
//   - a markdown file in it or in one of its folders has topic
//     frontmatter: one of the keys only topics write (loadingStrategy,
//     estimatedTokens, crossDomainTriggers, detectionTriggers,
//     indexedFiles), a domain that is the name of the folder the file is
//     in, or an id that is the file's own domain/name;
//   - a command names one of its topics as domain:topic (or lists
//     domain/topic in its context), and the topic's file is there.
type ContextRoot struct {
	// Dir is the absolute directory.
	Dir string `json:"dir"`
	// Why says what showed it, in a few words ("contextRoots in
	// .ctxls.yaml", "it holds loading_protocol.md", …).
	Why string `json:"why"`
	// Evidence is the file that showed it, or "" for a configured root.
	Evidence string `json:"evidence,omitempty"`
}

// Names of the files that only a context library holds at its top, and
// in a domain.
var protocolFiles = []string{"loading_protocol.md", "cross_domain.md"}

const detectionFile = "context_detection.md"

// topicKeys are the frontmatter keys only topics write.
var topicKeys = []string{"loadingStrategy", "estimatedTokens", "crossDomainTriggers", "detectionTriggers", "indexedFiles"}

// maxEvidenceReads bounds how many files of one candidate are read for
// topic frontmatter: a library shows it in its first files, and a large
// tree of plain markdown is not read whole twice.
const maxEvidenceReads = 256

// frontmatterPrefix is how much of a file is read for its frontmatter.
const frontmatterPrefix = 8 << 10

// decideRoots settles which candidate directories are context roots. The
// configured roots are in s.roots already; candidates not taken are left
// in s.passed.
func (s *Scan) decideRoots(dir string, candidates, commandDirs []string) {
	slices.Sort(candidates)
	under := func(p string) bool {
		for _, r := range s.roots {
			if fsguard.Within(r.Dir, p) {
				return true
			}
		}
		return false
	}
	var rest []string
	for _, c := range candidates {
		if under(c) {
			continue
		}
		if why, ev, ok := s.fileEvidence(c); ok {
			s.roots = append(s.roots, ContextRoot{Dir: c, Why: why, Evidence: ev})
			continue
		}
		rest = append(rest, c)
	}
	if len(rest) > 0 {
		cmds := s.commandFiles(commandDirs)
		for _, c := range rest {
			if under(c) {
				continue
			}
			if why, ev, ok := commandEvidence(s.root, c, cmds); ok {
				s.roots = append(s.roots, ContextRoot{Dir: c, Why: why, Evidence: ev})
				continue
			}
			s.passed = append(s.passed, c)
		}
	}
	slices.SortFunc(s.roots, func(a, b ContextRoot) int { return strings.Compare(a.Dir, b.Dir) })
}

// fileEvidence looks in the candidate c for a loading protocol or a topic's
// frontmatter, in c and in its folders.
func (s *Scan) fileEvidence(c string) (why, evidence string, ok bool) {
	var files []Entry
	for _, e := range s.Files {
		if e.Path != c && fsguard.Within(c, e.Path) {
			rel := fsguard.RelSlash(c, e.Path)
			if strings.Count(rel, "/") <= 1 {
				files = append(files, Entry{e.Path, rel})
			}
		}
	}
	for _, name := range protocolFiles {
		for _, e := range files {
			if e.Rel == name {
				return "it holds " + e.Rel, e.Path, true
			}
		}
	}
	for _, e := range files {
		if path.Base(e.Rel) == detectionFile && e.Rel != detectionFile {
			return "it holds " + e.Rel, e.Path, true
		}
	}
	// Domain files first: a root's own files are more often prose.
	slices.SortStableFunc(files, func(a, b Entry) int {
		return strings.Count(b.Rel, "/") - strings.Count(a.Rel, "/")
	})
	for i, e := range files {
		if i == maxEvidenceReads {
			break
		}
		if key, ok := topicFrontmatter(s.root, e.Path, e.Rel); ok {
			return "topic frontmatter (" + key + ") in " + e.Rel, e.Path, true
		}
	}
	return "", "", false
}

// topicFrontmatter reports whether the file at p, at rel in a candidate
// root, opens with frontmatter that only a topic writes, and which key
// shows it.
func topicFrontmatter(root *fsguard.Root, p, rel string) (string, bool) {
	head, err := root.ReadHead(p, frontmatterPrefix)
	if err != nil {
		return "", false
	}
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	domain, stem := "", strings.TrimSuffix(rel, path.Ext(rel))
	if d, name, ok := strings.Cut(stem, "/"); ok {
		domain, stem = d, name
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	for n := 0; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if n == 0 {
			if line != "---" {
				return "", false
			}
			continue
		}
		if line == "---" || line == "..." {
			return "", false
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || key == "" || key[0] == ' ' || key[0] == '\t' || key[0] == '#' || key[0] == '-' {
			continue
		}
		val = strings.Trim(strings.TrimSpace(val), `"'`)
		switch {
		case slices.Contains(topicKeys, key):
			return key, true
		case key == "domain" && domain != "" && val == domain:
			return "domain: " + val, true
		case key == "id" && domain != "" && val == domain+"/"+stem:
			return "id: " + val, true
		}
	}
	return "", false
}

// commandFile is a command's text, read for evidence.
type commandFile struct {
	rel string
	doc *document.Doc
}

// commandFiles reads the commands in the candidate command directories.
func (s *Scan) commandFiles(dirs []string) []commandFile {
	var out []commandFile
	for _, e := range s.Files {
		r := UnderAny(e.Path, dirs)
		if r == "" {
			continue
		}
		parts := strings.Split(fsguard.RelSlash(r, e.Path), "/")
		if len(parts) > 2 || len(parts) == 2 && !strings.EqualFold(parts[1], "COMMAND.md") {
			continue
		}
		text, err := s.root.ReadFile(context.Background(), e.Path, config.Default().MaxFileSize)
		if err != nil {
			continue
		}
		out = append(out, commandFile{e.Rel, document.Parse(e.Path, text)})
	}
	return out
}

// commandEvidence reports whether one of the commands names a topic of
// the candidate c, a folder of the workspace of root, by domain:topic (or
// domain/topic in its context list) whose file is in c.
func commandEvidence(root *fsguard.Root, c string, cmds []commandFile) (why, evidence string, ok bool) {
	dir := root.Dir()
	domains := map[string]bool{}
	ents, err := os.ReadDir(c)
	if err != nil {
		return "", "", false
	}
	for _, e := range ents {
		if e.IsDir() && !hidden(e.Name()) {
			domains[e.Name()] = true
		}
	}
	if len(domains) == 0 {
		return "", "", false
	}
	opts := refs.Options{IsDomain: func(name string) bool { return domains[name] }, Fields: refs.CommandFields}
	for _, cmd := range cmds {
		for _, r := range refs.ScanList(cmd.doc, opts).All() {
			if r.Form == refs.DomainForm || r.Form == refs.PathForm || r.Topic == "" || !domains[r.Domain] {
				continue
			}
			p := filepath.Join(c, r.Domain, filepath.FromSlash(r.Topic)+".md")
			if _, err := root.Check(p); err == nil {
				return cmd.rel + " names " + r.Domain + ":" + r.Topic, filepath.Join(dir, filepath.FromSlash(cmd.rel)), true
			}
		}
	}
	return "", "", false
}

// RootInfo is what the scan decided about context roots.
type RootInfo struct {
	Roots  []ContextRoot
	Passed []string
}

// Info returns what the scan decided about context roots.
func (s *Scan) Info() RootInfo { return RootInfo{Roots: s.roots, Passed: s.passed} }

// ShowsRoot reports whether the markdown file at p, in the candidate c,
// is a loading protocol or holds topic frontmatter now; root is the
// workspace's check.
func ShowsRoot(root *fsguard.Root, c, p string) bool {
	rel := fsguard.RelSlash(c, p)
	if strings.Count(rel, "/") > 1 {
		return false
	}
	if slices.Contains(protocolFiles, rel) || path.Base(rel) == detectionFile && rel != detectionFile {
		return true
	}
	_, ok := topicFrontmatter(root, p, rel)
	return ok
}

// EvidenceOnDisk looks again at what the files on disk show of the
// candidate c: its files and those of its folders, and the commands of
// the command roots.
func EvidenceOnDisk(root *fsguard.Root, c string, commandRoots []string, flt *Filter) (why, evidence string, ok bool) {
	dir := root.Dir()
	s := &Scan{root: root}
	list := func(d string, depth int) {
		var walkDir func(d string, depth int)
		walkDir = func(d string, depth int) {
			ents, err := os.ReadDir(d)
			if err != nil {
				return
			}
			for _, e := range ents {
				p := filepath.Join(d, e.Name())
				switch {
				case e.IsDir() && depth > 0 && !flt.SkipDir(p):
					walkDir(p, depth-1)
				case e.Type().IsRegular() && IsMarkdown(e.Name()) && !flt.SkipFile(p):
					s.Files = append(s.Files, Entry{p, fsguard.RelSlash(dir, p)})
				}
			}
		}
		walkDir(d, depth)
	}
	list(c, 1)
	if why, ev, ok := s.fileEvidence(c); ok {
		return why, ev, true
	}
	for _, r := range commandRoots {
		list(r, 1)
	}
	return commandEvidence(root, c, s.commandFiles(commandRoots))
}
