// Package onekey records which DoFns put every element of an output under one constant
// key. A group by such a key gathers the whole collection in one worker; the pipeline's
// graph test (pipeline/graph_test.go) walks the built graph and, through this registry,
// finds every such group and checks that what it gathers does not grow with the corpus.
//
// A DoFn that emits a constant key registers itself in its package's init, beside its
// Beam registration, so the property keeps holding as DoFns are added.
package onekey

import (
	"fmt"
	"slices"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph"
)

var (
	mu        sync.Mutex
	producers = map[string][]int{}
)

// fixedKey is how Beam's own global Combine keys its input (beam.AddFixedKey).
const fixedKey = "github.com/apache/beam/sdks/v2/go/pkg/beam.addFixedKeyFn"

// Producer records that the outputs numbered outputs (0 is the first emitter or the
// returned KV) of fn, a DoFn as passed to beam.ParDo, carry one key whatever the input.
func Producer(fn any, outputs ...int) {
	name := Name(fn)
	mu.Lock()
	defer mu.Unlock()
	producers[name] = append(producers[name], outputs...)
}

// Keyed reports whether output output of the DoFn named name (graph.Fn.Name) carries
// one key: a registered Producer, or Beam's fixed key of a global Combine.
func Keyed(name string, output int) bool {
	if name == fixedKey {
		return true
	}
	mu.Lock()
	defer mu.Unlock()
	return slices.Contains(producers[name], output)
}

// Name is the name Beam's graph gives the DoFn fn (graph.Fn.Name).
func Name(fn any) string {
	f, err := graph.NewFn(fn)
	if err != nil {
		panic(fmt.Sprintf("onekey: %v is not a DoFn: %v", fn, err))
	}
	return f.Name()
}
