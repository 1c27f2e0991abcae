package buckets

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/stretchr/testify/require"
)

// elem.SortBands must give exactly the comparison sort's order: spread keys, keys that
// all share their top bits, and skew (one key copied thousands of times).
func TestSortBandEntriesIsTheComparisonOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{0, 1, 255, 256, 1000, 20000} {
		for _, shape := range []string{"spread", "low", "skew"} {
			entries := make([]elem.BandEntry, n)
			for i := range entries {
				e := elem.BandEntry{Key: r.Uint64(), Hash: r.Uint64N(8), ID: fmt.Sprintf("d%d", r.IntN(n+1))}
				switch shape {
				case "low":
					e.Key >>= 40
				case "skew":
					if r.IntN(2) == 0 {
						e.Key = 42
					}
				}
				entries[i] = e
			}
			want := slices.Clone(entries)
			slices.SortFunc(want, elem.CompareBands)
			entries = elem.SortBands(entries)
			require.Equal(t, want, entries, "n=%d %s", n, shape)
		}
	}
}

// BenchmarkSortBandEntries sorts one band partition's entries as a million one-word
// documents give them (15 bands, 700,000 distinct sets over 256 partitions, every set
// of 300,000 twice): 60,000 entries, ties on band key and set, ids apart.
func BenchmarkSortBandEntries(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 7))
	base := make([]elem.BandEntry, 0, 60000)
	for len(base) < cap(base) {
		e := elem.BandEntry{Key: r.Uint64(), Hash: r.Uint64(), ID: fmt.Sprintf("d%07d", r.IntN(1_000_000))}
		base = append(base, e)
		if r.IntN(7) < 3 {
			e.ID = fmt.Sprintf("d%07d", r.IntN(1_000_000))
			base = append(base, e)
		}
	}
	entries := make([]elem.BandEntry, len(base))
	for b.Loop() {
		copy(entries, base)
		elem.SortBands(entries)
	}
}
