package target

// tokenSet is a bit set over the indices of uaTokens.
type tokenSet [2]uint64

func (s *tokenSet) add(i int)                 { s[i>>6] |= 1 << (i & 63) }
func (s *tokenSet) remove(i int)              { s[i>>6] &^= 1 << (i & 63) }
func (s tokenSet) has(i int) bool             { return s[i>>6]&(1<<(i&63)) != 0 }
func (s tokenSet) intersects(m tokenSet) bool { return s[0]&m[0]|s[1]&m[1] != 0 }

// maxScan bounds the User-Agent prefix inspected. Real agents name their
// platform and bot token in the first few hundred bytes; the cap keeps the
// cost of a hostile 8 KiB header the same as a normal one.
const maxScan = 1024

// automaton finds every token of a fixed, lower-case ASCII dictionary in one
// pass over the input, ignoring ASCII case (Aho–Corasick with a dense
// transition table). One table lookup per input byte replaces a hundred
// separate substring searches, and nothing is allocated.
type automaton struct {
	class [256]uint8 // input byte -> alphabet class; 0 = a byte no token contains
	k     int        // alphabet size including class 0
	delta []uint16   // state*k + class -> next state
	out   []tokenSet // tokens ending at a state, including shorter suffixes
}

// newAutomaton builds the automaton for tokens. shadows[i] = j means that
// token j found as the tail of token i does not count (the "bot" in the
// phone brand "cubot").
func newAutomaton(tokens []string, shadows map[int]int) *automaton {
	a := &automaton{k: 1}
	for _, t := range tokens {
		for i := 0; i < len(t); i++ {
			c := t[i]
			if c >= 0x80 || ('A' <= c && c <= 'Z') {
				panic("target: UA token " + t + " must be lower-case ASCII")
			}
			if a.class[c] == 0 {
				a.class[c] = uint8(a.k)
				a.class[upper(c)] = uint8(a.k)
				a.k++
			}
		}
	}

	// Trie: next[state][class] = child, or 0 for none (the root is never a child).
	next := [][]uint16{make([]uint16, a.k)}
	out := []tokenSet{{}}
	for ti, t := range tokens {
		s := 0
		for i := 0; i < len(t); i++ {
			c := a.class[t[i]]
			if next[s][c] == 0 {
				next = append(next, make([]uint16, a.k))
				out = append(out, tokenSet{})
				next[s][c] = uint16(len(next) - 1)
			}
			s = int(next[s][c])
		}
		out[s].add(ti)
	}
	if len(next) > 1<<16 {
		panic("target: UA token automaton too large")
	}

	// Breadth-first: complete the transitions through failure links and
	// inherit the outputs of each state's longest proper suffix.
	a.delta = make([]uint16, len(next)*a.k)
	fail := make([]uint16, len(next))
	queue := make([]int, 0, len(next))
	for c := 1; c < a.k; c++ {
		if child := next[0][c]; child != 0 {
			a.delta[c] = child
			queue = append(queue, int(child))
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for c := 1; c < a.k; c++ {
			child := next[s][c]
			fallback := a.delta[int(fail[s])*a.k+c]
			if child == 0 {
				a.delta[s*a.k+c] = fallback
				continue
			}
			a.delta[s*a.k+c] = child
			fail[child] = fallback
			out[child][0] |= out[fallback][0]
			out[child][1] |= out[fallback][1]
			queue = append(queue, int(child))
		}
	}
	for s := range out {
		for shadow, victim := range shadows {
			if out[s].has(shadow) {
				out[s].remove(victim)
			}
		}
	}
	a.out = out
	return a
}

// scan returns the set of tokens that occur in b (its first maxScan bytes).
func (a *automaton) scan(b []byte) tokenSet {
	if len(b) > maxScan {
		b = b[:maxScan]
	}
	var found tokenSet
	s := 0
	for _, c := range b {
		s = int(a.delta[s*a.k+int(a.class[c])])
		o := &a.out[s]
		found[0] |= o[0]
		found[1] |= o[1]
	}
	return found
}
