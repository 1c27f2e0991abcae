package output

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/once"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/layout"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

func init() {
	register.DoFn2x0[elem.LineBatch, func(int, elem.LineBatch)](&partLinesFn{})
	register.DoFn3x2[context.Context, int, elem.LineBatch, int, error](&writeRunFn{})
	register.DoFn4x1[context.Context, int, func(*[]byte) bool, func(*int) bool, error](&finishSortedFn{})
	register.Emitter2[int, elem.LineBatch]()
	register.Emitter1[elem.LineBatch]()
}

// Sorted says where and how WriteSorted writes a file.
type Sorted struct {
	Dir  string // the run's temporary output directory
	Name string // the file's name in the single layout, e.g. ClustersFile
	// Parts is the number of hash partitions of the keys, each sorted by one worker.
	// In the sharded layout each is a part (layout.Part); in the single layout each is a
	// run, and the runs are merged into Name.
	Parts    int
	Sharded  bool
	Compress string // the sharded parts' compression (layout.None, Gzip, Zstd)
}

// runsDir holds a single-layout file's runs until they are merged; it is not committed.
func (o Sorted) runsDir() string { return files.Join(o.Dir, ".runs-"+o.Name) }

func (o Sorted) runPath(p int) string { return files.Join(o.runsDir(), fmt.Sprintf("run-%05d", p)) }

func (o Sorted) partPath(p int) string {
	return files.Join(o.Dir, layout.Part(o.Name, p, o.Parts, o.Compress))
}

// WriteSorted writes the lines of a PCollection<LineBatch> in key order, without one
// worker holding them all: the lines are hash-partitioned by key into o.Parts
// partitions and each partition is sorted by the worker that holds it. In the sharded
// layout each partition is a part, in key order; in the single layout the partitions
// are runs that one step merges into the file, streaming. Every part (or the one file)
// exists even when there are no lines.
func WriteSorted(s beam.Scope, lines beam.PCollection, o Sorted) {
	s = s.Scope("output.WriteSorted")
	if o.Parts < 1 {
		panic(fmt.Sprintf("output.WriteSorted: Parts is %d", o.Parts))
	}
	parts := elem.Gather[elem.SortedLine](s, beam.ParDo(s, &partLinesFn{Parts: o.Parts}, lines))
	written := beam.ParDo(s, &writeRunFn{O: o}, parts)
	beam.ParDo0(s, &finishSortedFn{O: o}, once.Group[int](s, written))
}

// partLinesFn keys each line by the partition of its key.
type partLinesFn struct {
	Parts int
	parts map[int][]elem.SortedLine
}

func (f *partLinesFn) ProcessElement(b elem.LineBatch, emit func(int, elem.LineBatch)) {
	if f.parts == nil {
		f.parts = map[int][]elem.SortedLine{}
	}
	for _, l := range b.Items {
		p := elem.PartOfString(l.Key, f.Parts)
		f.parts[p] = append(f.parts[p], l)
	}
	for p, items := range f.parts {
		emit(p, elem.LineBatch{Items: items})
	}
	clear(f.parts)
}

// writeRunFn sorts one partition and writes it as a run or a part; it returns the
// partition.
type writeRunFn struct{ O Sorted }

func (f *writeRunFn) ProcessElement(ctx context.Context, p int, b elem.LineBatch) (int, error) {
	lines := b.Items
	slices.SortFunc(lines, func(a, b elem.SortedLine) int { return strings.Compare(a.Key, b.Key) })
	if f.O.Sharded {
		return p, writeLines(ctx, f.O.partPath(p), lines)
	}
	return p, writeRun(ctx, f.O.runPath(p), lines)
}

// finishSortedFn runs once, after every partition is written: in the single layout it
// merges the runs into the file and removes them; in the sharded layout it writes the
// parts no line fell in, empty.
type finishSortedFn struct{ O Sorted }

func (f *finishSortedFn) ProcessElement(ctx context.Context, _ int, _ func(*[]byte) bool, written func(*int) bool) error {
	var ps []int
	var p int
	for written(&p) {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	if f.O.Sharded {
		for i := range f.O.Parts {
			if _, ok := slices.BinarySearch(ps, i); !ok {
				if err := writeLines(ctx, f.O.partPath(i), nil); err != nil {
					return err
				}
			}
		}
		return nil
	}
	runs := make([]string, len(ps))
	for i, p := range ps {
		runs[i] = f.O.runPath(p)
	}
	if _, err := mergeRuns(ctx, files.Join(f.O.Dir, f.O.Name), runs); err != nil {
		return err
	}
	if err := files.RemoveAll(ctx, f.O.runsDir()); err != nil {
		return err
	}
	return nil
}

// writeLines writes lines, one a line, to path.
func writeLines(ctx context.Context, path string, lines []elem.SortedLine) error {
	return files.WriteFile(ctx, path, func(w *bufio.Writer) {
		for _, l := range lines {
			w.WriteString(l.Line)
			w.WriteByte('\n')
		}
	})
}
