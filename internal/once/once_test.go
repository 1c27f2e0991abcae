package once

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/neardup/neardup/internal/prismtest"
)

func init() {
	Register[string]()
	register.Function4x0(describe)
	register.Emitter1[string]()
}

func TestMain(m *testing.M) { prismtest.Main(m) }

// describe turns the one group into "impulses=I items=[sorted items]".
func describe(_ int, impulses func(*[]byte) bool, items func(*string) bool, emit func(string)) {
	n := 0
	var b []byte
	for impulses(&b) {
		n++
	}
	var all []string
	var x string
	for items(&x) {
		all = append(all, x)
	}
	slices.Sort(all)
	emit(fmt.Sprintf("impulses=%d items=%v", n, all))
}

func TestGroupIsOneElement(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []string
		want  string
	}{
		{"empty", nil, "impulses=1 items=[]"},
		{"one", []string{"a"}, "impulses=1 items=[a]"},
		{"several", []string{"c", "a", "b", "a"}, "impulses=1 items=[a a b c]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			col := beam.CreateList(s, tc.items)
			if len(tc.items) == 0 {
				col = beam.CreateList(s, []string{})
			}
			got := beam.ParDo(s, describe, Group[string](s, col))
			passert.Equals(s, got, tc.want)
			ptest.RunAndValidate(t, p)
		})
	}
}
