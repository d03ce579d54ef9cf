package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libgen"
	"github.com/ctxls/ctxls/providers/numfmt"
)

// benchReport holds what ctxls bench measured. Durations are in
// milliseconds, sizes in bytes unless the name says otherwise.
type benchReport struct {
	Dir        string  `json:"dir"`
	Generated  bool    `json:"generated"`
	GenerateMS float64 `json:"generateMs,omitempty"`
	Tokenizer  string  `json:"tokenizer"`
	Cores      int     `json:"cores"`
	Files      int     `json:"files"`
	Topics     int     `json:"topics"`
	Domains    int     `json:"domains"`
	Bytes      int64   `json:"bytes"`
	ColdMS     float64 `json:"coldIndexMs"`
	ColdCPUMS  float64 `json:"coldIndexCpuMs"`
	// CPUTime says whether the system reports the process's CPU time;
	// without it the CPU figures are 0.
	CPUTime      bool    `json:"cpuTimeAvailable"`
	ApplyMS      float64 `json:"applyOneFileMs"`
	ApplyMaxMS   float64 `json:"applyOneFileMaxMs"`
	SearchMS     float64 `json:"searchMs"`
	SearchWarmMS float64 `json:"searchWarmMs"`
	DiagnoseMS   float64 `json:"diagnoseAllMs"`
	Diagnostics  int     `json:"diagnostics"`
	HeapLiveMiB  float64 `json:"heapLiveMiB"`
	// RSSIndexMiB and RSSIndexPeakMiB are read right after the cold
	// index; RSSMiB and RSSPeakMiB at the end, after the other
	// measurements and a collection.
	RSSIndexMiB     float64 `json:"rssIndexMiB"`
	RSSIndexPeakMiB float64 `json:"rssIndexPeakMiB"`
	RSSMiB          float64 `json:"rssMiB"`
	RSSPeakMiB      float64 `json:"rssPeakMiB"`
	// WarmMS and WarmCPUMS are a full index with the index cache of an
	// earlier one; PreviewMS and PreviewColdMS a preview of the
	// workspace with and without that cache.
	WarmMS        float64 `json:"warmIndexMs"`
	WarmCPUMS     float64 `json:"warmIndexCpuMs"`
	PreviewMS     float64 `json:"previewMs"`
	PreviewColdMS float64 `json:"previewColdMs"`
	SampledFile   string  `json:"sampledFile,omitempty"`
	SearchQuery   string  `json:"searchQuery,omitempty"`
	SearchResult  int     `json:"searchResults"`
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", stderr)
	topics := fs.Int("topics", 10000, "number of topics to generate when DIR holds no library")
	dir := fs.String("dir", "", "workspace to index; generated there when empty or missing (default: a temporary directory)")
	tokenizer := fs.String("tokenizer", "", "token encoding: o200k_base, cl100k_base or estimate (default: the workspace's)")
	iterations := fs.Int("n", 30, "iterations of the one-file re-index and search measurements")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the cold index to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile, taken after the cold index, to this file")
	dense := fs.Int("dense", 0, "also write a domain d and commands/dense.md holding this many references into the workspace")
	monorepo := fs.Int("monorepo", 0, "instead, time check of a monorepo of about this many files (generated in --dir when it is empty) against listing its tree, -n times (default 3)")
	format := formatFlag(fs)
	pos, err := parseFormatted(fs, args, format)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{msg: "bench takes no positional arguments; use --dir"}
	}
	if *monorepo != 0 {
		if *monorepo < 100 || *iterations < 1 {
			return usageError{msg: "--monorepo must be at least 100 files, -n at least 1"}
		}
		runs := 3
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "n" {
				runs = *iterations
			}
		})
		return runMonorepoBench(ctx, *dir, *monorepo, runs, *format, stdout, stderr)
	}
	if *topics < 1 || *iterations < 1 || *dense < 0 {
		return usageError{msg: "--topics and -n must be at least 1, --dense at least 0"}
	}
	rep := benchReport{Dir: *dir, Cores: runtime.GOMAXPROCS(0)}
	if rep.Dir == "" {
		tmp, err := os.MkdirTemp("", "ctxls-bench-")
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer os.RemoveAll(tmp)
		rep.Dir = tmp
	}
	opts := libgen.Options{Topics: *topics}
	if empty(rep.Dir) {
		fmt.Fprintf(stderr, "generating %s topics in %s…\n", numfmt.Thousands(*topics), rep.Dir)
		start := time.Now()
		if _, err := libgen.Generate(rep.Dir, opts); err != nil {
			return err
		}
		rep.Generated, rep.GenerateMS = true, ms(time.Since(start))
	}
	if *dense > 0 {
		st, err := libgen.Dense(rep.Dir, *dense)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s: %s references, %s bytes\n", st.Path, numfmt.Thousands(st.Refs), numfmt.Thousands(st.Bytes))
	}
	cfg, _, err := config.Load(rep.Dir)
	if err != nil {
		return err
	}
	if *tokenizer != "" {
		cfg.Tokenizer = *tokenizer
	}
	rep.Tokenizer = cfg.Tokenizer

	// Measure the memory the server would use: with its GC setting.
	setServerGC()

	// Cold index, on all cores.
	runtime.GC()
	stopProfile := func() {}
	if *cpuProfile != "" {
		if stopProfile, err = startCPUProfile(*cpuProfile); err != nil {
			return err
		}
	}
	cpu0, start := startCPU(), time.Now()
	live, err := library.Load(ctx, rep.Dir, cfg, library.Options{AfterIndex: debug.FreeOSMemory})
	if err != nil {
		stopProfile()
		return err
	}
	rep.ColdMS = ms(time.Since(start))
	rep.ColdCPUMS, rep.CPUTime = cpu0.sinceMS()
	stopProfile()
	rep.RSSIndexMiB, rep.RSSIndexPeakMiB = procStatusMiB("VmRSS"), procStatusMiB("VmHWM")
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			return err
		}
	}
	lib := live.Snapshot()
	files := lib.Files()
	rep.Files, rep.Topics, rep.Domains = len(files), len(lib.Topics()), len(lib.Domains())
	for _, f := range files {
		if f.Doc != nil {
			rep.Bytes += int64(f.Doc.Len())
		}
	}

	// One-file re-index through Apply, alternating two versions of a topic.
	if t := sampleTopic(lib); t != nil {
		rep.SampledFile = fsguard.RelSlash(lib.Dir(), t.Path)
		orig, err := t.Doc.Content(ctx)
		if err != nil {
			return err
		}
		edited := append(slices.Clone(orig), []byte("\n\nEdited paragraph for the benchmark.\n")...)
		var times []float64
		for i := range *iterations {
			content := edited
			if i%2 == 1 {
				content = orig
			}
			start := time.Now()
			if _, err := live.Apply(ctx, []library.Change{{Path: t.Path, Content: content}}); err != nil {
				return err
			}
			times = append(times, ms(time.Since(start)))
		}
		// Leave the library as the disk has it.
		if _, err := live.Apply(ctx, []library.Change{{Path: t.Path}}); err != nil {
			return err
		}
		lib = live.Snapshot()
		rep.ApplyMS, rep.ApplyMaxMS = median(times), slices.Max(times)
	}

	// Search through the context provider: with a fresh provider (its
	// caches empty) and again with warm caches.
	rep.SearchQuery = searchQuery(lib)
	if rep.SearchQuery != "" {
		var cold, warm []float64
		for range *iterations {
			prov := contextapi.NewStatic(lib)
			for _, times := range []*[]float64{&cold, &warm} {
				start := time.Now()
				res, err := prov.Search(ctx, rep.SearchQuery, "", 10)
				if err != nil {
					return err
				}
				*times = append(*times, ms(time.Since(start)))
				rep.SearchResult = len(res.Items)
			}
		}
		rep.SearchMS, rep.SearchWarmMS = median(cold), median(warm)
	}

	start = time.Now()
	for _, ds := range lib.DiagnoseAll(ctx) {
		rep.Diagnostics += len(ds)
	}
	rep.DiagnoseMS = ms(time.Since(start))

	// As the server does once it has published them (lsp.Options.Reclaim).
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	rep.HeapLiveMiB = float64(m.HeapAlloc) / (1 << 20)
	rep.RSSMiB, rep.RSSPeakMiB = procStatusMiB("VmRSS"), procStatusMiB("VmHWM")
	runtime.KeepAlive(live)
	lib = nil
	if err := benchCache(ctx, &rep, cfg); err != nil {
		return err
	}

	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printBench(stdout, rep)
	return nil
}

