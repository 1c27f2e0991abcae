package pairs

import "github.com/neardup/neardup/transforms/minhash"

// signatures holds the MinHash signatures of the sets one decider compares, each
// computed once, in one block: a large bucket's members are signed once and compared
// several times each. Values of a 32-bit scheme are held in 32 bits.
type signatures struct {
	signer  *minhash.Signer
	perm    int
	narrow  bool
	values  []uint64 // wide values, perm per signature
	values4 []uint32 // narrow values, perm per signature
	scratch []uint64
}

func newSignatures(s *minhash.Signer, scheme minhash.Scheme) signatures {
	return signatures{signer: s, perm: s.NumPerm(), narrow: scheme.ValueBytes() == 4}
}

// reset forgets every signature and makes room for n.
func (s *signatures) reset(n int) {
	if s.narrow {
		s.values4 = s.values4[:0]
		if cap(s.values4) < n*s.perm {
			s.values4 = make([]uint32, 0, n*s.perm)
		}
	} else {
		s.values = s.values[:0]
		if cap(s.values) < n*s.perm {
			s.values = make([]uint64, 0, n*s.perm)
		}
	}
}

// add signs hashes and returns the signature's number.
func (s *signatures) add(hashes []uint64) int {
	if !s.narrow {
		n := len(s.values) / s.perm
		s.values = append(s.values, make([]uint64, s.perm)...)
		s.signer.SignInto(s.values[n*s.perm:], hashes)
		return n
	}
	if len(s.scratch) != s.perm {
		s.scratch = make([]uint64, s.perm)
	}
	s.signer.SignInto(s.scratch, hashes)
	n := len(s.values4) / s.perm
	for _, v := range s.scratch {
		s.values4 = append(s.values4, uint32(v))
	}
	return n
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
