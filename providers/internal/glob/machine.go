package glob

import "math/bits"

// machine runs a compiled pattern: a deterministic automaton over classes
// of bytes, built once from the pattern's nondeterministic one, or that
// one itself, run a set of states at a time, when the deterministic one
// would grow past maxDFAStates. Either way a path costs one step per byte.
type machine struct {
	// The nondeterministic automaton.
	states  []nstate
	closure [][]uint64 // closure[s]: the states s reaches without a byte
	accept  int        // the accepting state

	// The deterministic one, nil when too large.
	classOf [256]uint8 // a byte's class: bytes no state tells apart share one
	classes int
	next    []int32 // next[d*classes+c]: the state after class c from d; 0 is dead
	final   []bool
}

// maxDFAStates bounds the deterministic automaton of one pattern; past it
// the nondeterministic one runs instead, still in linear time.
const maxDFAStates = 512

// nstate is a state of the nondeterministic automaton: it consumes a byte
// of set and goes to to, or, when eps, consumes nothing.
type nstate struct {
	eps  bool
	set  byteSet
	to   int
	outs []int // the states reached without a byte
}

type builder struct{ states []nstate }

func (b *builder) add(s nstate) int {
	b.states = append(b.states, s)
	return len(b.states) - 1
}

// epsTo adds a move without a byte from a to c.
func (b *builder) epsTo(a, c int) { b.states[a].outs = append(b.states[a].outs, c) }

// consume adds a state that takes a byte of set from `from`, and returns
// the state it leads to.
func (b *builder) consume(from int, set byteSet, to int) {
	c := b.add(nstate{set: set, to: to})
	b.epsTo(from, c)
}

// seq adds the states of nodes after from and returns the state reached
// at their end.
func (b *builder) seq(nodes []node, from int) int {
	cur := from
	for _, n := range nodes {
		switch n.kind {
		case nByte:
			end := b.add(nstate{eps: true})
			b.consume(cur, n.set, end)
			cur = end
		case nStar, nRest:
			set := allBut('/')
			if n.kind == nRest {
				set = byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
			}
			loop := b.add(nstate{eps: true})
			b.epsTo(cur, loop)
			b.consume(loop, set, loop)
			cur = loop
		case nDirs:
			// Nothing, or any bytes then a slash.
			end := b.add(nstate{eps: true})
			b.epsTo(cur, end)
			loop := b.add(nstate{eps: true})
			b.epsTo(cur, loop)
			b.consume(loop, byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, loop)
			var slash byteSet
			slash.add('/')
			b.consume(loop, slash, end)
			cur = end
		case nAlt:
			end := b.add(nstate{eps: true})
			for _, alt := range n.alts {
				start := b.add(nstate{eps: true})
				b.epsTo(cur, start)
				b.epsTo(b.seq(alt, start), end)
			}
			cur = end
		}
	}
	return cur
}

func compile(seq []node) *machine {
	b := &builder{}
	start := b.add(nstate{eps: true})
	accept := b.seq(seq, start)
	m := &machine{states: b.states, accept: accept}
	n := len(m.states)
	words := (n + 63) / 64
	m.closure = make([][]uint64, n)
	for s := range m.states {
		set := make([]uint64, words)
		stack := []int{s}
		set[s/64] |= 1 << (s % 64)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range m.states[x].outs {
				if set[y/64]&(1<<(y%64)) == 0 {
					set[y/64] |= 1 << (y % 64)
					stack = append(stack, y)
				}
			}
		}
		m.closure[s] = set
	}
	m.determinize()
	return m
}

// step returns the states reached from the set cur by byte c.
func (m *machine) step(cur []uint64, c byte, next []uint64) {
	clear(next)
	for w, word := range cur {
		for word != 0 {
			s := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			st := &m.states[s]
			if st.eps || !st.set.has(c) {
				continue
			}
			for i, x := range m.closure[st.to] {
				next[i] |= x
			}
		}
	}
}

func (m *machine) accepts(set []uint64) bool {
	return set[m.accept/64]&(1<<(m.accept%64)) != 0
}

// determinize builds the deterministic automaton, leaving next nil when
// it would have more than maxDFAStates states.
func (m *machine) determinize() {
	// Classes: bytes taken by the same consuming states.
	sig := map[string]uint8{}
	classBytes := []byte{}
	for c := 0; c < 256; c++ {
		key := make([]byte, 0, len(m.states)/8+1)
		var acc byte
		for i, st := range m.states {
			if !st.eps && st.set.has(byte(c)) {
				acc |= 1 << (i % 8)
			}
			if i%8 == 7 {
				key = append(key, acc)
				acc = 0
			}
		}
		key = append(key, acc)
		id, ok := sig[string(key)]
		if !ok {
			id = uint8(len(sig))
			sig[string(key)] = id
			classBytes = append(classBytes, byte(c))
		}
		m.classOf[c] = id
	}
	m.classes = len(classBytes)
	key := func(set []uint64) string {
		b := make([]byte, 0, len(set)*8)
		for _, w := range set {
			for i := 0; i < 8; i++ {
				b = append(b, byte(w>>(8*i)))
			}
		}
		return string(b)
	}
	words := len(m.closure[0])
	ids := map[string]int32{}
	var sets [][]uint64
	intern := func(set []uint64) (int32, bool) {
		k := key(set)
		if id, ok := ids[k]; ok {
			return id, true
		}
		if len(sets) >= maxDFAStates {
			return 0, false
		}
		id := int32(len(sets))
		ids[k] = id
		sets = append(sets, set)
		return id, true
	}
	intern(make([]uint64, words)) // 0: dead
	intern(m.closure[0])          // 1: start
	next := []int32{}
	final := []bool{}
	for d := 0; d < len(sets); d++ {
		final = append(final, m.accepts(sets[d]))
		for c := 0; c < m.classes; c++ {
			to := make([]uint64, words)
			m.step(sets[d], classBytes[c], to)
			id, ok := intern(to)
			if !ok {
				return
			}
			next = append(next, id)
		}
	}
	m.next, m.final = next, final
}

// match runs the automaton over p.
func (m *machine) match(p string) bool {
	if m.next != nil {
		d := int32(1)
		for i := 0; i < len(p); i++ {
			d = m.next[int(d)*m.classes+int(m.classOf[p[i]])]
			if d == 0 {
				return false
			}
		}
		return m.final[d]
	}
	words := len(m.closure[0])
	cur := make([]uint64, words)
	nxt := make([]uint64, words)
	copy(cur, m.closure[0])
	for i := 0; i < len(p); i++ {
		m.step(cur, p[i], nxt)
		cur, nxt = nxt, cur
		empty := true
		for _, w := range cur {
			if w != 0 {
				empty = false
				break
			}
		}
		if empty {
			return false
		}
	}
	return m.accepts(cur)
}
