package pairs

import (
	"fmt"
	"os"
	"slices"

	"github.com/neardup/neardup/internal/spill"
	"github.com/neardup/neardup/internal/wire"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// half is one end of a candidate pair or a large bucket's member (elem.Half), whose
// hashes are in memory (Hashes) or still in a spill file (at). A partition's spilled
// halves are decoded while their sets fit in the partition's share of memory
// (sets.limit), and indexed past it: a family of near-copies puts every member of a
// bucket in the bucket's partition, and its sets are then read from the page cache two
// at a time (sets.load) instead of held together.
type half struct {
	elem.Half
	at      setAt
	spilled bool // came from a spill file, so never one chunk of several (joinChunks)
}

// setAt is where a spilled half's hashes lie: n little-endian words at byte off of
// sets.files[file-1]; file 0 means they are in memory.
type setAt struct {
	file int32
	n    int32
	off  int64
}

// sets are the spill files one partition's halves lie in, open while it is decided.
type sets struct {
	limit int64 // bytes of spilled sets gather decodes into memory; the rest are indexed
	index map[string]int32
	files []*os.File
	buf   []byte
}

// gather returns the halves of a partition: those in the batch and the spilled ones,
// decoded up to s.limit bytes of sets and indexed where they lie past it.
func (s *sets) gather(batch elem.HalfBatch) ([]half, error) {
	halves := make([]half, 0, len(batch.Items))
	for _, h := range batch.Items {
		halves = append(halves, half{Half: h})
	}
	room := s.limit
	for _, ref := range batch.Spilled {
		file, err := s.open(spill.File(ref))
		if err != nil {
			return nil, err
		}
		err = spill.Scan(ref, func(rec []byte, off int64) error {
			return elem.SkimHalves(rec, func(h elem.Half, at, n int) {
				x := half{Half: h, spilled: true}
				if room -= 8 * int64(n); room >= 0 {
					x.Hashes = wire.Words(nil, rec[at:at+8*n])
				} else {
					x.at = setAt{file: file, n: int32(n), off: off + int64(at)}
				}
				halves = append(halves, x)
			})
		})
		if err != nil {
			return nil, fmt.Errorf("read spilled batch %s: %w", spill.File(ref), err)
		}
	}
	return halves, nil
}

// joinChunks joins the halves whose sets came through the runner in chunks
// (elem.Half.Chunks) into one each; halves are sorted by pair and node, so a set's
// chunks are next to each other. Spilled halves are never chunked.
func joinChunks(halves []half) ([]half, error) {
	out := halves[:0]
	for i := 0; i < len(halves); {
		h, j := halves[i], i+1
		for j < len(halves) && !h.spilled && !halves[j].spilled && elem.SameEnd(h.Half, halves[j].Half) {
			j++
		}
		if j > i+1 {
			chunks := make([][]uint64, 0, j-i)
			for _, c := range halves[i:j] {
				chunks = append(chunks, c.Hashes)
			}
			var ok bool
			if h.Hashes, ok = elem.JoinChunks(chunks); !ok {
				return nil, fmt.Errorf("the shingle set of %q (pair %q/%q) arrived in overlapping chunks (internal error)", h.Node, h.U, h.V)
			}
		}
		out = append(out, h)
		i = j
	}
	return out, nil
}

// open returns the number of a spill file, opening it on first use.
func (s *sets) open(path string) (int32, error) {
	if n, ok := s.index[path]; ok {
		return n, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("spill: %w", err)
	}
	if s.index == nil {
		s.index = map[string]int32{}
	}
	s.files = append(s.files, f)
	s.index[path] = int32(len(s.files))
	return int32(len(s.files)), nil
}

// load returns h's hashes: Hashes, or those read from its spill file into dst's memory
// (h.inFile), which the caller may pass again as dst once done with them.
func (s *sets) load(h *half, dst []uint64) ([]uint64, error) {
	if !h.inFile() {
		return h.Hashes, nil
	}
	f := s.files[h.at.file-1]
	n := int(h.at.n)
	s.buf = slices.Grow(s.buf[:0], 8*n)[:8*n]
	if _, err := f.ReadAt(s.buf, h.at.off); err != nil {
		return nil, fmt.Errorf("read the shingle set of %q back from %s: %w", h.Node, f.Name(), err)
	}
	return wire.Words(dst, s.buf), nil
}

func (s *sets) close() {
	for _, f := range s.files {
		f.Close()
	}
	s.files, s.index = nil, nil
}

// inFile tells whether h's hashes are still in a spill file, read by each sets.load.
func (h *half) inFile() bool { return h.at.file != 0 }

// size returns the number of h's hashes, without reading them.
func (h *half) size() int {
	if h.inFile() {
		return int(h.at.n)
	}
	return len(h.Hashes)
}
