package library

import (
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/refs"
)

// ParseFile parses text that the library has not indexed (yet), such as
// an editor's unsaved text, and scans its references against the library.
// known, when set, is the library's file at path, whose kind it keeps.
func (l *Snapshot) ParseFile(path string, text []byte, known *File) *File {
	doc := document.Parse(path, text)
	f := &File{Path: path, Doc: doc}
	if known != nil {
		f.Rel, f.Kind, f.Topic, f.Command = known.Rel, known.Kind, known.Topic, known.Command
	}
	opts := l.RefOptions()
	opts.Fields = refFields(f)
	f.Refs = refs.ScanList(doc, opts)
	return f
}

// RefOptions tunes the reference scanner to the library's domains and
// sections.
func (l *Snapshot) RefOptions() refs.Options {
	s := l
	return refs.Options{
		IsDomain: s.isDomain,
		Sections: func(domain, topic string) []string {
			t, ok := s.topic(domain + "/" + topic)
			if !ok {
				return nil
			}
			names := make([]string, len(t.Sections))
			for i, sec := range t.Sections {
				names[i] = sec.Name
			}
			return names
		},
	}
}
