// Package glob matches the path globs agent files use (Copilot applyTo,
// Cursor globs, Claude Code rule paths): `*` and `?` within a path
// segment, `**` across segments, `[...]` classes and `{a,b}` alternatives.
// A pattern without a slash matches a file's base name in any folder, as
// the agents treat "*.ts"; [Options] select how VS Code reads Copilot's
// applyTo instead.
//
// A pattern is compiled once into a deterministic automaton, so matching
// a path takes one step per byte whatever the pattern: no backtracking,
// however many stars it holds. Cheap tests of the literal text a pattern
// starts or ends with reject most paths before the automaton runs, and
// [AnyMatch] tries many globs against a file list visiting each path once.
package glob

import (
	"fmt"
	"strings"
)

// Options say how a pattern is read.
type Options struct {
	// AnyFolder tries a pattern under any folder unless it starts with
	// "/" or "**/", and takes "**", "**/*" and "*" to match every file:
	// how VS Code matches Copilot's applyTo, which prefixes such a
	// pattern with "**/".
	AnyFolder bool
	// IgnoreCase matches ASCII letters whatever their case.
	IgnoreCase bool
}

// Glob is a compiled pattern. It is safe for concurrent use.
type Glob struct {
	pattern string
	opt     Options
	all     bool     // matches every path
	prefix  string   // every match starts with it (folded when IgnoreCase)
	inner   string   // every match holds it
	suffix  []string // every match ends with one of them, when not empty
	m       *machine
}

// String returns the pattern as written.
func (g *Glob) String() string { return g.pattern }

// Compile compiles pattern with the default options, or says what is
// wrong with it.
func Compile(pattern string) (*Glob, error) { return CompileWith(pattern, Options{}) }

// CompileWith compiles pattern read as opt says, or says what is wrong
// with it.
func CompileWith(pattern string, opt Options) (*Glob, error) {
	p := strings.TrimSpace(pattern)
	if p == "" {
		return nil, fmt.Errorf("empty glob")
	}
	g := &Glob{pattern: pattern, opt: opt}
	if opt.AnyFolder {
		switch p {
		case "**", "**/*", "*":
			g.all = true
			return g, nil
		}
	}
	anchored := strings.HasPrefix(p, "/") || strings.HasPrefix(p, "./")
	p = strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/")
	if p == "" {
		return nil, fmt.Errorf("%q: empty glob", pattern)
	}
	ps := &parser{src: p, pattern: pattern, fold: opt.IgnoreCase}
	seq, err := ps.sequence(false)
	if err != nil {
		return nil, err
	}
	if ps.i < len(p) {
		return nil, fmt.Errorf("%q: } without {", pattern)
	}
	anyFolder := !anchored && !strings.HasPrefix(p, "**/")
	if !opt.AnyFolder {
		// A pattern without a slash is a base name, found in any folder.
		anyFolder = anyFolder && !strings.Contains(p, "/")
	}
	if anyFolder {
		seq = append([]node{{kind: nDirs}}, seq...)
	}
	g.prefix = literalPrefix(seq)
	g.inner = longestLiteral(seq)
	g.suffix = literalSuffixes(seq)
	g.m = compile(seq)
	return g, nil
}

// Match reports whether the slash-separated relative path p matches.
func (g *Glob) Match(p string) bool {
	if g.opt.IgnoreCase {
		p = lowerASCII(p)
	}
	return g.match(p)
}

// match is Match of a path already folded when the glob ignores case.
func (g *Glob) match(p string) bool {
	if g.all {
		return true
	}
	if len(g.suffix) > 0 {
		ok := false
		for _, s := range g.suffix {
			if strings.HasSuffix(p, s) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if !strings.HasPrefix(p, g.prefix) || !strings.Contains(p, g.inner) {
		return false
	}
	return g.m.match(p)
}

// AnyMatch reports, for each of globs, whether it matches one of paths.
// It visits each path once, trying on it only the globs not yet matched,
// so a list of many globs costs one pass over the files.
func AnyMatch(globs []*Glob, paths []string) []bool {
	out := make([]bool, len(globs))
	left := make([]int, len(globs))
	fold := false
	for i, g := range globs {
		left[i] = i
		fold = fold || g.opt.IgnoreCase
	}
	for _, p := range paths {
		if len(left) == 0 {
			break
		}
		lp := p
		if fold {
			lp = lowerASCII(p)
		}
		kept := left[:0]
		for _, i := range left {
			g := globs[i]
			q := p
			if g.opt.IgnoreCase {
				q = lp
			}
			if g.match(q) {
				out[i] = true
			} else {
				kept = append(kept, i)
			}
		}
		left = kept
	}
	return out
}

// lowerASCII folds the ASCII capitals of s, allocating only when it has
// some.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = lower(b[j])
			}
			return string(b)
		}
	}
	return s
}

// lower folds an ASCII capital to its small letter.
func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// The parts of a pattern.
type nodeKind uint8

const (
	nByte nodeKind = iota // one byte of set
	nStar                 // any bytes but "/"
	nDirs                 // "**/": nothing, or anything ending in "/"
	nRest                 // a final "**": anything
	nAlt                  // {a,b}: one of alts
)

type node struct {
	kind nodeKind
	set  byteSet // nByte
	alts [][]node
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) single() (byte, bool) {
	var n int
	var at byte
	for b := 0; b < 256; b++ {
		if s.has(byte(b)) {
			n++
			at = byte(b)
		}
	}
	return at, n == 1
}

func allBut(b byte) byteSet {
	s := byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	s[b>>6] &^= 1 << (b & 63)
	return s
}

