package contextapi

import (
	"sync"

	"github.com/ctxls/ctxls/providers/library"
)

// derived holds what the provider computes from one version of a library:
// detection rules per domain and the cross-domain matrix. Each part is
// built on first use.
type derived struct {
	lib     *library.Snapshot
	version uint64

	mu        sync.Mutex
	detects   map[string]*detectionRules
	matrix    *crossMatrix
	stemsOnce sync.Once
	stemIDs   map[string][]string
}

// current returns the derived data of the library's present version,
// replacing the previous version's.
func (p *Provider) current(lib *library.Snapshot) *derived {
	v := lib.Version()
	p.derivedMu.Lock()
	defer p.derivedMu.Unlock()
	if d := p.derived; d != nil && d.lib == lib && d.version == v {
		return d
	}
	d := &derived{lib: lib, version: v, detects: map[string]*detectionRules{}}
	p.derived = d
	return d
}
