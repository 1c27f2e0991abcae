package pairs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// TestSignaturesOverTheLimit: a partition decided with its large buckets' signatures in
// one block and one decided holding only the pair in hand (a limit of 0 bytes) give the
// same edges, similarities and counts, under the modes the estimate decides or counts
// in, for both value widths, with candidate pairs after the buckets.
func TestSignaturesOverTheLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := make([]uint64, 120)
	for i := range base {
		base[i] = r.Uint64()
	}
	variant := func(edits int) []uint64 {
		x := slices.Clone(base)
		for range edits {
			x[r.IntN(len(x))] = r.Uint64()
		}
		slices.Sort(x)
		return slices.Compact(x)
	}
	var batch elem.HalfBatch
	for b, pivot := range []string{"m000", "n000"} {
		for i := range 300 {
			batch.Items = append(batch.Items, elem.Half{V: pivot, Node: fmt.Sprintf("%c%03d", 'm'+b, i), Hashes: variant(r.IntN(40)), Length: int64(i)})
		}
	}
	for i := range 20 {
		u, v := fmt.Sprintf("p%02d", i), fmt.Sprintf("q%02d", i)
		for _, node := range []string{u, v} {
			batch.Items = append(batch.Items, elem.Half{U: u, V: v, Node: node, Hashes: variant(r.IntN(40)), Length: 1})
		}
	}
	for _, scheme := range []string{"affine32", "affine64"} {
		for _, mode := range []string{Exact, Estimate} {
			run := func(limit int64) decided {
				f := &checkPairsFn{Scheme: scheme, Seed: 1, NumPerm: 64, Mode: mode, Threshold: 0.8, Floor: 0.6, Comparisons: 64, BudgetFloor: 16}
				s, err := minhash.NewSigner(minhash.Scheme(scheme), f.Seed, f.NumPerm)
				require.NoError(t, err)
				f.signer, f.sigLimit = s, limit
				in := elem.HalfBatch{Items: slices.Clone(batch.Items)}
				r.Shuffle(len(in.Items), func(i, j int) { in.Items[i], in.Items[j] = in.Items[j], in.Items[i] })
				d := f.checkPartition(in)
				require.NoError(t, d.err)
				d.counts.nanos = 0
				return d
			}
			block, slotted := run(1<<62), run(0)
			require.NotEmpty(t, block.out)
			require.Positive(t, block.counts.compared)
			require.Equal(t, block, slotted, "%s, %s", scheme, mode)
		}
	}
}
