// Package once gives a pipeline's final steps one step over the whole of a PCollection
// (even an empty one), in a form Prism runs without busy-waiting.
//
// The obvious form, Impulse plus a side input, keeps a core busy on Prism for as long as
// the stage runs: while a stage that reads a side input runs a bundle, the runner's
// scheduling loop (engine.ElementManager.Bundles) finds it ready, starts no bundle and
// looks again, without waiting. Group replaces it with a CoGroupByKey of an impulse and
// the collection under one key, so the group exists even when the collection is empty.
// (A final step with no output needs nothing here: internal/prism no longer spins on a
// stage whose data is done before its bundle.)
package once

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/internal/onekey"
)

func init() {
	Register[[]byte]()
	Register[int]()
}

// Register registers what Group needs for elements of type T. Call it from the init
// of the package that groups a PCollection<T>, beside the consumer's registration.
func Register[T any]() {
	register.DoFn1x2[T, int, T](&keyFn[T]{})
	onekey.Producer(&keyFn[T]{}, 0)
	register.Iter1[T]()
}

// keyFn puts every element under the one key 0.
type keyFn[T any] struct{}

func (*keyFn[T]) ProcessElement(x T) (int, T) { return 0, x }

// Group returns exactly one element from col, a PCollection<T>: the
// PCollection<CoGBK<int, []byte, T>> of key 0, one impulse value, and every element of
// col. Its consumer takes (int, func(*[]byte) bool, func(*T) bool) and may ignore the
// impulse values. T must be registered with Register.
func Group[T any](s beam.Scope, col beam.PCollection) beam.PCollection {
	s = s.Scope("once.Group")
	return beam.CoGroupByKey(s, beam.ParDo(s, &keyFn[[]byte]{}, beam.Impulse(s)), beam.ParDo(s, &keyFn[T]{}, col))
}
