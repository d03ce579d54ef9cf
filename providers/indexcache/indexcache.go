// Package indexcache keeps on disk what indexing a context library computed
// for each file (token counts and references), so that a second start on an
// unchanged library does not compute it again.
//
// One cache file holds one workspace: its name comes from the workspace
// root, and its header names the root, the ctxls build and a key of the
// settings the results depend on (tokenizer, configuration). A file whose
// header differs, whose checksum fails or that does not decode is
// discarded as a whole, never trusted. Each entry is valid only for the
// exact content it was computed from: the caller hashes what it read and
// an entry answers only to the same hash, whatever the file's size and
// modification time say.
package indexcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/providers/atomicfile"
)

// EnvDir names the environment variable that overrides the cache
// directory; tests point it at a temporary directory.
const EnvDir = "CTXLS_CACHE_DIR"

// magic opens every cache file; its last byte is the format's version.
const magic = "CTXLSIX\x01"

// maxFileSize bounds what Open reads: a larger file is not one of ours.
const maxFileSize = 1 << 30

// Dir returns the directory caches live in: $CTXLS_CACHE_DIR when set,
// otherwise ctxls under the user's cache directory.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("index cache: %w", err)
	}
	return filepath.Join(d, "ctxls"), nil
}

// BuildID identifies the running ctxls build: its module version and VCS
// revision, and for a build from a modified or unversioned tree the size
// and time of the executable as well, since such builds share a revision.
func BuildID() string {
	var b strings.Builder
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.WriteString(bi.Main.Version)
		b.WriteString(" " + bi.Main.Sum)
		modified := bi.Main.Version == "" || bi.Main.Version == "(devel)"
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.time":
				b.WriteString(" " + s.Value)
			case "vcs.modified":
				modified = modified || s.Value == "true"
			}
		}
		if !modified {
			return b.String()
		}
	}
	if exe, err := os.Executable(); err == nil {
		if info, err := os.Stat(exe); err == nil {
			fmt.Fprintf(&b, " exe %d %d", info.Size(), info.ModTime().UnixNano())
		}
	}
	return b.String()
}

// Key says what the cached results were computed under; a cache written
// under another key is discarded.
type Key struct {
	// Root is the workspace's absolute path.
	Root string
	// Version identifies the ctxls build (see BuildID).
	Version string
	// Settings stands for everything else the results depend on, such as
	// the tokenizer and the configuration.
	Settings string
}

// Hash is the SHA-256 of a file's content.
type Hash [sha256.Size]byte

// Sum returns the hash of content.
func Sum(content []byte) Hash { return sha256.Sum256(content) }

// Entry is what the index computed for one file.
type Entry struct {
	// Hash is the hash of the content the entry was computed from.
	Hash Hash
	// Size and ModTime (Unix nanoseconds) are the file's when it was
	// read: enough for a quick look at the library before it is read
	// again, never for the results below.
	Size, ModTime int64
	// Headings are a topic's sections; Alias the frontmatter id a file
	// directly in a context root may also be named by.
	Headings []Heading
	Alias    string
	// Tokens is the measured cost of a topic's body; Sections the cost of
	// each of its sections, in order.
	Tokens   int
	Sections []int
	// View identifies the set of domains and sections the references were
	// scanned against; they hold only under the same view.
	View uint64
	// Refs are the file's references in the encoding of AppendRefs; nil
	// when none were stored.
	Refs []byte
}

// Heading is a section heading of a topic.
type Heading struct {
	Name, Anchor string
	Level        int
}

// Cache is the cache of one workspace: the entries read from disk, and the
// entries of the current index, which Save writes. It is safe for
// concurrent use.
type Cache struct {
	path string
	key  Key
	// Discarded says why the file on disk was not used, or "".
	discarded string

	old map[string]Entry // read from disk; not modified after Open

	mu    sync.Mutex
	cur   map[string]Entry
	dirty bool
	// stored says that Store was called: Save then writes the stored
	// entries, else the ones read.
	stored bool
	// results are whole results kept beside the entries (see Result).
	results map[string]result
}

// result is a stored result and the fingerprint of what it was computed
// from.
type result struct {
	fp   Hash
	data []byte
}

// Open reads the cache of the workspace key.Root from dir. It fails only
// when dir cannot be used; a missing, corrupt or foreign cache file gives
// an empty cache (Discarded says why).
func Open(dir string, key Key) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("index cache: no directory")
	}
	return read(dir, key.Root).open(key), nil
}

// A Reading is the cache file of a workspace being read and decoded in
// the background, while the caller works out the rest of the key.
type Reading struct {
	done chan struct{}
	f    *file
}

// Read starts reading the cache of the workspace root from dir. Open of
// the result waits for the read and gives what the package's Open gives.
func Read(dir, root string) *Reading {
	r := &Reading{done: make(chan struct{})}
	if dir == "" {
		close(r.done)
		return r
	}
	go func() {
		defer close(r.done)
		r.f = read(dir, root)
	}()
	return r
}

