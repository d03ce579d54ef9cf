package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"text/tabwriter"
	"time"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/library/libgen"
	"github.com/ctxls/ctxls/providers/listing"
	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/ops"
)

// monorepoReport holds what ctxls bench --monorepo measured, in
// milliseconds: the check of a repository of mostly source files against
// the floor of listing its tree.
type monorepoReport struct {
	Dir        string  `json:"dir"`
	Generated  bool    `json:"generated"`
	GenerateMS float64 `json:"generateMs,omitempty"`
	Entries    int     `json:"entries"`
	// ListMS is the floor: a walk of the whole tree that lists every
	// entry and reads no file, as find does.
	ListMS float64 `json:"listMs"`
	// CheckMS is a check without the report or index cache, as
	// `ctxls check --no-cache` runs it; Ratio is CheckMS / ListMS.
	CheckMS  float64 `json:"checkMs"`
	Ratio    float64 `json:"ratio"`
	Problems int     `json:"problems"`
	// AgentFiles counts the agent files found; IgnoredDirs the folders
	// skipped because git ignores them.
	AgentFiles  int `json:"agentFiles"`
	IgnoredDirs int `json:"ignoredDirs"`
	Runs        int `json:"runs"`
}

// runMonorepoBench generates a monorepo of about files files in dir when
// dir is empty, then times listing its tree and checking it, each runs
// times, and reports the medians.
func runMonorepoBench(ctx context.Context, dir string, files, runs int, format string, stdout, stderr io.Writer) error {
	rep := monorepoReport{Dir: dir, Runs: runs}
	if rep.Dir == "" {
		tmp, err := os.MkdirTemp("", "ctxls-bench-monorepo-")
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer os.RemoveAll(tmp)
		rep.Dir = tmp
	}
	if empty(rep.Dir) {
		fmt.Fprintf(stderr, "generating a monorepo of %s files in %s…\n", numfmt.Thousands(files), rep.Dir)
		start := time.Now()
		if _, err := libgen.Monorepo(rep.Dir, files); err != nil {
			return err
		}
		rep.Generated, rep.GenerateMS = true, ms(time.Since(start))
	}
	var list, check []float64
	for range runs {
		start := time.Now()
		n, err := listTree(ctx, rep.Dir)
		if err != nil {
			return err
		}
		list = append(list, ms(time.Since(start)))
		rep.Entries = n

		d, records, agents, err := timeCheck(ctx, rep.Dir)
		if err != nil {
			return err
		}
		check = append(check, ms(d))
		rep.Problems, rep.AgentFiles, rep.IgnoredDirs = len(records), len(agents.Files), agents.IgnoredDirs
	}
	rep.ListMS, rep.CheckMS = median(list), median(check)
	if rep.ListMS > 0 {
		rep.Ratio = rep.CheckMS / rep.ListMS
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	src := "existing workspace"
	if rep.Generated {
		src = fmt.Sprintf("generated in %.0f ms", rep.GenerateMS)
	}
	fmt.Fprintf(tw, "workspace\t%s (%s), %s entries\n", rep.Dir, src, numfmt.Thousands(rep.Entries))
	fmt.Fprintf(tw, "list the tree\t%.0f ms (the floor: every entry, no file read)\n", rep.ListMS)
	fmt.Fprintf(tw, "check\t%.0f ms, %.2f× the listing (%s, %s, %s skipped as git ignores them)\n", rep.CheckMS, rep.Ratio,
		numfmt.Count(rep.Problems, "problem"), numfmt.Count(rep.AgentFiles, "agent file"), numfmt.Count(rep.IgnoredDirs, "folder"))
	fmt.Fprintf(tw, "runs\t%d, medians\n", rep.Runs)
	return tw.Flush()
}

// timeCheck checks the workspace dir as `ctxls check --no-cache` does,
// under its memory policy, and returns how long that took. The garbage
// of the runs before is collected first, so that each run starts, as the
// command does, with an empty heap.
func timeCheck(ctx context.Context, dir string) (time.Duration, []ops.Diagnostic, *agentfiles.Set, error) {
	debug.FreeOSMemory()
	start := time.Now()
	defer setCheckGC()()
	lst := listing.New()
	lib, err := openLibraryListed(ctx, dir, false, lst, io.Discard)
	if err != nil {
		return 0, nil, nil, err
	}
	agents, err := agentfiles.LoadListed(ctx, lib.Dir(), lib.Config(), lst)
	if err != nil {
		return 0, nil, nil, err
	}
	records, _, _, err := collect(ctx, ops.StaticWith(lib, agents)())
	if err != nil {
		return 0, nil, nil, err
	}
	return time.Since(start), records, agents, nil
}

// listTree counts the entries under dir, .git's excepted, reading no
// file.
func listTree(ctx context.Context, dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		n++
		return nil
	})
	return n, err
}
