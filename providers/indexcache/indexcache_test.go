package indexcache

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/refs"
)

var testKey = Key{Root: "/work/lib", Version: "v1 abc", Settings: "o200k_base"}

// saved writes a cache of two entries to a temporary directory and returns
// the directory.
func saved(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	c, err := Open(dir, testKey)
	if err != nil {
		t.Fatal(err)
	}
	c.Store("/work/lib/context/a/x.md", Entry{Hash: Sum([]byte("x")), Size: 1, ModTime: -5, Headings: []Heading{{Name: "Usage", Anchor: "use", Level: 2}}, Alias: "eng/x", Tokens: 12, Sections: []int{4, 8}, View: 7, Refs: AppendRefs(nil, refs.NewList([]refs.Ref{{Domain: "a", Topic: "y"}}))})
	c.Store("/work/lib/commands/c.md", Entry{Hash: Sum([]byte("c"))})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	dir := saved(t)
	c, err := Open(dir, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if c.Discarded() != "" || c.Len() != 2 {
		t.Fatalf("reopened cache: %d entries, discarded %q", c.Len(), c.Discarded())
	}
	e, ok := c.Lookup("/work/lib/context/a/x.md", Sum([]byte("x")))
	if !ok {
		t.Fatal("entry of an unchanged file not found")
	}
	if e.Tokens != 12 || !reflect.DeepEqual(e.Sections, []int{4, 8}) || e.View != 7 || e.Size != 1 || e.ModTime != -5 || e.Alias != "eng/x" ||
		!reflect.DeepEqual(e.Headings, []Heading{{Name: "Usage", Anchor: "use", Level: 2}}) {
		t.Errorf("entry = %+v", e)
	}
	rs, err := DecodeRefs(e.Refs, 0)
	if err != nil || rs.Len() != 1 || rs.At(0).Domain != "a" || rs.At(0).Topic != "y" {
		t.Errorf("refs = %+v, %v", rs.Slice(), err)
	}
	if _, ok := c.Lookup("/work/lib/context/a/x.md", Sum([]byte("y"))); ok {
		t.Error("entry answered to another content")
	}
}

func TestDiscarded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		key    Key
		damage func(data []byte) []byte
	}{
		{"truncated", testKey, func(d []byte) []byte { return d[:len(d)/2] }},
		{"last byte cut", testKey, func(d []byte) []byte { return d[:len(d)-1] }},
		{"bit flipped", testKey, func(d []byte) []byte { d[len(d)/2] ^= 0x10; return d }},
		{"garbage", testKey, func(d []byte) []byte { return []byte("this is not a cache at all, just some text\n") }},
		{"empty", testKey, func(d []byte) []byte { return nil }},
		{"other version", Key{Root: testKey.Root, Version: "v2", Settings: testKey.Settings}, nil},
		{"other root", Key{Root: "/elsewhere", Version: testKey.Version, Settings: testKey.Settings}, nil},
		{"other settings", Key{Root: testKey.Root, Version: testKey.Version, Settings: "cl100k_base"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := saved(t)
			c0, _ := Open(dir, testKey)
			if tt.damage != nil {
				data, err := os.ReadFile(c0.Path())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(c0.Path(), tt.damage(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.key.Root != testKey.Root {
				// Another root has a file of its own; make it this one's.
				c1, _ := Open(dir, tt.key)
				data, _ := os.ReadFile(c0.Path())
				if err := os.WriteFile(c1.Path(), data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, err := Open(dir, tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if c.Discarded() == "" || c.Len() != 0 {
				t.Fatalf("cache kept %d entries (discarded %q)", c.Len(), c.Discarded())
			}
			if _, ok := c.Lookup("/work/lib/context/a/x.md", Sum([]byte("x"))); ok {
				t.Error("a discarded cache answered a lookup")
			}
			// The next save replaces the bad file with a good one.
			c.Store("/work/lib/z.md", Entry{Hash: Sum(nil)})
			if err := c.Save(); err != nil {
				t.Fatal(err)
			}
			c2, _ := Open(dir, tt.key)
			if c2.Discarded() != "" || c2.Len() != 1 {
				t.Errorf("after save: %d entries, discarded %q", c2.Len(), c2.Discarded())
			}
		})
	}
}

// A file rewritten with the same size and modification time is not
// answered from the cache: entries answer to the content's hash.
func TestSameSizeAndTime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "x.md")
	if err := os.WriteFile(p, []byte("# one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	content, _ := os.ReadFile(p)
	c, _ := Open(filepath.Join(dir, "cache"), testKey)
	c.Store(p, Entry{Hash: Sum(content), Tokens: 2})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("# two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	content, _ = os.ReadFile(p)
	c, _ = Open(filepath.Join(dir, "cache"), testKey)
	if _, ok := c.Lookup(p, Sum(content)); ok {
		t.Error("changed file with the same size and time answered from the cache")
	}
}

func TestSaveSkipsUnchanged(t *testing.T) {
	t.Parallel()
	dir := saved(t)
	c, _ := Open(dir, testKey)
	info, err := os.Stat(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/work/lib/context/a/x.md", "/work/lib/commands/c.md"} {
		e, ok := c.Lookup(p, c.old[p].Hash)
		if !ok {
			t.Fatalf("%s missing", p)
		}
		c.Store(p, e)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(c.Path(), old, old); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(c.Path())
	if !after.ModTime().Equal(old) || after.Size() != info.Size() {
		t.Error("an unchanged cache was written again")
	}
	// A deleted file's entry goes at the next save.
	c, _ = Open(dir, testKey)
	c.Store("/work/lib/commands/c.md", c.old["/work/lib/commands/c.md"])
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c, _ = Open(dir, testKey)
	if c.Len() != 1 {
		t.Errorf("after a file went: %d entries, want 1", c.Len())
	}
}

// Every field of a reference survives the encoding: a field added to
// refs.Ref and not to AppendRefs fails here.
func TestRefsRoundTrip(t *testing.T) {
	t.Parallel()
	var in []refs.Ref
	for k := range 3 {
		var r refs.Ref
		v := reflect.ValueOf(&r).Elem()
		for i := range v.NumField() {
			f := v.Field(i)
			n := k*100 + i + 1
			switch f.Kind() {
			case reflect.String:
				f.SetString("s" + string(rune('a'+i)) + string(rune('a'+k)))
			case reflect.Int:
				f.SetInt(int64((n % 5)))
			case reflect.Struct:
				f.Field(0).SetInt(int64(n))
				f.Field(1).SetInt(int64(n + 3))
			default:
				t.Fatalf("field %s of kind %s: teach AppendRefs and this test about it", v.Type().Field(i).Name, f.Kind())
			}
		}
		in = append(in, r)
	}
	out, err := DecodeRefs(AppendRefs(nil, refs.NewList(in)), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out.Slice()) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out.Slice(), in)
	}
	if _, err := DecodeRefs(AppendRefs(nil, refs.NewList(in)), 10); err == nil {
		t.Error("spans beyond the text were accepted")
	}
}

func TestDecodeRefsMalformed(t *testing.T) {
	t.Parallel()
	good := AppendRefs(nil, refs.NewList([]refs.Ref{{Domain: "python", Topic: "x", Span: document.Span{Start: 1, End: 9}}}))
	for _, data := range [][]byte{good[:len(good)-1], append(append([]byte{}, good...), 0), {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, {200}} {
		if rs, err := DecodeRefs(data, 100); err == nil {
			t.Errorf("DecodeRefs(%x) = %+v, want an error", data, rs.Slice())
		}
	}
}

// Results are kept beside the entries and answer only to their
// fingerprint; saving entries keeps them, and saving a result keeps the
// entries.
func TestResults(t *testing.T) {
	t.Parallel()
	dir := saved(t)
	fp := Sum([]byte("the whole workspace"))
	c, _ := Open(dir, testKey)
	c.StoreResult("check", fp, []byte("report"))
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c, _ = Open(dir, testKey)
	if c.Len() != 2 {
		t.Errorf("saving a result kept %d entries, want 2", c.Len())
	}
	if data, ok := c.Result("check", fp); !ok || string(data) != "report" {
		t.Errorf("Result = %q, %v", data, ok)
	}
	if _, ok := c.Result("check", Sum([]byte("another workspace"))); ok {
		t.Error("a result answered to another fingerprint")
	}
	for p, e := range c.old {
		c.Store(p, e)
	}
	c.Store("/work/lib/new.md", Entry{Hash: Sum(nil)})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c, _ = Open(dir, testKey)
	if _, ok := c.Result("check", fp); !ok || c.Len() != 3 {
		t.Errorf("after saving entries: result kept %v, %d entries", ok, c.Len())
	}
}

// A cache read before its key is complete opens as Open opens it.
func TestReadThenOpen(t *testing.T) {
	t.Parallel()
	dir := saved(t)
	tests := []struct {
		name    string
		dir     string
		key     Key
		entries int
		discard bool
	}{
		{"same key", dir, testKey, 2, false},
		{"other version", dir, Key{Root: testKey.Root, Version: "v2", Settings: testKey.Settings}, 0, true},
		{"other settings", dir, Key{Root: testKey.Root, Version: testKey.Version, Settings: "cl100k_base"}, 0, true},
		{"no file", t.TempDir(), testKey, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Read(tt.dir, tt.key.Root).Open(tt.key)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Open(tt.dir, tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if c.Len() != tt.entries || (c.Discarded() != "") != tt.discard || c.Discarded() != want.Discarded() || c.Path() != want.Path() {
				t.Errorf("Read then Open: %d entries, discarded %q at %s; Open: %d, %q at %s; want %d entries",
					c.Len(), c.Discarded(), c.Path(), want.Len(), want.Discarded(), want.Path(), tt.entries)
			}
		})
	}
	if _, err := Read("", testKey.Root).Open(testKey); err == nil {
		t.Error("Read without a directory opened a cache")
	}
}