// Open returns the cache under key, whose Root is the root given to Read.
func (r *Reading) Open(key Key) (*Cache, error) {
	<-r.done
	if r.f == nil {
		return nil, errors.New("index cache: no directory")
	}
	return r.f.open(key), nil
}

// file is a cache file as read from disk, before its key is checked.
type file struct {
	path string
	// missing says there is no cache file; err why the file read is none.
	missing bool
	err     error
	// The header's key, and why the rest did not decode (checked once the
	// key matches: a foreign file is reported as such).
	root, version, settings string
	bodyErr                 error
	entries                 map[string]Entry
	results                 map[string]result
}

// read reads the cache file of the workspace root from dir.
func read(dir, root string) *file {
	sum := sha256.Sum256([]byte(root))
	f := &file{path: filepath.Join(dir, fmt.Sprintf("index-%x.bin", sum[:12]))}
	data, err := readBounded(f.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.missing = true
	case err != nil:
		f.err = err
	default:
		f.decode(data)
	}
	return f
}

// open returns the cache of f under key.
func (f *file) open(key Key) *Cache {
	c := &Cache{
		path:    f.path,
		key:     key,
		cur:     map[string]Entry{},
		results: map[string]result{},
	}
	var err error
	switch {
	case f.missing:
		c.old = map[string]Entry{}
		c.dirty = true
		return c
	case f.err != nil:
		err = f.err
	case f.root != key.Root:
		err = fmt.Errorf("cache of another workspace (%s)", f.root)
	case f.version != key.Version:
		err = errors.New("cache of another ctxls build")
	case f.settings != key.Settings:
		err = errors.New("cache of other settings")
	case f.bodyErr != nil:
		err = f.bodyErr
	}
	if err != nil {
		c.discard(err.Error())
		return c
	}
	c.old, c.results = f.entries, f.results
	return c
}

func (c *Cache) discard(why string) {
	c.discarded = why
	c.results = map[string]result{}
	c.old = map[string]Entry{}
	c.dirty = true
}

// Path returns the cache file's path.
func (c *Cache) Path() string { return c.path }

// Discarded says why the cache file was not used, or "" when it was (or
// there was none).
func (c *Cache) Discarded() string { return c.discarded }

// Len returns the number of entries read from disk.
func (c *Cache) Len() int { return len(c.old) }

// Lookup returns the entry of the file at path when it was computed from
// content with hash h.
func (c *Cache) Lookup(path string, h Hash) (Entry, bool) {
	e, ok := c.old[path]
	if !ok || e.Hash != h {
		return Entry{}, false
	}
	return e, true
}

// Store records the entry of the file at path for Save.
func (c *Cache) Store(path string, e Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		if o, ok := c.old[path]; !ok || !sameEntry(o, e) {
			c.dirty = true
		}
	}
	c.cur[path] = e
	c.stored = true
}

// Result returns the result stored under name for the fingerprint fp.
// A command whose whole output follows from what it read (such as a check
// of the workspace) keeps it this way, under a fingerprint of all it read.
func (c *Cache) Result(name string, fp Hash) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.results[name]
	if !ok || r.fp != fp {
		return nil, false
	}
	return r.data, true
}

// StoreResult records a result for Save, replacing the one under name.
func (c *Cache) StoreResult(name string, fp Hash, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results[name] = result{fp, data}
	c.dirty = true
}

func sameEntry(a, b Entry) bool {
	return a.Hash == b.Hash && a.Size == b.Size && a.ModTime == b.ModTime && a.Alias == b.Alias &&
		a.Tokens == b.Tokens && a.View == b.View &&
		slices.Equal(a.Sections, b.Sections) && slices.Equal(a.Headings, b.Headings) && bytes.Equal(a.Refs, b.Refs)
}

// Save writes the stored entries, replacing the cache file, unless they
// are the ones it holds. Entries of files not stored since Open (deleted
// files) are dropped. The file is replaced atomically: a reader sees the
// old cache or the new one.
func (c *Cache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.cur
	if !c.stored {
		entries = c.old
	}
	if !c.dirty && len(entries) == len(c.old) {
		return nil
	}
	data := encode(c.key, entries, c.results)
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	// A run killed while it wrote left a temporary file behind.
	atomicfile.Clean(dir)
	if err := atomicfile.Write(c.path, data, 0o600); err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	c.dirty = false
	return nil
}

