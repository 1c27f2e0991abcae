// Package output writes the files the dedup pipeline writes itself, besides the
// records (io/sink): clusters.jsonl in id order and similarities.json. It imports elem,
// no stage.
package output

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/once"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// Names of the outputs the pipeline writes itself; the record outputs are named by sink.
const (
	ClustersFile = "clusters.jsonl"
	StatsFile    = "stats.json"
)

func init() {
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(*elem.LineBatch) bool, func(int), error](&writeSortedFn{})
	register.Emitter1[elem.LineBatch]()
	once.Register[elem.LineBatch]()
}

// WriteSorted writes the lines of a PCollection<LineBatch> to one file in key order. It
// runs once even when there are no lines, so the file always exists.
func WriteSorted(s beam.Scope, lines beam.PCollection, dir, name string) {
	once.End(s, beam.ParDo(s, &writeSortedFn{Dir: dir, Name: name}, once.Group[elem.LineBatch](s, lines)))
}

type writeSortedFn struct {
	Dir  string
	Name string
}

func (f *writeSortedFn) ProcessElement(ctx context.Context, _ int, _ func(*[]byte) bool, batches func(*elem.LineBatch) bool, done func(int)) error {
	var all []elem.SortedLine
	var b elem.LineBatch
	for batches(&b) {
		all = append(all, b.Items...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Key < all[j].Key })
	if err := files.WriteFile(ctx, files.Join(f.Dir, f.Name), func(w *bufio.Writer) {
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

// WriteJSON writes v, indented, to path.
func WriteJSON(ctx context.Context, path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return files.WriteFile(ctx, path, func(w *bufio.Writer) {
		w.Write(b)
		w.WriteByte('\n')
	})
}
