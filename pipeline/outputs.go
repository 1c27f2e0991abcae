package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/once"
	"github.com/neardup/neardup/io/files"
)

// Names of the outputs the pipeline writes itself; the record outputs are named by sink.
const (
	ClustersFile = "clusters.jsonl"
	StatsFile    = "stats.json"
)

func init() {
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(*lineBatch) bool, func(int), error](&writeSortedFn{})
	register.Emitter1[lineBatch]()
	once.Register[lineBatch]()
}

// sortedLine is a line of a file written by writeSorted, and the key that orders it.
type sortedLine struct{ Key, Line string }

// lineBatch carries sortedLines between stages: a clusters.jsonl line per element cost
// Prism an entry in its element heap each (300,000 of them for a million one-word
// documents).
type lineBatch struct{ Items []sortedLine }

// writeSorted writes the lines of a PCollection<lineBatch> to one file in key order. It
// runs once even when there are no lines, so the file always exists.
func writeSorted(s beam.Scope, lines beam.PCollection, dir, name string) {
	once.End(s, beam.ParDo(s, &writeSortedFn{Dir: dir, Name: name}, once.Group[lineBatch](s, lines)))
}

type writeSortedFn struct {
	Dir  string
	Name string
}

func (f *writeSortedFn) ProcessElement(ctx context.Context, _ int, _ func(*[]byte) bool, batches func(*lineBatch) bool, done func(int)) error {
	var all []sortedLine
	var b lineBatch
	for batches(&b) {
		all = append(all, b.Items...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Key < all[j].Key })
	if err := writeFile(ctx, files.Join(f.Dir, f.Name), func(w *bufio.Writer) {
		for _, l := range all {
			w.WriteString(l.Line)
			w.WriteByte('\n')
		}
	}); err != nil {
		return err
	}
	done(len(all))
	return nil
}

// writeFile creates path (local or gs://) and fills it through a buffered writer, whose
// first error is reported at the flush.
func writeFile(ctx context.Context, path string, fill func(*bufio.Writer)) error {
	w, err := files.Create(ctx, path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fill(bw)
	if err := bw.Flush(); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
