// Package slab hands out slices of values from shared arrays, so that
// values allocated among the garbage of a parse do not pin its pages.
package slab

import "sync"

// Slab hands out slices of values from shared arrays of Size values.
// A full index builds tens of thousands of topics and sections in
// parallel, each among the garbage of its file's parse: allocated one by
// one, they would keep the pages of that garbage from being returned
// once it is collected. An array stays as long as any value in it is
// used; values replaced later leave their slots unused, at most the size
// of the library as first indexed.
type Slab[T any] struct {
	mu   sync.Mutex
	free []T
}

// Size is the number of values of one array.
const Size = 512

// Take returns a slice of n zero values with no room to grow. A nil
// slab allocates them alone, as for the few files an edit parses again.
func (s *Slab[T]) Take(n int) []T {
	if s == nil || n > Size/8 {
		return make([]T, n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > len(s.free) {
		s.free = make([]T, Size)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}
