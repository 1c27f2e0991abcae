package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/io/files"
)

// Names of the outputs the pipeline writes itself; the record outputs are named by sink.
const (
	ClustersFile = "clusters.jsonl"
	StatsFile    = "stats.json"
)

func init() {
	register.DoFn3x1[context.Context, []byte, func(*string, *string) bool, error](&writeSortedFn{})
	register.Iter2[string, string]()
}

// writeSorted writes the lines of a KV<sort key, line> collection to one file in key
// order. It runs once even when there are no lines, so the file always exists.
func writeSorted(s beam.Scope, lines beam.PCollection, dir, name string) {
	beam.ParDo0(s, &writeSortedFn{Dir: dir, Name: name}, beam.Impulse(s), beam.SideInput{Input: lines})
}

type writeSortedFn struct {
	Dir  string
	Name string
}

type keyedLine struct{ key, line string }

func (f *writeSortedFn) ProcessElement(ctx context.Context, _ []byte, lines func(*string, *string) bool) error {
	var all []keyedLine
	var k, l string
	for lines(&k, &l) {
		all = append(all, keyedLine{k, l})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].key < all[j].key })
	return writeFile(ctx, files.Join(f.Dir, f.Name), func(w *bufio.Writer) {
		for _, kl := range all {
			w.WriteString(kl.line)
			w.WriteByte('\n')
		}
	})
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
