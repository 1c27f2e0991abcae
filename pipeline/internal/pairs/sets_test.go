package pairs

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/pipeline/internal/elem"
)

// TestGatherDecodesSpilledSetsUpToTheLimit: a partition's spilled halves are decoded
// into memory while their sets fit in sets.limit and indexed in their spill file past
// it, and either way load gives each half's own set.
func TestGatherDecodesSpilledSetsUpToTheLimit(t *testing.T) {
	var want []elem.Half
	for i := range 6 {
		hashes := make([]uint64, 10+i)
		for j := range hashes {
			hashes[j] = uint64(1000*i + j)
		}
		want = append(want, elem.Half{U: "u", V: fmt.Sprint("v", i), Node: "u", Hashes: hashes, Length: int64(i)})
	}
	sp := elem.Spiller{Dir: t.TempDir()}
	elem.SpillItems(&sp, elem.Halves, 0, want...)
	var refs []string
	require.NoError(t, sp.Close(func(_ int, ref string) { refs = append(refs, ref) }))

	for _, tc := range []struct {
		name    string
		limit   int64
		decoded int
	}{
		{"nothing fits", 0, 0},
		{"the first three fit", 8 * (10 + 11 + 12), 3},
		{"all fit", 1 << 20, len(want)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &sets{limit: tc.limit}
			defer st.close()
			halves, err := st.gather(elem.HalfBatch{Spilled: refs})
			require.NoError(t, err)
			require.Len(t, halves, len(want))
			decoded := 0
			for i := range halves {
				h := &halves[i]
				assert.True(t, h.spilled, "half %d", i)
				if !h.inFile() {
					decoded++
				}
				got, err := st.load(h, nil)
				require.NoError(t, err)
				assert.Equal(t, want[i].Hashes, got, "half %d", i)
				assert.Equal(t, len(want[i].Hashes), h.size())
				assert.Equal(t, want[i].V, h.V)
			}
			assert.Equal(t, tc.decoded, decoded)
		})
	}
}
