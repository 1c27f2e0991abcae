package segment

import (
	"fmt"
	"os"
	"slices"
)

// Batch reads: a batch's band keys, sorted, are joined against a band's sorted blocks
// in file order (Join), and the records of its candidates are read in ordinal order
// (ReadDocs), by windows that take neighbouring blocks or records together. Against a
// segment that is not resident this reads each wanted page once, in order, where a
// lookup per key touches a page per key in no order. Through the mapping, each window's
// pages are dropped from the process's resident set once done with, so that stays
// small whatever the segment's size.

// Variables for tests only.
var (
	// joinGap: wanted byte ranges less than joinGap apart are read as one window (one
	// read, which copies the bytes between them too, or one advice to the kernel about
	// the mapping): that costs less than another.
	joinGap uint64 = 16 << 10
	// joinRead bounds one read that takes several ranges.
	joinRead uint64 = 1 << 20
)

// BatchScratch is the reusable memory of one goroutine's Join and ReadDocs calls.
type BatchScratch struct {
	buf    []byte
	blocks []uint64
	spans  []uint64 // record starts and ends
	set    []uint64
}

// readRanges reads the byte ranges [off, end) that span returns for 0..n-1, whose starts
// are ascending, in order: ranges less than joinGap apart as one window of at most
// joinRead bytes (a longer range alone). fn receives each range's index and bytes,
// valid until it returns.
func (r *Reader) readRanges(n int, span func(i int) (off, end uint64, err error), sc *BatchScratch, fn func(i int, b []byte) error) error {
	for i := 0; i < n; {
		off, end, err := span(i)
		if err != nil {
			return err
		}
		j := i + 1
		for ; j < n; j++ {
			o, e, err := span(j)
			if err != nil {
				return err
			}
			if o > end+joinGap || max(end, e)-off > joinRead {
				break
			}
			end = max(end, e)
		}
		b, err := r.window(off, end, sc)
		if err != nil {
			return err
		}
		for k := i; k < j; k++ {
			o, e, _ := span(k)
			if err := fn(k, b[o-off:e-off:e-off]); err != nil {
				return err
			}
		}
		if r.mapped != nil {
			dropPages(r.pages(off, end))
		}
		i = j
	}
	return nil
}

// window returns the bytes [off, end) of the file: a slice of the mapping, whose pages
// the caller drops when done with them, or read into sc.buf.
func (r *Reader) window(off, end uint64, sc *BatchScratch) ([]byte, error) {
	if end > uint64(r.size) {
		return nil, r.damaged("%d bytes at offset %d lie past its end (%d bytes)", end-off, off, r.size)
	}
	if r.mapped != nil {
		willNeed(r.pages(off, end))
		return r.mapped[off:end:end], nil
	}
	sc.buf = slices.Grow(sc.buf[:0], int(end-off))[:end-off]
	return sc.buf, r.readAt(sc.buf, off)
}

// pages is the part of the mapping that holds [off, end), from a page boundary.
func (r *Reader) pages(off, end uint64) []byte {
	return r.mapped[off&^uint64(os.Getpagesize()-1) : end]
}

// Join looks up n keys in band at once: key(i) must be ascending (repeats allowed). fn
// receives i and the ordinal of every document whose key in band is key(i), as Lookup
// would, the ordinals of one key ascending. Each block that can hold one of the keys is
// read and checked once, in file order.
func (r *Reader) Join(band, n int, key func(i int) uint64, sc *BatchScratch, fn func(i int, ord uint32)) error {
	if band < 0 || band >= int(r.f.Bands) {
		return fmt.Errorf("segment file %s: band %d of %d", r.path, band, r.f.Bands)
	}
	fence := r.fences[band]
	// The blocks that can hold a key run from the last whose first key is below it (or
	// the first block) through the last whose first key is at most it.
	sc.blocks = sc.blocks[:0]
	lo := 0
	for i := range n {
		k := key(i)
		if i > 0 && k == key(i-1) {
			continue
		}
		a, _ := slices.BinarySearch(fence[lo:], k)
		lo = max(lo+a-1, 0)
		for b := lo; b < len(fence) && fence[b] <= k; b++ {
			if m := len(sc.blocks); m == 0 || sc.blocks[m-1] < uint64(b) {
				sc.blocks = append(sc.blocks, uint64(b))
			}
		}
	}
	// A key lies in block b only if fence[b] <= key <= fence[b+1]; keys below are done
	// with, since the blocks come in order.
	next := 0
	blocks := sc.blocks
	return r.readRanges(len(blocks), func(j int) (uint64, uint64, error) { return r.blockSpan(band, blocks[j]) }, sc, func(j int, b []byte) error {
		k := blocks[j]
		v, err := r.viewBlock(band, k, b, true)
		if err != nil {
			return err
		}
		for next < n && key(next) < fence[k] {
			next++
		}
		for i := next; i < n && (k+1 == uint64(len(fence)) || key(i) <= fence[k+1]); {
			kv := key(i)
			same := i + 1
			for same < n && key(same) == kv {
				same++
			}
			lo, hi := v.run(kv)
			for e := lo; e < hi; e++ {
				ord, err := r.entryOrd(v, band, k, e)
				if err != nil {
					return err
				}
				for q := i; q < same; q++ {
					fn(q, ord)
				}
			}
			i = same
		}
		return nil
	})
}

// ReadDocs reads the documents of ords (ascending, distinct), as Doc would, in that order:
// fn receives each one's index in ords, its id and its set (valid until fn returns).
func (r *Reader) ReadDocs(ords []uint32, sc *BatchScratch, fn func(i int, id string, set []uint64) error) error {
	for i, ord := range ords {
		if uint64(ord) >= r.f.Docs || i > 0 && ord <= ords[i-1] {
			return fmt.Errorf("segment file %s: ordinals not ascending and below %d documents", r.path, r.f.Docs)
		}
	}
	sc.spans = slices.Grow(sc.spans[:0], 2*len(ords))[:2*len(ords)]
	err := r.readRanges(len(ords), func(i int) (uint64, uint64, error) {
		off := r.f.Offsets + 8*uint64(ords[i])
		return off, off + 16, nil
	}, sc, func(i int, b []byte) error {
		start, end, err := r.recordSpan(ords[i], b)
		sc.spans[2*i], sc.spans[2*i+1] = start, end
		return err
	})
	if err != nil {
		return err
	}
	return r.readRanges(len(ords), func(i int) (uint64, uint64, error) { return sc.spans[2*i], sc.spans[2*i+1], nil }, sc, func(i int, b []byte) error {
		if err := r.checkRecord(ords[i], b); err != nil {
			return err
		}
		id, set, err := r.decodeDoc(ords[i], b, sc.set)
		sc.set = set
		if err != nil {
			return err
		}
		return fn(i, id, set)
	})
}