// parser reads a pattern into nodes.
type parser struct {
	src, pattern string
	i            int
	fold         bool
}

func (ps *parser) byteNode(b byte) node {
	var s byteSet
	if ps.fold {
		b = lower(b)
	}
	s.add(b)
	return node{kind: nByte, set: s}
}

// sequence reads nodes up to the end, or, inside braces, up to the ","
// or "}" that ends the alternative.
func (ps *parser) sequence(inBraces bool) ([]node, error) {
	var seq []node
	p := ps.src
	for ps.i < len(p) {
		c := p[ps.i]
		switch c {
		case ',', '}':
			if inBraces {
				return seq, nil
			}
			if c == '}' {
				return nil, fmt.Errorf("%q: } without {", ps.pattern)
			}
			seq = append(seq, ps.byteNode(c))
			ps.i++
		case '*':
			j := ps.i
			for j < len(p) && p[j] == '*' {
				j++
			}
			segStart := ps.i == 0 || strings.IndexByte("/{,", p[ps.i-1]) >= 0
			switch {
			case j-ps.i >= 2 && segStart && j < len(p) && p[j] == '/':
				seq = append(seq, node{kind: nDirs})
				j++ // the slash belongs to the "**/"
			case j-ps.i >= 2 && segStart && (j == len(p) || inBraces && (p[j] == ',' || p[j] == '}')):
				seq = append(seq, node{kind: nRest})
			default:
				// A "**" inside a segment is a "*", as VS Code, gitignore
				// and picomatch read it: "**.cs" is "*.cs".
				seq = append(seq, node{kind: nStar})
			}
			ps.i = j
		case '?':
			seq = append(seq, node{kind: nByte, set: allBut('/')})
			ps.i++
		case '[':
			n, err := ps.class()
			if err != nil {
				return nil, err
			}
			seq = append(seq, n)
		case '{':
			ps.i++
			var alts [][]node
			for {
				alt, err := ps.sequence(true)
				if err != nil {
					return nil, err
				}
				alts = append(alts, alt)
				if ps.i >= len(p) {
					return nil, fmt.Errorf("%q: { is not closed", ps.pattern)
				}
				ps.i++
				if p[ps.i-1] == '}' {
					break
				}
			}
			seq = append(seq, node{kind: nAlt, alts: alts})
		case '\\':
			if ps.i+1 >= len(p) {
				return nil, fmt.Errorf("%q: trailing backslash", ps.pattern)
			}
			seq = append(seq, ps.byteNode(p[ps.i+1]))
			ps.i += 2
		default:
			seq = append(seq, ps.byteNode(c))
			ps.i++
		}
	}
	if inBraces {
		return nil, fmt.Errorf("%q: { is not closed", ps.pattern)
	}
	return seq, nil
}

// class reads a [...] class: single bytes and ranges, negated by a
// leading ! or ^; it never matches "/".
func (ps *parser) class() (node, error) {
	p := ps.src
	j := ps.i + 1
	negate := j < len(p) && (p[j] == '!' || p[j] == '^')
	if negate {
		j++
	}
	var s byteSet
	first := true
	for ; j < len(p) && (p[j] != ']' || first); j++ {
		first = false
		lo := p[j]
		if lo == '\\' && j+1 < len(p) {
			j++
			lo = p[j]
		}
		hi := lo
		if j+2 < len(p) && p[j+1] == '-' && p[j+2] != ']' {
			hi = p[j+2]
			if hi == '\\' && j+3 < len(p) {
				j++
				hi = p[j+2]
			}
			j += 2
		}
		if hi < lo {
			return node{}, fmt.Errorf("%q: range %c-%c is reversed", ps.pattern, lo, hi)
		}
		for b := int(lo); b <= int(hi); b++ {
			s.add(byte(b))
			if ps.fold {
				s.add(lower(byte(b)))
			}
		}
	}
	if j >= len(p) {
		return node{}, fmt.Errorf("%q: [ is not closed", ps.pattern)
	}
	ps.i = j + 1
	if negate {
		for w := range s {
			s[w] = ^s[w]
		}
	}
	s[0] &^= 1 << '/'
	return node{kind: nByte, set: s}, nil
}

// literalPrefix returns the bytes every match starts with.
func literalPrefix(seq []node) string {
	var b []byte
	for _, n := range seq {
		if n.kind != nByte {
			break
		}
		c, ok := n.set.single()
		if !ok {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// longestLiteral returns the longest run of literal bytes of seq outside
// alternatives: every match holds it.
func longestLiteral(seq []node) string {
	best, run := "", []byte{}
	for i := 0; i <= len(seq); i++ {
		if i < len(seq) && seq[i].kind == nByte {
			if c, ok := seq[i].set.single(); ok {
				run = append(run, c)
				continue
			}
		}
		if len(run) > len(best) {
			best = string(run)
		}
		run = run[:0]
	}
	return best
}

// literalSuffixes returns strings one of which every match ends with, or
// nil when there are none to tell.
func literalSuffixes(seq []node) []string {
	if len(seq) == 0 {
		return nil
	}
	last := seq[len(seq)-1]
	switch last.kind {
	case nByte:
		var b []byte
		for i := len(seq) - 1; i >= 0 && seq[i].kind == nByte; i-- {
			c, ok := seq[i].set.single()
			if !ok {
				break
			}
			b = append([]byte{c}, b...)
		}
		if len(b) == 0 {
			return nil
		}
		return []string{string(b)}
	case nAlt:
		var out []string
		for _, alt := range last.alts {
			s := literalSuffixes(alt)
			if len(s) == 0 {
				return nil
			}
			out = append(out, s...)
		}
		return out
	}
	return nil
}