// readBounded reads a file of at most maxFileSize bytes.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxFileSize {
		return nil, fmt.Errorf("%s is not a cache file", path)
	}
	buf := make([]byte, info.Size())
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf, nil
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// encode lays out a cache file: magic, the key, the entries, and a CRC-32C
// of everything before it.
func encode(key Key, entries map[string]Entry, results map[string]result) []byte {
	size := len(magic) + 64 + len(key.Root) + len(key.Version) + len(key.Settings)
	for p, e := range entries {
		size += len(p) + len(e.Refs) + 64 + 4*len(e.Sections)
	}
	b := make([]byte, 0, size)
	b = append(b, magic...)
	b = appendString(b, key.Root)
	b = appendString(b, key.Version)
	b = appendString(b, key.Settings)
	b = binary.AppendUvarint(b, uint64(len(entries)))
	for p, e := range entries {
		b = appendString(b, p)
		b = append(b, e.Hash[:]...)
		b = binary.AppendVarint(b, e.Size)
		b = binary.AppendVarint(b, e.ModTime)
		b = binary.AppendUvarint(b, uint64(len(e.Headings)))
		for _, h := range e.Headings {
			b = appendString(b, h.Name)
			b = appendString(b, h.Anchor)
			b = binary.AppendUvarint(b, uint64(h.Level))
		}
		b = appendString(b, e.Alias)
		b = binary.AppendUvarint(b, uint64(e.Tokens))
		b = binary.AppendUvarint(b, uint64(len(e.Sections)))
		for _, n := range e.Sections {
			b = binary.AppendUvarint(b, uint64(n))
		}
		b = binary.LittleEndian.AppendUint64(b, e.View)
		b = appendString(b, string(e.Refs))
	}
	b = binary.AppendUvarint(b, uint64(len(results)))
	for name, r := range results {
		b = appendString(b, name)
		b = append(b, r.fp[:]...)
		b = appendString(b, string(r.data))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// decode reads a cache file into f. Entries' Refs are slices of data.
func (f *file) decode(data []byte) {
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic {
		f.err = errors.New("not a ctxls index cache of this format")
		return
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(data[len(body):]) {
		f.err = errors.New("checksum mismatch: the cache file is damaged")
		return
	}
	r := &reader{b: body[len(magic):]}
	f.root, f.version, f.settings = r.string(), r.string(), r.string()
	if r.err != nil {
		f.err = r.err
		return
	}
	f.entries, f.results, f.bodyErr = decodeBody(r)
}

// decodeBody reads the entries and results that follow a cache file's
// header.
func decodeBody(r *reader) (map[string]Entry, map[string]result, error) {
	n := r.count(len(r.b))
	out := make(map[string]Entry, n)
	for range n {
		p := r.string()
		var e Entry
		copy(e.Hash[:], r.bytes(len(e.Hash)))
		e.Size, e.ModTime = r.varint(), r.varint()
		// A heading takes at least three bytes.
		if k := r.count(len(r.b) / 3); k > 0 {
			e.Headings = make([]Heading, k)
			for i := range e.Headings {
				e.Headings[i] = Heading{Name: r.string(), Anchor: r.string(), Level: r.int()}
			}
		}
		e.Alias = r.string()
		e.Tokens = r.int()
		if k := r.count(len(r.b)); k > 0 {
			e.Sections = make([]int, k)
			for i := range e.Sections {
				e.Sections[i] = r.int()
			}
		}
		e.View = r.uint64()
		if refs := r.bytes(r.count(len(r.b))); len(refs) > 0 {
			e.Refs = refs
		}
		if r.err != nil {
			return nil, nil, r.err
		}
		out[p] = e
	}
	n = r.count(len(r.b))
	results := make(map[string]result, n)
	for range n {
		name := r.string()
		var res result
		copy(res.fp[:], r.bytes(len(res.fp)))
		res.data = r.bytes(r.count(len(r.b)))
		results[name] = res
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	return out, results, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// errCorrupt is the error of every malformed read.
var errCorrupt = errors.New("malformed cache data")

// reader reads the encoding of encode and AppendRefs; after the first
// error every read returns zero values and err stays set.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 { return readVarint(r, binary.Uvarint) }

func (r *reader) varint() int64 { return readVarint(r, binary.Varint) }

// readVarint reads one number that decode (binary.Uvarint or
// binary.Varint) decodes.
func readVarint[T uint64 | int64](r *reader, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := decode(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

// int reads a non-negative int.
func (r *reader) int() int {
	v := r.uvarint()
	if v > 1<<40 {
		r.err = errCorrupt
		return 0
	}
	return int(v)
}

// count reads a length that cannot exceed limit (what is left to read).
func (r *reader) count(limit int) int {
	v := r.uvarint()
	if v > uint64(limit) {
		r.err = errCorrupt
		return 0
	}
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errCorrupt
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) string() string { return string(r.bytes(r.count(len(r.b)))) }

func (r *reader) uint64() uint64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// Key returns the cache's key.
func (c *Cache) Key() Key { return c.key }

// Peek returns the entry of the file at path when it was recorded with
// this size and modification time. That does not prove the content is
// the same (a file may be rewritten within the clock's resolution, or its
// time set back): Peek serves quick looks that a full read corrects, never
// results.
func (c *Cache) Peek(path string, size, modTime int64) (Entry, bool) {
	if c == nil {
		return Entry{}, false
	}
	e, ok := c.old[path]
	if !ok || e.Size != size || e.ModTime != modTime {
		return Entry{}, false
	}
	return e, true
}
