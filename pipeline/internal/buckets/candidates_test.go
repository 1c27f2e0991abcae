package buckets

import (
	"fmt"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
)

// testPartitions is the partition count of the hand-built band entries and of the stage.
const testPartitions = 4

func init() {
	register.Function2x0(bandByKey)
	register.DoFn3x0[int, elem.EdgeBatch, func(string)](&edgeTextsFn{})
	register.DoFn3x0[int, elem.HalfBatch, func(string)](&memberTextsFn{})
}

// bandByKey puts one entry in a batch under its band key's partition, as features.Sign
// sends band entries.
func bandByKey(e elem.BandEntry, emit func(int, elem.BandBatch)) {
	emit(elem.PartOfHash(e.Key, testPartitions), elem.BandBatch{Items: []elem.BandEntry{e}})
}

// edgeTextsFn writes each candidate edge as "U-V", marked when it is not keyed by the
// partition of U, where Verify expects it.
type edgeTextsFn struct{ Partitions int }

func (f *edgeTextsFn) ProcessElement(p int, b elem.EdgeBatch, emit func(string)) {
	for _, e := range b.Items {
		s := e.U + "-" + e.V
		if p != elem.PartOfString(e.U, f.Partitions) {
			s += fmt.Sprintf(" in partition %d", p)
		}
		emit(s)
	}
}

// memberTextsFn writes each large-bucket member as "pivot>id", marked when it is not
// keyed by the member's partition, where its location is.
type memberTextsFn struct{ Partitions int }

func (f *memberTextsFn) ProcessElement(p int, b elem.HalfBatch, emit func(string)) {
	for _, h := range b.Items {
		s := h.V + ">" + h.Node
		if !h.IsBucketMember() {
			s = "not a member: " + s
		}
		if p != elem.PartOfString(h.Node, f.Partitions) {
			s += fmt.Sprintf(" in partition %d", p)
		}
		emit(s)
	}
}

// band is a band entry of document id with shingle set set in bucket key.
func band(key uint64, set uint64, id string) elem.BandEntry {
	return elem.BandEntry{Key: key<<40 | key, Hash: set, ID: id}
}

// TestCandidates runs the bucketing stage alone on hand-built band entries: a bucket of
// up to MaxAll distinct sets gives each of its pairs once, smaller id first; of several
// ids with one set only the smallest takes part; a bucket of one set gives nothing; a
// larger bucket gives no edge but each member, addressed to its smallest id.
func TestCandidates(t *testing.T) {
	for _, tc := range []struct {
		name           string
		maxAll         int
		bands          []elem.BandEntry
		edges, members []string
	}{
		{name: "small bucket gives all pairs", maxAll: 3,
			bands: []elem.BandEntry{band(1, 10, "c"), band(1, 11, "a"), band(1, 12, "b")},
			edges: []string{"a-b", "a-c", "b-c"}},
		{name: "one id per set", maxAll: 3,
			bands: []elem.BandEntry{band(1, 10, "d"), band(1, 10, "b"), band(1, 11, "c")},
			edges: []string{"b-c"}},
		{name: "one set is no candidate", maxAll: 3,
			bands: []elem.BandEntry{band(1, 10, "a"), band(1, 10, "b"), band(2, 11, "c")}},
		{name: "a pair found in two bands comes twice", maxAll: 3,
			bands: []elem.BandEntry{band(1, 10, "a"), band(1, 11, "b"), band(2, 10, "a"), band(2, 11, "b")},
			edges: []string{"a-b", "a-b"}},
		{name: "large bucket sends its members", maxAll: 2,
			bands:   []elem.BandEntry{band(1, 13, "d"), band(1, 10, "b"), band(1, 11, "c"), band(2, 10, "b"), band(2, 11, "c")},
			edges:   []string{"b-c"},
			members: []string{"b>b", "b>c", "b>d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			entries := beam.CreateList(s, tc.bands)
			edges, members, _ := Candidates(s, elem.Gather[elem.BandEntry](s, beam.ParDo(s, bandByKey, entries)), Options{Partitions: testPartitions, MaxAll: tc.maxAll})
			passert.Equals(s, beam.ParDo(s, &edgeTextsFn{Partitions: testPartitions}, edges), stagetest.Any(tc.edges)...)
			passert.Equals(s, beam.ParDo(s, &memberTextsFn{Partitions: testPartitions}, members), stagetest.Any(tc.members)...)
			require.NoError(t, ptest.Run(p))
		})
	}
}

// TestMain runs the tests on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }

// TestUnaskedMembers: a large bucket's member request repeated within a bundle (one
// bucket per band with the same members) is sent once; past maxAsked remembered
// requests the repeats pass, for Verify to remove after the shuffle; a new bundle starts
// afresh.
func TestUnaskedMembers(t *testing.T) {
	f := &bucketFn{maxAsked: 3}
	band := func(ids ...string) []elem.Half {
		var hs []elem.Half
		for _, id := range ids {
			hs = append(hs, elem.BucketMember("a", id))
		}
		return hs
	}
	nodes := func(hs []elem.Half) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Node)
		}
		return out
	}
	require.Equal(t, []string{"a", "b"}, nodes(f.unasked(band("a", "b"))))
	require.Empty(t, f.unasked(band("a", "b")))
	require.Equal(t, []string{"c", "d", "e"}, nodes(f.unasked(band("a", "c", "d", "e"))))
	require.Equal(t, []string{"d", "e"}, nodes(f.unasked(band("c", "d", "e"))), "only three are remembered")
	require.Equal(t, []string{"a", "x"}, nodes(f.unasked([]elem.Half{elem.BucketMember("b", "a"), elem.BucketMember("b", "x")})), "another pivot, another request")
	f.asked = nil
	require.Equal(t, []string{"a"}, nodes(f.unasked(band("a"))))
}
