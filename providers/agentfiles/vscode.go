package agentfiles

import (
	"context"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/providers/fsguard"
)

// vscodeSettingsFile is where a workspace configures VS Code.
const vscodeSettingsFile = ".vscode/settings.json"

// maxVSCodeSettings bounds .vscode/settings.json.
const maxVSCodeSettings = 1 << 20

// loadVSCodeSettings reads the folders of the workspace that
// chat.instructionsFilesLocations in .vscode/settings.json adds to the
// ones VS Code searches for *.instructions.md files by default
// (.github/instructions): those set to true, relative to the workspace.
// Folders of the user's profile and a file VS Code cannot read leave the
// default alone.
func (s *Set) loadVSCodeSettings(ctx context.Context) {
	p := filepath.Join(s.Root, filepath.FromSlash(vscodeSettingsFile))
	data, err := s.Guard().ReadFile(ctx, p, maxVSCodeSettings)
	if err != nil {
		s.instructionDirs = nil
		return
	}
	s.instructionDirs = parseVSCodeSettings(data)
}

// parseVSCodeSettings returns the folders of the workspace the text of a
// .vscode/settings.json adds for instructions files.
func parseVSCodeSettings(data []byte) []string {
	// VS Code reads its settings as JSON with comments.
	root, _, err := parseJSON(stripJSONC(data))
	if err != nil {
		return nil
	}
	v, _ := root.get("chat.instructionsFilesLocations")
	if v == nil || v.kind != '{' {
		return nil
	}
	var out []string
	for i, k := range v.keys {
		dir := path.Clean(strings.TrimPrefix(strings.ReplaceAll(k.str, `\`, "/"), "./"))
		if v.vals[i].kind != 't' || dir == "." || path.IsAbs(dir) || strings.HasPrefix(dir, "~") || fsguard.Climbs(dir) || strings.ContainsAny(dir, "*?[{") {
			continue
		}
		out = append(out, dir)
	}
	return out
}

// inInstructionsDir reports whether rel, a *.instructions.md file, lies
// in or below a folder chat.instructionsFilesLocations adds.
func (s *Set) inInstructionsDir(rel string) bool {
	if !strings.HasSuffix(rel, ".instructions.md") {
		return false
	}
	for _, d := range s.instructionDirs {
		if fsguard.Within(d, rel) {
			return true
		}
	}
	return false
}
