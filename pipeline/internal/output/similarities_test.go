package output

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
	"github.com/neardup/neardup/report"
)

// shownPartitions is the partition count the shown ids are keyed by.
const shownPartitions = 3

func init() { register.Function3x0(shownText) }

// shownText writes a shown id, marked when it is not keyed by its partition, where
// keep.Decide looks for it.
func shownText(p int, id string, emit func(string)) {
	if want := elem.PartOfString(id, shownPartitions); p != want {
		id += fmt.Sprintf(" in partition %d", p)
	}
	emit(id)
}

// TestWriteSimilarities runs WriteSimilarities alone on verification's batches, each
// trimmed as Verify leaves it: similarities.json counts every pair in its bin of width
// 1/50, lists the NearPairs (20) verified pairs of lowest similarity, lowest first, and
// the 20 rejected of highest, highest first, ties by ids, with the users' ids; the
// ids of the listed pairs, and no others, come back keyed by id partition. With no
// batch at all the file still exists, with empty bins and lists.
func TestWriteSimilarities(t *testing.T) {
	// 15 verified pairs at 0.85 (bin 42) and 10 at 0.95 (bin 47); 12 rejected at 0.70
	// (bin 35) and 10 at 0.30 (bin 15). The first pair's u is a preferred input's.
	type pair struct {
		u, v string
		sim  float64
	}
	var verified, rejected []pair
	for i := range 15 {
		verified = append(verified, pair{fmt.Sprintf("a%02d", i), fmt.Sprintf("b%02d", i), 0.85})
	}
	verified[0].u = elem.PreferredPrefix + verified[0].u
	for i := range 10 {
		verified = append(verified, pair{fmt.Sprintf("c%02d", i), fmt.Sprintf("d%02d", i), 0.95})
	}
	for i := range 12 {
		rejected = append(rejected, pair{fmt.Sprintf("e%02d", i), fmt.Sprintf("f%02d", i), 0.70})
	}
	for i := range 10 {
		rejected = append(rejected, pair{fmt.Sprintf("g%02d", i), fmt.Sprintf("h%02d", i), 0.30})
	}
	// Three bundles' batches, each pair in one of them, in no particular order.
	batches := make([]elem.NearBatch, 3)
	for i := range batches {
		batches[i] = elem.NewNearBatch()
	}
	for i, p := range verified {
		batches[(i*7)%3].Add(elem.Edge{U: p.u, V: p.v, Sim: p.sim}, true)
	}
	for i, p := range rejected {
		batches[(i*5+1)%3].Add(elem.Edge{U: p.u, V: p.v, Sim: p.sim}, false)
	}
	for i := range batches {
		batches[i].Trim()
	}

	bins := func(counts map[int]int64) []int64 {
		b := make([]int64, 50)
		for i, n := range counts {
			b[i] = n
		}
		return b
	}
	var want report.Similarities
	var shown []string
	listed := func(ps []pair) []report.NearPair {
		out := []report.NearPair{}
		for _, p := range ps {
			out = append(out, report.NearPair{A: elem.ExternalID(p.u), B: elem.ExternalID(p.v), Similarity: p.sim})
			shown = append(shown, p.u, p.v)
		}
		return out
	}
	want = report.Similarities{Basis: "exact", BinWidth: 0.02,
		Verified: bins(map[int]int64{42: 15, 47: 10}), FalseCandidates: bins(map[int]int64{35: 12, 15: 10}),
		LowestVerified: listed(verified[:20]), HighestRejected: listed(rejected[:20])}
	empty := report.Similarities{Basis: "estimate", BinWidth: 0.02, Verified: bins(nil), FalseCandidates: bins(nil),
		LowestVerified: []report.NearPair{}, HighestRejected: []report.NearPair{}}

	for _, tc := range []struct {
		name    string
		batches []elem.NearBatch
		want    report.Similarities
		shown   []string
	}{
		{name: "pairs", batches: batches, want: want, shown: shown},
		{name: "no candidates", want: empty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p, s := beam.NewPipelineWithRoot()
			got := WriteSimilarities(s, beam.CreateList(s, tc.batches), dir, tc.want.Basis, shownPartitions)
			passert.Equals(s, beam.ParDo(s, shownText, got), stagetest.Any(tc.shown)...)
			require.NoError(t, ptest.Run(p))
			b, err := os.ReadFile(filepath.Join(dir, SimilaritiesFile))
			require.NoError(t, err)
			var file report.Similarities
			require.NoError(t, json.Unmarshal(b, &file))
			require.Equal(t, tc.want, file)
		})
	}
}
