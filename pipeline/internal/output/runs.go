package output

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// A run is a file of SortedLines in key order, each a uvarint-prefixed key and line:
// one partition's share of a file WriteSorted writes. mergeRuns joins runs into the file
// in key order holding one line of each run at a time.

// writeRun writes lines, which must be in key order, as a run at path: encoded in memory
// and written at once, since a partition's lines are in memory already and a step
// writes one run per partition, most of them small.
func writeRun(ctx context.Context, path string, lines []elem.SortedLine) error {
	size := 0
	for _, l := range lines {
		size += 2*binary.MaxVarintLen64 + len(l.Key) + len(l.Line)
	}
	b := make([]byte, 0, size)
	for _, l := range lines {
		b = binary.AppendUvarint(b, uint64(len(l.Key)))
		b = append(b, l.Key...)
		b = binary.AppendUvarint(b, uint64(len(l.Line)))
		b = append(b, l.Line...)
	}
	return files.WriteBytes(ctx, path, b)
}

// runBufferBytes is each run's read buffer in mergeRuns, which reads every run at once.
const runBufferBytes = 16 << 10

// runReader reads a run one line at a time.
type runReader struct {
	path string
	r    *bufio.Reader
	c    io.Closer
	cur  elem.SortedLine
	idx  int // the run's place among the merged runs, which breaks ties between equal keys
}

// maxRunField bounds a key or line read from a run, so a damaged run fails instead of
// asking for an absurd allocation.
const maxRunField = 1 << 30

func (r *runReader) field() (string, error) {
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return "", err
	}
	if n > maxRunField {
		return "", fmt.Errorf("field of %d bytes", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		return "", err
	}
	return string(b), nil
}

// next reads the next line; io.EOF at the run's clean end.
func (r *runReader) next() error {
	k, err := r.field()
	if err != nil {
		return err
	}
	l, err := r.field()
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("read run %s: %w", r.path, err)
	}
	r.cur = elem.SortedLine{Key: k, Line: l}
	return nil
}

type runHeap []*runReader

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if h[i].cur.Key != h[j].cur.Key {
		return h[i].cur.Key < h[j].cur.Key
	}
	return h[i].idx < h[j].idx
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns writes to dst the lines of runs, each in key order, in key order (ties in
// the order of runs), one line of each run in memory at a time. It returns the lines
// written.
func mergeRuns(ctx context.Context, dst string, runs []string) (n int, err error) {
	h := make(runHeap, 0, len(runs))
	defer func() {
		for _, r := range h {
			r.c.Close()
		}
	}()
	for i, path := range runs {
		rc, err := files.OpenRaw(ctx, path)
		if err != nil {
			return 0, err
		}
		r := &runReader{path: path, r: bufio.NewReaderSize(rc, runBufferBytes), c: rc, idx: i}
		switch err := r.next(); {
		case errors.Is(err, io.EOF):
			rc.Close()
			continue
		case err != nil:
			rc.Close()
			return 0, fmt.Errorf("read run %s: %w", path, err)
		}
		h = append(h, r)
	}
	heap.Init(&h)
	var failed error
	err = files.WriteFile(ctx, dst, func(w *bufio.Writer) {
		for len(h) > 0 {
			r := h[0]
			w.WriteString(r.cur.Line)
			w.WriteByte('\n')
			n++
			switch err := r.next(); {
			case errors.Is(err, io.EOF):
				r.c.Close()
				heap.Pop(&h)
			case err != nil:
				failed = err
				return
			default:
				heap.Fix(&h, 0)
			}
		}
	})
	if failed != nil {
		return 0, failed
	}
	return n, err
}