func printBench(w io.Writer, r benchReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	src := "existing workspace"
	if r.Generated {
		src = fmt.Sprintf("generated in %.0f ms", r.GenerateMS)
	}
	fmt.Fprintf(tw, "workspace\t%s (%s)\n", r.Dir, src)
	fmt.Fprintf(tw, "library\t%s files, %s topics, %s domains, %.1f MB\n", numfmt.Thousands(r.Files), numfmt.Thousands(r.Topics), numfmt.Thousands(r.Domains), float64(r.Bytes)/1e6)
	fmt.Fprintf(tw, "tokenizer\t%s, %d cores\n", r.Tokenizer, r.Cores)
	fmt.Fprintf(tw, "cold index\t%.0f ms (%s, %.1f MB/s)\n", r.ColdMS, r.cpuText(r.ColdCPUMS), float64(r.Bytes)/1e6/(r.ColdMS/1000))
	if r.SampledFile != "" {
		fmt.Fprintf(tw, "re-index one file\t%.2f ms median, %.2f ms max (%s)\n", r.ApplyMS, r.ApplyMaxMS, r.SampledFile)
	}
	if r.SearchQuery != "" {
		fmt.Fprintf(tw, "search\t%.2f ms median, %.2f ms with warm caches (%q, %d results)\n", r.SearchMS, r.SearchWarmMS, r.SearchQuery, r.SearchResult)
	}
	fmt.Fprintf(tw, "diagnose all\t%.0f ms (%s diagnostics)\n", r.DiagnoseMS, numfmt.Thousands(r.Diagnostics))
	fmt.Fprintf(tw, "warm index\t%.0f ms (%s) with the index cache of an earlier index\n", r.WarmMS, r.cpuText(r.WarmCPUMS))
	fmt.Fprintf(tw, "preview\t%.0f ms with the index cache, %.0f ms without\n", r.PreviewMS, r.PreviewColdMS)
	fmt.Fprintf(tw, "memory after index\t%.0f MiB resident, %.0f MiB peak resident (VmHWM)\n", r.RSSIndexMiB, r.RSSIndexPeakMiB)
	fmt.Fprintf(tw, "memory at the end\t%.0f MiB live heap, %.0f MiB resident, %.0f MiB peak resident\n", r.HeapLiveMiB, r.RSSMiB, r.RSSPeakMiB)
	tw.Flush()
}

