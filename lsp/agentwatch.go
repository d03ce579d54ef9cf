package lsp

import (
	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/workspace"
)

// agentFilesChanged tells the workspace of the agent files among paths,
// which the client reported changed on disk: the workspace's own watcher
// may not follow the hidden folders they live in (it may not run at all).
// Which paths are agent files the snapshot before the change says (a file
// removed is in it). The diagnostics and the views follow the update the
// workspace sends (see onUpdate).
func (s *Server) agentFilesChanged(ws *workspace.Workspace, paths []string) {
	var agents []string
	snap := ws.Snapshot()
	for _, p := range paths {
		if s.isAgentFile(snap, p) {
			agents = append(agents, p)
		}
	}
	if len(agents) > 0 {
		ws.AgentFilesChanged(agents)
	}
}

// touchSkillUsers schedules the diagnostics of the files of snap whose
// checks name skills when one of changed is a skill: a subagent's skills
// name skills, and a command of .claude/commands is shadowed by a skill
// of its name, so one created, renamed or removed changes what they say.
func (s *Server) touchSkillUsers(snap *workspace.Snapshot, changed []string) {
	skills := false
	for _, p := range changed {
		if rel, ok := fsguard.Rel(snap.Library().Dir(), p); ok && agentfiles.Classify(rel, nil) == agentfiles.KindSkill {
			skills = true
			break
		}
	}
	if !skills {
		return
	}
	if set := s.agentSet(s.ctx, snap); set != nil {
		for _, f := range set.Files {
			if f.Kind == agentfiles.KindSubagent || f.Kind == agentfiles.KindCommand {
				s.diags.touch(f.Path)
			}
		}
	}
}
