package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"sync/atomic"
)

// ErrChanged reports that the text of a released document no longer is the
// text it was parsed from: its offsets would point at the wrong bytes.
var ErrChanged = errors.New("changed since it was indexed")

// Source reads the text of released documents back.
type Source interface {
	// ReadText reads the file at path, at most limit bytes (a larger
	// file changed).
	ReadText(ctx context.Context, path string, limit int64) ([]byte, error)
	// Changed learns that the file at path no longer holds the text its
	// document was parsed from, so that its owner indexes it again.
	Changed(path string)
}

// keeper is a Source that also keeps recently read texts, which saves
// reading a file again for each of many uses in a row (the ranges of a
// file's references). It keeps only texts Content checked, so what it
// gives back is the text the document was parsed from.
type keeper interface {
	Source
	// Kept returns the text kept for d, or nil.
	Kept(d *Doc) []byte
	// Keep keeps text as the text of d.
	Keep(d *Doc, text []byte)
}

// released is what a document keeps of its text once it dropped it: where
// to read it and what it must read there.
type released struct {
	src  Source
	size int
	hash uint64
	// told is set once src learned that the text changed: a document
	// reports it once, so that its uses while the change is handled do
	// not flood the owner.
	told atomic.Bool
}

// changed tells the source, once, that the document's file changed.
func (d *Doc) changed() {
	if !d.rel.told.Swap(true) {
		d.rel.src.Changed(d.Path)
	}
}

// seed is fixed for the process: a fingerprint is compared only with
// another taken by the same process.
var seed = maphash.MakeSeed()

// Release drops the document's text, keeping its length and a hash, so
// that a library of many files need not hold them all: Content, Slice and
// the conversions of Lines read it back from src, and refuse a text that
// is no longer the one parsed. Call it only while no other goroutine can
// see the document.
func (d *Doc) Release(src Source) {
	if d.rel != nil || src == nil {
		return
	}
	d.rel = &released{src: src, size: len(d.Text), hash: maphash.Bytes(seed, d.Text)}
	if fm := d.Frontmatter; fm != nil {
		fm.raw, fm.doc = nil, d
	}
	d.Text = nil
	d.Lines.text = nil
	d.Lines.doc = d
}

// Released reports whether the document dropped its text.
func (d *Doc) Released() bool { return d.rel != nil }

// Len returns the length of the text, held or not.
func (d *Doc) Len() int {
	if d.rel != nil {
		return d.rel.size
	}
	return len(d.Text)
}

// Content returns the document's text. A released document reads it back
// and checks that it is the text it was parsed from: a changed file fails
// with an error wrapping ErrChanged, a vanished or unreadable one with the
// read's error; the source learns of a changed or vanished file. The text
// may be shared: callers must not modify it.
func (d *Doc) Content(ctx context.Context) ([]byte, error) {
	r := d.rel
	if r == nil {
		return d.Text, nil
	}
	k, keeps := r.src.(keeper)
	if keeps {
		if text := k.Kept(d); text != nil {
			return text, nil
		}
	}
	data, err := r.src.ReadText(ctx, d.Path, int64(r.size+len(bom)))
	if err != nil {
		if errors.Is(err, ErrChanged) || errors.Is(err, fs.ErrNotExist) {
			d.changed()
		}
		return nil, fmt.Errorf("read %s again: %w", d.Path, err)
	}
	hasBOM := bytes.HasPrefix(data, bom)
	if hasBOM {
		data = data[len(bom):]
	}
	if hasBOM != d.HasBOM || len(data) != r.size || maphash.Bytes(seed, data) != r.hash {
		d.changed()
		return nil, fmt.Errorf("%s: %w", d.Path, ErrChanged)
	}
	if keeps {
		k.Keep(d, data)
	}
	return data, nil
}

// SameText reports whether text (without a byte order mark) is the text
// the document was parsed from, held or not.
func (d *Doc) SameText(text []byte) bool {
	if d.rel == nil {
		return bytes.Equal(d.Text, text)
	}
	return len(text) == d.rel.size && maphash.Bytes(seed, text) == d.rel.hash
}

// SameString is SameText for a string, without copying it.
func (d *Doc) SameString(text string) bool {
	if d.rel == nil {
		return string(d.Text) == text
	}
	return len(text) == d.rel.size && maphash.String(seed, text) == d.rel.hash
}

// Fingerprint returns a hash of the text the document was parsed from,
// comparable with the fingerprints of other documents of the process.
func (d *Doc) Fingerprint() uint64 {
	if d.rel != nil {
		return d.rel.hash
	}
	return maphash.Bytes(seed, d.Text)
}

// Held returns the document with its text: d itself unless released,
// otherwise a copy that holds the text read back (see Content), for a
// use that reads much of it. The copy shares everything else with d.
func (d *Doc) Held(ctx context.Context) (*Doc, error) {
	if d.rel == nil {
		return d, nil
	}
	text, err := d.Content(ctx)
	if err != nil {
		return nil, err
	}
	h := *d
	h.Text, h.rel = text, nil
	if fm := d.Frontmatter; fm != nil {
		c := *fm
		c.raw, c.doc = text[fm.Content.Start:fm.Content.End], nil
		h.Frontmatter = &c
	}
	lines := *d.Lines
	lines.text, lines.doc = text, nil
	h.Lines = &lines
	return &h, nil
}
