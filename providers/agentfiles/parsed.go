package agentfiles

import (
	"context"
	"crypto/sha256"
	"sync"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/listing"
)

// Parsed keeps the agent files a workspace read, each parsed once per
// text, for its next reading: a file whose text did not change is not
// parsed again, whether it comes from the disk or from the editor. It
// holds what the latest two readings (Load) used and the texts given
// since, up to a bound. A Parsed is safe for concurrent use; the zero
// value is ready.
type Parsed struct {
	mu    sync.Mutex
	round uint64
	m     map[parsedKey]*parsedEntry
}

// parsedKey is one file as parsed: its path, the kind it is read as and
// a hash of its text.
type parsedKey struct {
	path string
	kind Kind
	sum  [sha256.Size]byte
}

// parsedEntry is the parse of one text, and the last reading it served.
type parsedEntry struct {
	f    *File
	used uint64
}

// maxParsed bounds the texts a Parsed keeps beyond those the latest
// reading used.
const maxParsed = 4096

// Load is the package's Load with every file parsed through p.
func (p *Parsed) Load(ctx context.Context, root string, cfg *config.Config) (*Set, error) {
	return p.LoadListed(ctx, root, cfg, nil)
}

// LoadListed is the package's LoadListed with every file parsed through
// p; a nil p parses every file. When it is done, p forgets the texts that neither this reading nor
// the one before used.
func (p *Parsed) LoadListed(ctx context.Context, root string, cfg *config.Config, lst *listing.Listings) (*Set, error) {
	if p == nil {
		return load(ctx, root, cfg, lst, nil)
	}
	p.mu.Lock()
	p.round++
	round := p.round
	p.mu.Unlock()
	s, err := load(ctx, root, cfg, lst, p)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, e := range p.m {
		if e.used+1 < round {
			delete(p.m, k)
		}
	}
	return s, nil
}

// parse fills f from content as parseInto does, from a parse of the same
// text kept by p when there is one.
func (p *Parsed) parse(f *File, content []byte) {
	if p == nil {
		parseInto(f, content)
		return
	}
	k := parsedKey{path: f.Path, kind: f.Kind, sum: sha256.Sum256(content)}
	p.mu.Lock()
	e, ok := p.m[k]
	if ok {
		e.used = p.round
	}
	p.mu.Unlock()
	if ok {
		f.from(e.f)
		return
	}
	parseInto(f, content)
	kept := &File{}
	kept.from(f)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[parsedKey]*parsedEntry{}
	}
	if len(p.m) >= maxParsed {
		// Texts given between readings (an editor's keystrokes) go first.
		for k, e := range p.m {
			if e.used < p.round {
				delete(p.m, k)
			}
		}
		if len(p.m) >= maxParsed {
			clear(p.m)
		}
	}
	p.m[k] = &parsedEntry{f: kept, used: p.round}
}

// from sets what parsing gives f (its text, document, metadata and what
// the agents read leniently) to g's. The parse is shared, not copied:
// neither file changes it.
func (f *File) from(g *File) {
	f.Meta, f.Text, f.Lines, f.Doc, f.Skipped = g.Meta, g.Text, g.Lines, g.Doc, g.Skipped
	f.quoted, f.lax, f.quotedErr = g.quoted, g.lax, g.quotedErr
}
