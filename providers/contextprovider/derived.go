package contextprovider

import (
	"sync"

	"github.com/ctxls/ctxls/providers/library"
)

// derived holds what the provider computes from one version of a library:
// detection rules per domain, the cross-domain matrix and the search
// index. Each part is built on first use.
type derived struct {
	lib     *library.Library
	version uint64

	mu        sync.Mutex
	detects   map[string]*detectionRules
	matrix    *crossMatrix
	index     *searchIndex
	stemsOnce sync.Once
	stemIDs   map[string][]string

	// prevIndex is the previous version's index, reused per topic.
	prevIndex *searchIndex
}

// current returns the derived data of the library's present version,
// replacing the previous version's.
func (p *Provider) current(lib *library.Library) *derived {
	v := lib.Version()
	p.derivedMu.Lock()
	defer p.derivedMu.Unlock()
	if d := p.derived; d != nil && d.lib == lib && d.version == v {
		return d
	}
	old := p.derived
	d := &derived{lib: lib, version: v, detects: map[string]*detectionRules{}}
	if old != nil && old.lib == lib {
		// The search index is rebuilt per topic: carry the old one over so
		// unchanged topics are not indexed again.
		old.mu.Lock()
		d.prevIndex = old.index
		if d.prevIndex == nil {
			d.prevIndex = old.prevIndex
		}
		old.mu.Unlock()
	}
	p.derived = d
	return d
}
