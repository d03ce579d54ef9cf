package watcher

import (
	"cmp"
	"slices"
)

// builder accumulates what the flushes of one batch learn about each path
// and turns it into a de-duplicated batch. A path's state before the batch is
// taken at its first touch; its state after at its last one, so a file
// created and removed within one batch does not appear at all, and one
// removed and created again comes out as modified.
//
// A nil builder records nothing (the initial scan).
type builder struct {
	deltas map[changeKey]*delta
	found  int // entries created that no event named: read from a directory
}

type changeKey struct {
	path string
	dir  bool
}

type delta struct {
	before, after bool
	changed       bool
}

func newBuilder() *builder {
	return &builder{deltas: make(map[changeKey]*delta)}
}

func (b *builder) touch(k changeKey, known bool) *delta {
	d := b.deltas[k]
	if d == nil {
		d = &delta{before: known}
		b.deltas[k] = d
	}
	return d
}

// fileSeen records that the file exists. known says whether the watcher knew
// it before this call; changed whether its content may differ from then.
func (b *builder) fileSeen(path string, known, changed bool) {
	if b == nil {
		return
	}
	d := b.touch(changeKey{path, false}, known)
	d.after = true
	d.changed = d.changed || changed || !known
}

// fileGone records that the file no longer exists.
func (b *builder) fileGone(path string, known bool) {
	if b == nil {
		return
	}
	b.touch(changeKey{path, false}, known).after = false
}

// discovered counts an entry found created while reading a directory,
// rather than named by an event: the disk is busier than the events say.
func (b *builder) discovered() {
	if b != nil {
		b.found++
	}
}

func (b *builder) dirSeen(path string, known bool) {
	if b == nil {
		return
	}
	b.touch(changeKey{path, true}, known).after = true
}

func (b *builder) dirGone(path string, known bool) {
	if b == nil {
		return
	}
	b.touch(changeKey{path, true}, known).after = false
}

func (b *builder) batch(rescan bool) Batch {
	out := Batch{Rescan: rescan}
	for k, d := range b.deltas {
		var kind ChangeKind
		switch {
		case !d.before && d.after:
			kind = Created
		case d.before && !d.after:
			kind = Removed
		case d.before && d.after && d.changed && !k.dir:
			kind = Modified
		default:
			continue
		}
		out.Changes = append(out.Changes, Change{Path: k.path, Kind: kind, IsDir: k.dir})
	}
	slices.SortFunc(out.Changes, func(a, b Change) int {
		if c := cmp.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		// Same path, type changed: the removal of the old one first.
		return cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind))
	})
	return out
}

func kindOrder(k ChangeKind) int {
	if k == Removed {
		return 0
	}
	return 1
}
