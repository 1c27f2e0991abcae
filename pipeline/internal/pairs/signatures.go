package pairs

import "github.com/neardup/neardup/minhash"

// signatures holds the MinHash signatures of the sets one decider compares. Up to
// limit bytes, each is computed once, in one block: a large bucket's members are signed
// once and compared several times each. Above it only the two signatures of the pair in
// hand are held, in two slots, and a member is signed again each time it is loaded, so
// that a family of near-copies costs no memory per member here. Values of a 32-bit
// scheme are held in 32 bits.
type signatures struct {
	signer  *minhash.Signer
	perm    int
	narrow  bool
	limit   int64
	slotted bool       // only the pair in hand is held (see reset)
	slot    [2]*scored // when slotted: whose signature each slot holds
	values  []uint64   // wide values, perm per signature
	values4 []uint32   // narrow values, perm per signature
	scratch []uint64
}

// newSignatures holds signatures of scheme from s, a block of up to limit bytes.
func newSignatures(s *minhash.Signer, scheme minhash.Scheme, limit int64) signatures {
	return signatures{signer: s, perm: s.NumPerm(), narrow: scheme.ValueBytes() == 4, limit: limit}
}

// reset forgets every signature and makes room for n, or, when n would take more than
// the limit, for the two of the pair in hand.
func (s *signatures) reset(n int) {
	width := int64(8)
	if s.narrow {
		width = 4
	}
	s.slot = [2]*scored{}
	s.slotted = int64(n)*int64(s.perm)*width > s.limit
	if s.slotted {
		n = 2
	}
	if s.narrow {
		s.values4 = s.values4[:0]
		if cap(s.values4) < n*s.perm || s.slotted && cap(s.values4) > 2*s.perm {
			s.values4 = make([]uint32, 0, n*s.perm)
		}
	} else {
		s.values = s.values[:0]
		if cap(s.values) < n*s.perm || s.slotted && cap(s.values) > 2*s.perm {
			s.values = make([]uint64, 0, n*s.perm)
		}
	}
	if s.slotted {
		s.values4, s.values = s.values4[:cap(s.values4)], s.values[:cap(s.values)]
	}
}

// of returns the number of x's signature, given hashes, x's set, held as the pair's i-th:
// signed once into the block, or, when slotted, into slot i unless it holds x already.
func (s *signatures) of(x *scored, i int, hashes []uint64) int {
	if !s.slotted {
		if x.sig < 0 {
			x.sig = s.add(hashes)
		}
		return x.sig
	}
	if s.slot[i] != x {
		s.sign(i, hashes)
		s.slot[i] = x
	}
	return i
}

// add signs hashes into a new signature of the block and returns its number.
func (s *signatures) add(hashes []uint64) int {
	var n int
	if s.narrow {
		n = len(s.values4) / s.perm
		s.values4 = append(s.values4, make([]uint32, s.perm)...)
	} else {
		n = len(s.values) / s.perm
		s.values = append(s.values, make([]uint64, s.perm)...)
	}
	s.sign(n, hashes)
	return n
}

// sign writes the signature of hashes as number n.
func (s *signatures) sign(n int, hashes []uint64) {
	if !s.narrow {
		s.signer.SignInto(s.values[n*s.perm:(n+1)*s.perm], hashes)
		return
	}
	if len(s.scratch) != s.perm {
		s.scratch = make([]uint64, s.perm)
	}
	s.signer.SignInto(s.scratch, hashes)
	for i, v := range s.scratch {
		s.values4[n*s.perm+i] = uint32(v)
	}
}

// estimate is minhash.Estimate of signatures a and b: the share of equal slots.
func (s *signatures) estimate(a, b int) float64 {
	eq := 0
	if s.narrow {
		x, y := s.values4[a*s.perm:(a+1)*s.perm], s.values4[b*s.perm:(b+1)*s.perm]
		for i, v := range x {
			if v == y[i] {
				eq++
			}
		}
	} else {
		x, y := s.values[a*s.perm:(a+1)*s.perm], s.values[b*s.perm:(b+1)*s.perm]
		for i, v := range x {
			if v == y[i] {
				eq++
			}
		}
	}
	return float64(eq) / float64(s.perm)
}
