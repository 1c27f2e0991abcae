// Package tally carries a pipeline's counts as data rather than as Beam metrics.
//
// A runner reports metrics of attempts: a stage it evaluates twice (Spark recomputes an
// uncached dataset for each consumer) or a bundle it retries counts twice. Elements of a
// PCollection are exact on every runner, so the counts the accounting rule rests on travel
// as Count elements: a DoFn adds to a Bundle while it processes a bundle, emits the
// bundle's totals when the bundle finishes, and Write sums them per name into one small
// file that the launcher reads after the run.
package tally

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/once"
	"github.com/neardup/neardup/io/files"
)

func init() {
	beam.RegisterType(reflect.TypeOf(Count{}))
	register.Emitter1[Count]()
	register.Function1x2(byName)
	register.Function2x1(combine)
	register.Function2x1(dropName)
	register.DoFn4x1[context.Context, int, func(*[]byte) bool, func(*Count) bool, error](&writeFn{})
	once.Register[Count]()
}

// Count is a named count. Counts of one name are summed, or, for a Max count, reduced to
// their maximum.
type Count struct {
	Name string
	N    int64
	Max  bool
}

// Bundle accumulates the counts of one bundle. The zero Bundle is ready to use.
type Bundle struct{ m map[string]Count }

// Add adds n to the sum named name. Adding 0 still makes the name appear in the totals.
func (b *Bundle) Add(name string, n int64) {
	if b.m == nil {
		b.m = map[string]Count{}
	}
	c := b.m[name]
	c.Name, c.N = name, c.N+n
	b.m[name] = c
}

// Max raises the maximum named name to n.
func (b *Bundle) Max(name string, n int64) {
	if b.m == nil {
		b.m = map[string]Count{}
	}
	c, ok := b.m[name]
	if !ok || n > c.N {
		c = Count{Name: name, N: n, Max: true}
	}
	b.m[name] = c
}

// Emit emits the bundle's counts in name order and empties the bundle. Call it from
// FinishBundle.
func (b *Bundle) Emit(emit func(Count)) {
	for _, name := range slices.Sorted(maps.Keys(b.m)) {
		emit(b.m[name])
	}
	b.m = nil
}

// Sum reduces counts to their totals per name.
func Sum(counts []Count) map[string]int64 {
	m := map[string]Count{}
	for _, c := range counts {
		if prev, ok := m[c.Name]; ok {
			c = combine(prev, c)
		}
		m[c.Name] = c
	}
	out := make(map[string]int64, len(m))
	for name, c := range m {
		out[name] = c.N
	}
	return out
}

func combine(a, b Count) Count {
	if a.Max || b.Max {
		if b.N > a.N {
			return b
		}
		return a
	}
	a.N += b.N
	return a
}

func byName(c Count) (string, Count)   { return c.Name, c }
func dropName(_ string, c Count) Count { return c }

// Write sums counts, PCollections of Count, per name and writes the totals to path as
// one JSON object ({"name": n, …}), which Read reads. It writes the file even when there
// are no counts. The group it writes from holds one element per name.
func Write(s beam.Scope, path string, counts ...beam.PCollection) {
	s = s.Scope("tally.Write")
	all := beam.Flatten(s, counts...)
	totals := beam.ParDo(s, dropName, beam.CombinePerKey(s, combine, beam.ParDo(s, byName, all)))
	beam.ParDo0(s, &writeFn{Path: path}, once.Group[Count](s, totals))
}

type writeFn struct{ Path string }

func (f *writeFn) ProcessElement(ctx context.Context, _ int, _ func(*[]byte) bool, counts func(*Count) bool) error {
	var all []Count
	var c Count
	for counts(&c) {
		all = append(all, c)
	}
	b, err := json.Marshal(Sum(all))
	if err != nil {
		return err
	}
	if err := files.WriteFile(ctx, f.Path, func(w *bufio.Writer) { w.Write(b) }); err != nil {
		return err
	}
	return nil
}

// Read reads the totals Write wrote to path.
func Read(ctx context.Context, path string) (map[string]int64, error) {
	r, err := files.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("counts: %w", err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("counts: read %s: %w", path, err)
	}
	var m map[string]int64
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("counts: %s: %w", path, err)
	}
	return m, nil
}
