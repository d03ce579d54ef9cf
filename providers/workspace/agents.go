package workspace

import (
	"context"
	"sync"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/fsguard"
)

// agentCell is the agent files read once for a snapshot, the first time a
// request asks. A reading cancelled by its request is not kept: the next
// request reads again.
type agentCell struct {
	mu   sync.Mutex
	done bool
	set  *agentfiles.Set
	err  error
}

func (c *agentCell) get(ctx context.Context, read func(context.Context) (*agentfiles.Set, error)) (*agentfiles.Set, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return c.set, c.err
	}
	set, err := read(ctx)
	if ctx.Err() != nil {
		return set, ctx.Err()
	}
	c.set, c.err, c.done = set, err, true
	return set, err
}

// agents holds the agent files of one snapshot: disk is what is on disk for
// the snapshot's library and generation of agent-file changes, shared by
// the snapshots that differ only in their open documents; open is disk
// with the editor's texts of the open agent files in place. Both parse
// through the workspace's parsed, so that a file read again with the same
// text is not parsed again.
type agents struct {
	disk   *agentCell
	open   *agentCell
	parsed *agentfiles.Parsed
}

// agents returns the agent files of a next snapshot, sharing disk when it
// is not nil.
func (w *Workspace) agents(disk *agentCell) *agents {
	if disk == nil {
		disk = &agentCell{}
	}
	return &agents{disk: disk, open: &agentCell{}, parsed: w.parsed}
}

// AgentFiles returns the agent files of the snapshot: those on disk, with
// the editor's texts of the open ones, saved or not, in their place. One
// snapshot reads them once, whoever asks; every view of the agent files
// (diagnostics, the session cost, the inventory, loading a skill) reads
// them so.
func (s *Snapshot) AgentFiles(ctx context.Context) (*agentfiles.Set, error) {
	if s.agents == nil {
		return nil, nil
	}
	return s.agents.open.get(ctx, func(ctx context.Context) (*agentfiles.Set, error) {
		lib := s.Library()
		set, err := s.agents.disk.get(ctx, func(ctx context.Context) (*agentfiles.Set, error) {
			return s.agents.parsed.Load(ctx, lib.Dir(), lib.Config())
		})
		if err != nil || set == nil {
			return nil, err
		}
		texts := map[string][]byte{}
		for p, o := range s.overlays {
			rel, ok := fsguard.Rel(set.Root, p)
			if !ok {
				continue
			}
			if _, held := set.File(p); !held && agentfiles.Classify(rel, nil) == agentfiles.KindUnknown {
				continue
			}
			texts[p] = []byte(o.text)
		}
		return set.WithTexts(ctx, texts), nil
	})
}

// AgentFilesChanged tells the workspace that the agent files at paths
// changed on disk (see package agentwatch for the folders the workspace's
// watcher skips): the next snapshot reads the agent files again, and
// OnUpdate names paths. It returns the snapshot in effect after.
func (w *Workspace) AgentFilesChanged(paths []string) *Snapshot {
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	if len(paths) == 0 || w.closed() {
		return w.Snapshot()
	}
	cur := w.cur.Load()
	w.cur.Store(&state{lib: cur.lib, snap: Snapshot{lib: cur.snap.lib, overlays: cur.snap.overlays, agents: w.agents(nil)}})
	w.publish(Update{Changed: paths, Affected: paths})
	return w.Snapshot()
}
