package library

import "github.com/ctxls/ctxls/providers/library/internal/slab"

// slabs are the arrays of a full index.
type slabs struct {
	files    slab.Slab[File]
	topics   slab.Slab[Topic]
	sections slab.Slab[Section]
	metas    slab.Slab[SectionMeta]
}

func (s *slabs) fileSlab() *slab.Slab[File] {
	if s == nil {
		return nil
	}
	return &s.files
}

func (s *slabs) topicSlab() *slab.Slab[Topic] {
	if s == nil {
		return nil
	}
	return &s.topics
}

func (s *slabs) sectionSlab() *slab.Slab[Section] {
	if s == nil {
		return nil
	}
	return &s.sections
}