// benchCache measures, after the other figures so that it does not
// change their memory, a full index with the index cache of an earlier
// one and previews of the workspace, in a temporary cache directory.
func benchCache(ctx context.Context, rep *benchReport, cfg *config.Config) error {
	dir, err := os.MkdirTemp("", "ctxls-bench-cache-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	if _, err := library.NewPreview(ctx, rep.Dir, cfg, library.Options{}); err != nil {
		return err
	}
	rep.PreviewColdMS = ms(time.Since(start))
	opts := library.Options{CacheDir: dir, Version: "bench"}
	if _, err := library.Load(ctx, rep.Dir, cfg, opts); err != nil {
		return err
	}
	runtime.GC()
	cpu0, start := startCPU(), time.Now()
	if _, err := library.Load(ctx, rep.Dir, cfg, opts); err != nil {
		return err
	}
	rep.WarmMS = ms(time.Since(start))
	rep.WarmCPUMS, _ = cpu0.sinceMS()
	runtime.GC()
	start = time.Now()
	if _, err := library.NewPreview(ctx, rep.Dir, cfg, opts); err != nil {
		return err
	}
	rep.PreviewMS = ms(time.Since(start))
	return nil
}

// empty reports whether dir is missing or holds nothing.
func empty(dir string) bool {
	ents, err := os.ReadDir(dir)
	return err != nil || len(ents) == 0
}

// sampleTopic picks a topic in the middle of the library, preferring one
// with frontmatter.
func sampleTopic(lib *library.Snapshot) *library.Topic {
	topics := lib.Topics()
	if len(topics) == 0 {
		return nil
	}
	for i := len(topics) / 2; i < len(topics); i++ {
		if topics[i].HasFrontmatter && topics[i].Doc != nil {
			return topics[i]
		}
	}
	return topics[len(topics)/2]
}

// searchQuery builds a query from a tag of the library: a word that
// appears in real metadata, so the search has work to do.
func searchQuery(lib *library.Snapshot) string {
	topics := lib.Topics()
	for i := len(topics) / 3; i < len(topics); i++ {
		for _, tag := range topics[i].Meta.Tags {
			if tag != topics[i].Domain && len(tag) > 3 {
				return tag + " patterns"
			}
		}
	}
	return ""
}

// cpuText says how much CPU time a measurement took, or that the system
// does not report it.
func (r *benchReport) cpuText(cpuMS float64) string {
	if !r.CPUTime {
		return "CPU time not available"
	}
	return fmt.Sprintf("%.0f ms CPU", cpuMS)
}

// cpuClock is the process's CPU time at the start of a measurement.
type cpuClock struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuClock {
	d, ok := cpuTime()
	return cpuClock{start: d, ok: ok}
}

// sinceMS returns the CPU time used since c in milliseconds, and whether
// the system reports it.
func (c cpuClock) sinceMS() (float64, bool) {
	d, ok := cpuTime()
	if !c.ok || !ok {
		return 0, false
	}
	return ms(d - c.start), true
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// procStatusMiB reads a memory field such as VmHWM (peak resident set)
// from /proc/self/status; 0 where the file does not exist.
func procStatusMiB(field string) float64 {
	f, err := os.Open(filepath.Join("/proc", "self", "status"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		var kb float64
		if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(val), "kB")), &kb); err == nil {
			return kb / 1024
		}
	}
	return 0
}

// writeHeapProfile writes the live heap, after a collection, to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("heap profile %s: %w", path, err)
	}
	return f.Close()
}
