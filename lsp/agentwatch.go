package lsp

import (
	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/agentwatch"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/workspace"
)

// watchAgentDirs follows the hidden folders agent files live in, which the
// workspace's watcher skips, so that a skill or rule changed on disk and
// not open in the editor is checked again without the client's events.
// The watcher stops with the server's context.
func (s *Server) watchAgentDirs(ws *workspace.Workspace) {
	w, err := agentwatch.Watch(ws.Dir(), agentwatch.Options{Logger: s.log}, func(paths []string) {
		s.agentFilesChanged(ws, paths)
	})
	if err != nil {
		s.log.Warn("agent folders are not watched; their files are checked again when the editor reports them", "err", err)
		return
	}
	go func() {
		<-s.ctx.Done()
		if err := w.Close(); err != nil {
			s.log.Warn("close the agent-folder watcher", "err", err)
		}
	}()
}

// agentFilesChanged reads the agent files again when any of paths is one
// and schedules the diagnostics of those that are, and of the subagents
// when a skill changed. Which paths are agent files the snapshot before
// the change says (a file removed is in it); which subagents there are,
// the snapshot the change makes.
func (s *Server) agentFilesChanged(ws *workspace.Workspace, paths []string) {
	var agents []string
	skills := false
	snap := ws.Snapshot()
	for _, p := range paths {
		if s.isAgentFile(snap, p) {
			agents = append(agents, p)
			if rel, ok := fsguard.Rel(ws.Dir(), p); ok && agentfiles.Classify(rel, nil) == agentfiles.KindSkill {
				skills = true
			}
		}
	}
	if len(agents) == 0 {
		return
	}
	next := ws.AgentFilesChanged(agents)
	mark(s.stale.agents)
	for _, p := range agents {
		s.diags.touch(p)
	}
	if !skills {
		return
	}
	// A subagent's skills name skills: one created, renamed or removed
	// changes what the subagents' checks say.
	if set := s.agentSet(s.ctx, next); set != nil {
		for _, f := range set.Files {
			if f.Kind == agentfiles.KindSubagent {
				s.diags.touch(f.Path)
			}
		}
	}
}
