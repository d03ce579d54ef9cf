package chain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/memory"
	"github.com/ctxls/ctxls/providers/runs/execution"
)

// memoryLayer is the layer of an execution's memory that holds the
// workspace's agent memory files.
const memoryLayer = "project"

// memoryRoots are the agent memory files at the workspace root whose text,
// and that of the files they import with @path, every step's prompt
// carries.
var memoryRoots = []string{"CLAUDE.md", "AGENTS.md"}

// maxMemoryBytes bounds the memory read for one execution; files past it
// are left out with a warning.
const maxMemoryBytes = 2 << 20

// MemoryItem is one memory file in a step's prompt.
type MemoryItem struct {
	// Key is "project:" and the file's path relative to the workspace.
	Key string `json:"key"`
	// Tokens is the measured cost of its content in the prompt.
	Tokens int `json:"tokens"`
	// Cached reports that the execution loaded it before and its copy is
	// used.
	Cached bool `json:"cached"`
}

// memoryPart is one memory file with the content that goes into the
// prompt.
type memoryPart struct {
	item    *MemoryItem
	content string
	// tokens is the content's known cost, -1 when it must be counted.
	tokens int
}

// readMemory reads the workspace's memory files and their imports as the
// agent loads them: each root file, then the files it imports, depth
// first, each file once. Every file passes the workspace's root check: an
// import that leads out of the workspace, or to a file that is not a
// regular file, is left out with a warning that does not say where it
// leads, and nothing of it is stored or sent.
func readMemory(ctx context.Context, lib *library.Snapshot) ([]execution.MemoryLoad, []string, error) {
	root := lib.Dir()
	opt := memory.Options(lib.Config(), root, nil)
	opt.Guard = lib.Root()
	var (
		out      []execution.MemoryLoad
		warnings []string
		seen     = map[string]bool{}
		refused  = map[string]bool{}
		size     int
	)
	for _, name := range memoryRoots {
		tree, err := imports.Build(ctx, filepath.Join(root, name), opt)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			warnings = append(warnings, fmt.Sprintf("memory file %s left out: %v", name, err))
			continue
		}
		for _, f := range tree.Files {
			for _, e := range f.Imports {
				if (e.Status != imports.Escapes && e.Status != imports.Special) || refused[e.Target] {
					continue
				}
				refused[e.Target] = true
				why := "it leads out of the workspace through a symbolic link"
				if e.Status == imports.Special {
					why = "it is " + e.Why
				}
				rel, _ := fsguard.Rel(root, e.Target)
				warnings = append(warnings, fmt.Sprintf("memory file %s left out: %s", rel, why))
			}
			if seen[f.Path] {
				continue
			}
			seen[f.Path] = true
			rel, ok := fsguard.Rel(root, f.Path)
			if !ok {
				continue
			}
			text, err := imports.ReadFile(opt.Guard, f.Path)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("memory file %s left out: %v", rel, err))
				continue
			}
			if size+len(text) > maxMemoryBytes {
				warnings = append(warnings, fmt.Sprintf("memory file %s left out: the memory files pass %d MiB", rel, maxMemoryBytes>>20))
				continue
			}
			size += len(text)
			out = append(out, execution.MemoryLoad{Layer: memoryLayer, Key: rel, Content: string(text)})
		}
	}
	return out, warnings, nil
}

// executionMemory returns the memory of an execution's prompts: what the
// execution loaded before (cached), or else the workspace's memory files
// read now and, when record is set, recorded in the execution, so that
// every step of the execution sees the same memory.
func (r *Runner) executionMemory(ctx context.Context, lib *library.Snapshot, sessionID string, record bool) ([]memoryPart, []string, error) {
	if sessionID != "" {
		cached, err := r.opts.Store.MemoryLayer(ctx, sessionID, memoryLayer)
		if err != nil {
			return nil, nil, err
		}
		if len(cached) > 0 {
			return memoryParts(cached, true), nil, nil
		}
	}
	loads, warnings, err := readMemory(ctx, lib)
	if err != nil {
		return nil, warnings, err
	}
	if record && sessionID != "" && len(loads) > 0 {
		if err := r.opts.Store.RecordMemoryLoads(ctx, sessionID, loads); err != nil {
			return nil, warnings, err
		}
	}
	return memoryParts(loads, false), warnings, nil
}

func memoryParts(loads []execution.MemoryLoad, cached bool) []memoryPart {
	out := make([]memoryPart, len(loads))
	for i, l := range loads {
		out[i] = memoryPart{item: &MemoryItem{Key: l.Layer + ":" + l.Key, Cached: cached}, content: l.Content, tokens: -1}
	}
	return out
}

// previewMemory gives each previewed step its own memory items, marked
// cached from the second step on: a run loads the memory once.
func previewMemory(mem []memoryPart, later bool) []memoryPart {
	out := make([]memoryPart, len(mem))
	for i, m := range mem {
		it := *m.item
		it.Cached = it.Cached || later
		out[i] = memoryPart{item: &it, content: m.content, tokens: m.tokens}
	}
	return out
}
