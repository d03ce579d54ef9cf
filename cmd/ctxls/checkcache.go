package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/gitignore"
	"github.com/ctxls/ctxls/providers/indexcache"
	"github.com/ctxls/ctxls/providers/listing"
)

// Limits of the workspace fingerprint: a workspace larger than this is
// checked in full every time rather than hashed.
const (
	fingerprintMaxFiles = 200_000
	fingerprintMaxBytes = 512 << 20
	// fingerprintMaxStat bounds the files check does not read (source
	// files) whose modification times the fingerprint takes: past it,
	// taking them costs about what the check does.
	fingerprintMaxStat = 20_000
)

// reportCache keeps check's report of a workspace under a fingerprint of
// the whole workspace tree: the path and type of every entry, and the
// content of every regular file (the library's markdown files, the agent
// files and what they import, .ctxls.yaml, and the files whose mere
// existence a diagnostic depends on), with the ctxls build in the cache's
// key. Any change to the tree gives another fingerprint, and the check
// runs in full. A nil *reportCache keeps nothing.
type reportCache struct {
	cache *indexcache.Cache
	root  string
	fp    indexcache.Hash
	log   *slog.Logger
}

// reportName is the name the report is kept under in its cache file.
const reportName = "check"

// openReportCache opens the report cache of the workspace at dir, or
// returns nil when there is none or the workspace is too large to
// fingerprint.
func openReportCache(ctx context.Context, dir string, stderr io.Writer) *reportCache {
	return openReportCacheListed(ctx, dir, nil, stderr)
}

// openReportCacheListed is openReportCache reading the tree's folders
// through lst, for the check that follows.
func openReportCacheListed(ctx context.Context, dir string, lst *listing.Listings, stderr io.Writer) *reportCache {
	log := warnLogger(stderr)
	cacheDir, build := indexCache(log)
	if cacheDir == "" {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	fp, ok := fingerprintListed(ctx, abs, lst)
	if !ok {
		return nil
	}
	// A file of its own beside the index cache of the same workspace,
	// whose entries it leaves alone.
	c, err := indexcache.Open(cacheDir, indexcache.Key{Root: abs + "\x00check", Version: build, Settings: reportName})
	if err != nil {
		return nil
	}
	return &reportCache{cache: c, root: abs, fp: fp, log: log}
}

// lookup returns the report kept for the fingerprint.
func (rc *reportCache) lookup() (checkReport, bool) {
	if rc == nil {
		return checkReport{}, false
	}
	data, ok := rc.cache.Result(reportName, rc.fp)
	if !ok {
		return checkReport{}, false
	}
	var rep checkReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return checkReport{}, false
	}
	return rep, true
}

// store keeps rep, unless the workspace changed while it was checked: the
// report might then follow from neither state.
func (rc *reportCache) store(ctx context.Context, rep checkReport) {
	if rc == nil {
		return
	}
	if fp, ok := fingerprint(ctx, rc.root); !ok || fp != rc.fp {
		return
	}
	data, err := json.Marshal(rep)
	if err != nil {
		return
	}
	rc.cache.StoreResult(reportName, rc.fp, data)
	if err := rc.cache.Save(); err != nil {
		rc.log.Warn("keep the check's report", "err", err)
	}
}

// fingerprint hashes the tree under root as check reads it: every entry's
// path and type, a symbolic link's target, and a regular file's size and,
// for a file whose name check reads (markdown, JSON, YAML, TOML, ignore
// files), its content; any other file's modification time stands for its
// content (an agent file may import it). The folders check never enters
// are left out: .git and the other folders never read, and those git
// ignores (see agentfiles.Load). Files are read on all cores. It reports
// false when the tree is larger than the limits, cannot be walked, or ctx
// is done.
func fingerprint(ctx context.Context, root string) (indexcache.Hash, bool) {
	return fingerprintListed(ctx, root, nil)
}

// fingerprintListed is fingerprint reading the folders through lst.
func fingerprintListed(ctx context.Context, root string, lst *listing.Listings) (indexcache.Hash, bool) {
	type entry struct {
		rel  string
		mode fs.FileMode
		meta string // a link's target
		size int64
		sum  indexcache.Hash
		err  bool
		read bool // the content is hashed
	}
	var (
		entries []entry
		total   int64
		stats   int
	)
	cfg, _, err := config.Load(root)
	if err != nil {
		return indexcache.Hash{}, false
	}
	git := gitignore.NewListed(root, cfg.Include, lst)
	errTooLarge := errors.New("too large")
	err = lst.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (config.IgnoredDir(d.Name()) || !agentfiles.AgentDir(d.Name()) && git.Ignored(filepath.ToSlash(rel), true)) {
			return filepath.SkipDir
		}
		e := entry{rel: rel, mode: d.Type()}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			e.meta = target
		case d.Type().IsRegular():
			e.read = readByCheck(d.Name())
			if !e.read {
				stats++ // its size and time are taken below, on all cores
				break
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			e.size = info.Size()
			total += e.size
		}
		entries = append(entries, e)
		if len(entries) > fingerprintMaxFiles || total > fingerprintMaxBytes || stats > fingerprintMaxStat {
			return errTooLarge
		}
		return nil
	})
	if err != nil {
		return indexcache.Hash{}, false
	}
	guard := fsguard.NewRoot(root)
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue // drain: the fingerprint is abandoned
				}
				e := &entries[i]
				if !e.read {
					info, err := os.Lstat(filepath.Join(root, e.rel))
					if e.err = err != nil; err == nil {
						e.size, e.meta = info.Size(), info.ModTime().UTC().Format(time.RFC3339Nano)
					}
					continue
				}
				// A file replaced by a link or a pipe since the walk is not
				// followed.
				content, err := guard.ReadWalked(ctx, filepath.Join(root, e.rel), fingerprintMaxBytes)
				e.err = err != nil
				e.sum = indexcache.Sum(content)
			}
		})
	}
	for i := range entries {
		if entries[i].mode.IsRegular() {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return indexcache.Hash{}, false
	}
	h := sha256.New()
	var b []byte
	for _, e := range entries {
		b = b[:0]
		b = binary.AppendUvarint(b, uint64(len(e.rel)))
		b = append(b, e.rel...)
		b = binary.AppendUvarint(b, uint64(e.mode))
		b = binary.AppendUvarint(b, uint64(len(e.meta)))
		b = append(b, e.meta...)
		b = binary.AppendVarint(b, e.size)
		b = append(b, e.sum[:]...)
		if e.err {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		h.Write(b)
	}
	var fp indexcache.Hash
	h.Sum(fp[:0])
	return fp, true
}

// readByCheck reports whether check may read a file of this name for
// itself, rather than only because an agent file imports it.
func readByCheck(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown", ".mdc", ".json", ".jsonc", ".yaml", ".yml", ".toml", ".txt":
		return true
	}
	return strings.HasPrefix(name, ".") || !strings.Contains(name, ".")
}
