package segment

import "container/heap"

// cursor walks one segment's band, a block at a time.
type cursor struct {
	r     *Reader
	band  int
	base  uint32
	block uint64
	v     blockView
	buf   []byte
	i     int
	err   error
}

func (c *cursor) cur() Entry {
	e := c.v.at(c.i)
	e.Ord += c.base
	return e
}

// next moves to the next entry; false at the end or on an error (c.err).
func (c *cursor) next() bool {
	c.i++
	if c.i < c.v.n {
		return true
	}
	if c.block >= uint64(len(c.r.fences[c.band])) {
		return false
	}
	c.v, c.buf, c.err = c.r.block(c.band, c.block, c.buf)
	c.block++
	c.i = 0
	return c.err == nil && c.v.n > 0
}

type cursorHeap []*cursor

func (h cursorHeap) Len() int           { return len(h) }
func (h cursorHeap) Less(i, j int) bool { return compareEntries(h[i].cur(), h[j].cur()) < 0 }
func (h cursorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)        { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeBand writes band of every segment of rs, ordinals shifted by base, in order.
func mergeBand(w *Writer, band int, rs []*Reader, base []uint32) error {
	h := cursorHeap{}
	for i, r := range rs {
		c := &cursor{r: r, band: band, base: base[i], i: -1}
		if c.next() {
			h = append(h, c)
		} else if c.err != nil {
			return c.err
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		c := h[0]
		if err := w.AddEntry(band, c.cur()); err != nil {
			return err
		}
		if c.next() {
			heap.Fix(&h, 0)
			continue
		}
		if c.err != nil {
			return c.err
		}
		heap.Pop(&h)
	}
	return nil
}
