package library

import "sync"

// slab hands out slices of values from shared arrays of slabSize values.
// A full index builds tens of thousands of topics and sections in
// parallel, each among the garbage of its file's parse: allocated one by
// one, they would keep the pages of that garbage from being returned
// once it is collected. An array stays as long as any value in it is
// used; values replaced later leave their slots unused, at most the size
// of the library as first indexed.
type slab[T any] struct {
	mu   sync.Mutex
	free []T
}

// slabSize is the number of values of one array.
const slabSize = 512

// take returns a slice of n zero values with no room to grow. A nil
// slab allocates them alone, as for the few files an edit parses again.
func (s *slab[T]) take(n int) []T {
	if s == nil || n > slabSize/8 {
		return make([]T, n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > len(s.free) {
		s.free = make([]T, slabSize)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// slabs are the arrays of a full index.
type slabs struct {
	files    slab[File]
	topics   slab[Topic]
	sections slab[Section]
	metas    slab[SectionMeta]
}

func (s *slabs) fileSlab() *slab[File] {
	if s == nil {
		return nil
	}
	return &s.files
}

func (s *slabs) topicSlab() *slab[Topic] {
	if s == nil {
		return nil
	}
	return &s.topics
}

func (s *slabs) sectionSlab() *slab[Section] {
	if s == nil {
		return nil
	}
	return &s.sections
}
