package pairs

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/stretchr/testify/require"
)

// TestCheckPairsVerifyModes feeds the verification step the seed's D1/D2 halves: the
// exact Jaccard 2/3 is below 0.8, so under --verify exact the pair is a false candidate,
// while --verify none takes every candidate.
func TestCheckPairsVerifyModes(t *testing.T) {
	sum := minhash.XXHash.Sum64
	d1 := []uint64{sum([]byte("blue green")), sum([]byte("red blue"))}
	d2 := append([]uint64{sum([]byte("green yellow"))}, d1...)
	slices.Sort(d1)
	slices.Sort(d2)
	halves := []elem.Half{
		{U: "D1", V: "D2", Node: "D1", Hashes: d1, Length: 14},
		{U: "D1", V: "D2", Node: "D2", Hashes: d2, Length: 21},
	}
	for mode, want := range map[string]int{Exact: 0, None: 1} {
		t.Run(mode, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			in := beam.ParDo(s, singleHalf, beam.CreateList(s, halves))
			out, near, _ := beam.ParDo3(s, &checkPairsFn{Scheme: "affine32", Seed: 1, NumPerm: 128, Mode: mode,
				Threshold: 0.8, Floor: 0.8 - 4*math.Sqrt(0.8*0.2/128)}, elem.Gather[elem.Half](s, in))
			passert.Count(s, out, "verified batches", want)
			if mode == Exact {
				passert.Equals(s, beam.ParDo(s, nearSummary, near), "false D1 D2 0.6667 bin 33")
			}
			require.NoError(t, ptest.Run(p))
		})
	}
}

// TestExactVerificationIgnoresTheEstimate gives the verification step a floor no estimate
// reaches: a pair whose exact Jaccard (9/10) passes the threshold is verified all the same,
// and counted as one the estimate would have filtered.
func TestExactVerificationIgnoresTheEstimate(t *testing.T) {
	var a []uint64
	for i := range 10 {
		a = append(a, minhash.XXHash.Sum64([]byte{byte(i)}))
	}
	slices.Sort(a)
	b := slices.Delete(slices.Clone(a), 4, 5)
	halves := []elem.Half{
		{U: "A", V: "B", Node: "A", Hashes: a, Length: 10},
		{U: "A", V: "B", Node: "B", Hashes: b, Length: 9},
	}
	p, s := beam.NewPipelineWithRoot()
	in := beam.ParDo(s, singleHalf, beam.CreateList(s, halves))
	out, _, counts := beam.ParDo3(s, &checkPairsFn{Scheme: "affine32", Seed: 1, NumPerm: 128, Mode: Exact,
		Threshold: 0.8, Floor: 1.01}, elem.Gather[elem.Half](s, in))
	passert.Count(s, out, "verified batches", 1)
	require.Equal(t, int64(1), tallytest.Run(t, p, s, counts)["estimate_filtered"])
}

func init() {
	register.Function2x0(singleHalf)
	register.Function1x1(nearSummary)
}

// singleHalf puts one half in a batch under key 0.
func singleHalf(h elem.Half, emit func(int, elem.HalfBatch)) {
	emit(0, elem.HalfBatch{Items: []elem.Half{h}})
}

// TestMain runs the tests on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }

// nearSummary describes a batch holding one rejected pair.
func nearSummary(n elem.NearBatch) string {
	if len(n.Highest) != 1 || len(n.Lowest) != 0 {
		return fmt.Sprintf("unexpected batch %+v", n)
	}
	e := n.Highest[0]
	return fmt.Sprintf("false %s %s %.4f bin %d", e.U, e.V, e.Sim, slices.Index(n.False, 1))
}
