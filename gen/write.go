package gen

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// worker turns logical documents into text; one per goroutine, so its scratch
// buffers and random source are never shared.
type worker struct {
	g       *generator
	pcg     *rand.PCG
	r       *rand.Rand
	scratch [][]token // one token buffer per derivation depth
	text    []byte
}

func (g *generator) newWorker() *worker {
	pcg := rand.NewPCG(0, 0)
	return &worker{g: g, pcg: pcg, r: rand.New(pcg)}
}

// tokens returns the language and tokens of logical document idx, deriving a
// duplicate from its parent (recursively, each level in its own buffer), and the
// duplicate's render-time edits. The random source is left positioned just after
// idx's own draws, so render continues idx's stream.
func (w *worker) tokens(idx int32, depth int) (lang, []token, editPlan) {
	for len(w.scratch) <= depth {
		w.scratch = append(w.scratch, make([]token, 0, 512))
	}
	g := w.g
	if int(idx) < g.plan.bases {
		w.pcg.Seed(g.opts.Seed, uint64(idx))
		b := g.genBase(w.r, w.scratch[depth])
		w.scratch[depth] = b.toks
		return b.lang, b.toks, editPlan{}
	}
	l, src, _ := w.tokens(g.plan.parent[int(idx)-g.plan.bases], depth+1)
	w.pcg.Seed(g.opts.Seed, uint64(idx))
	toks, p := g.edit(w.r, l, src, w.scratch[depth])
	w.scratch[depth] = toks
	return l, toks, p
}

// appendDoc appends the JSONL line of the document at output position pos.
func (w *worker) appendDoc(buf []byte, pos int) []byte {
	l, toks, p := w.tokens(w.g.plan.order[pos], 0)
	buf = append(buf, `{"id": "`...)
	buf = w.g.appendID(buf, pos)
	buf = append(buf, `", "text": "`...)
	buf, w.text = w.g.render(buf, w.text, w.r, l, toks, p)
	return append(buf, "\"}\n"...)
}

// appendID appends the id of output position pos: doc-0000001 for position 0,
// zero-padded to a fixed width so that string order is numeric order.
func (g *generator) appendID(buf []byte, pos int) []byte {
	buf = append(buf, "doc-"...)
	var d [20]byte
	s := strconv.AppendInt(d[:0], int64(pos+1), 10)
	for range g.width - len(s) {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// ID returns the id gen gives the document at 0-based output position pos in a
// corpus of n documents.
func ID(pos, n int) string {
	g := generator{width: max(7, len(fmt.Sprint(n)))}
	return string(g.appendID(nil, pos))
}

// chunk is the number of documents a worker renders per job: big enough to make
// the hand-off cheap, small enough to keep memory flat.
const chunk = 256

// writeDocs renders all documents with o.Workers goroutines and writes them in
// position order. Jobs are queued in order with a result channel each; the writer
// drains that queue in order, so the output never depends on scheduling.
func (g *generator) writeDocs(out io.Writer) (int64, error) {
	n := g.opts.N
	type job struct {
		start int
		res   chan []byte
	}
	jobs := make(chan job)
	queue := make(chan chan []byte, 2*g.opts.Workers)
	done := make(chan struct{})
	defer close(done)
	// Chunk buffers are recycled through free, which holds at most what is in flight.
	free := make(chan []byte, 3*g.opts.Workers)

	go func() {
		defer close(jobs)
		defer close(queue)
		for start := 0; start < n; start += chunk {
			res := make(chan []byte, 1)
			select {
			case queue <- res:
			case <-done:
				return
			}
			select {
			case jobs <- job{start, res}:
			case <-done:
				return
			}
		}
	}()
	for range g.opts.Workers {
		go func() {
			w := g.newWorker()
			for j := range jobs {
				var buf []byte
				select {
				case buf = <-free:
				default:
					buf = make([]byte, 0, chunk*2048)
				}
				buf = buf[:0]
				for pos := j.start; pos < min(j.start+chunk, n); pos++ {
					buf = w.appendDoc(buf, pos)
				}
				j.res <- buf
			}
		}()
	}
	var written int64
	for res := range queue {
		buf := <-res
		k, err := out.Write(buf)
		written += int64(k)
		if err != nil {
			return written, fmt.Errorf("gen: write corpus: %w", err)
		}
		select {
		case free <- buf:
		default:
		}
	}
	return written, nil
}

// writeTruth writes one line per planted cluster, in the layout of neardup's
// clusters.jsonl: {"cluster": smallest id, "size": n, "members": [sorted ids]}.
func (g *generator) writeTruth(out io.Writer) error {
	var buf []byte
	for _, m := range g.plan.truthClusters() {
		buf = append(buf[:0], `{"cluster": "`...)
		buf = g.appendID(buf, int(m[0]))
		buf = append(buf, `", "size": `...)
		buf = strconv.AppendInt(buf, int64(len(m)), 10)
		buf = append(buf, `, "members": [`...)
		for i, pos := range m {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = append(buf, '"')
			buf = g.appendID(buf, int(pos))
			buf = append(buf, '"')
		}
		buf = append(buf, "]}\n"...)
		if _, err := out.Write(buf); err != nil {
			return fmt.Errorf("gen: write truth: %w", err)
		}
	}
	return nil
}
