package features

import (
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/internal/tally/tallytest"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
	"github.com/neardup/neardup/record"
)

// stagePartitions is the partition count of the hand-built collections.
const stagePartitions = 3

// TestCollapse runs Collapse alone on hand-built set fingerprints: documents whose two
// fingerprints both match are joined to the smallest id among them by a similarity-1.0
// edge carrying both lengths, one edge per copy, and counted; one fingerprint in common
// is not a copy.
func TestCollapse(t *testing.T) {
	set := func(id string, hash, check uint64, length int64) elem.SetKey {
		return elem.SetKey{Hash: hash, Check: check, ID: id, Length: length}
	}
	for _, tc := range []struct {
		name  string
		sets  []elem.SetKey
		edges []string
	}{
		{name: "copies join their smallest id",
			sets:  []elem.SetKey{set("c", 7, 70, 30), set("a", 7, 70, 10), set("b", 7, 70, 20), set("d", 8, 80, 5)},
			edges: []string{"a b 1.00 10 20", "a c 1.00 10 30"}},
		{name: "two groups of copies",
			sets:  []elem.SetKey{set("x", 1, 10, 1), set("y", 1, 10, 2), set("p", 2, 20, 3), set("q", 2, 20, 4)},
			edges: []string{"x y 1.00 1 2", "p q 1.00 3 4"}},
		{name: "one fingerprint in common is no copy",
			sets: []elem.SetKey{set("a", 7, 70, 10), set("b", 7, 71, 10), set("c", 9, 70, 10)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			edges, counts := Collapse(s, elem.Gather[elem.SetKey](s, stagetest.Sets(s, stagePartitions, tc.sets)))
			passert.Equals(s, stagetest.Edges(s, edges), stagetest.Any(tc.edges)...)
			require.Equal(t, int64(len(tc.edges)), tallytest.Run(t, p, s, counts)["exact_duplicates"])
		})
	}
}

// TestCheckUniqueIDs runs CheckUniqueIDs alone: unique ids pass, each keyed by its id's
// partition, with nothing on the second output; a repeated id fails the stage naming
// both records, the earlier file and line first.
func TestCheckUniqueIDs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		locs   []elem.IDLoc
		want   []string
		failed string
	}{
		{name: "unique ids pass",
			locs: []elem.IDLoc{{ID: "a", File: "x.jsonl", Line: 1}, {ID: "b", File: "x.jsonl", Line: 2}, {ID: "c", File: "y.jsonl", Line: 1}},
			want: []string{"a x.jsonl:1", "b x.jsonl:2", "c y.jsonl:1"}},
		{name: "a repeated id fails",
			locs:   []elem.IDLoc{{ID: "b", File: "x.jsonl", Line: 1}, {ID: "a", File: "y.jsonl", Line: 2}, {ID: "a", File: "x.jsonl", Line: 5}},
			failed: `duplicate id "a": x.jsonl:5 and y.jsonl:2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, s := beam.NewPipelineWithRoot()
			checked := CheckUniqueIDs(s, elem.Gather[elem.IDLoc](s, stagetest.Locs(s, stagePartitions, tc.locs)))
			if tc.failed != "" {
				require.ErrorContains(t, ptest.Run(p), tc.failed)
				return
			}
			passert.Equals(s, stagetest.LocTexts(s, stagePartitions, checked), stagetest.Any(tc.want)...)
			require.NoError(t, ptest.Run(p))
		})
	}
}

// TestLocationsSpill runs Sign and CheckUniqueIDs with a spill directory: every
// location reaches the checked output from the spill files, none travels through the
// runner as an item, and a repeated id still fails the run.
func TestLocationsSpill(t *testing.T) {
	docs := []record.Doc{{ID: "a", Text: "one two three", File: "x.jsonl", Line: 1},
		{ID: "b", Text: "four five six", File: "x.jsonl", Line: 2}, {ID: "c", Text: "seven", File: "y.jsonl", Line: 1}}
	o := signOptions(0)
	o.SpillDir = t.TempDir()

	p, s := beam.NewPipelineWithRoot()
	checked := CheckUniqueIDs(s, elem.SplitFirst(s, Sign(s, beam.CreateList(s, docs), o).First).Locs)
	passert.Equals(s, stagetest.LocTexts(s, stagePartitions, checked), "a x.jsonl:1", "b x.jsonl:2", "c y.jsonl:1")
	passert.Empty(s, beam.ParDo(s, locItems, checked))
	require.NoError(t, ptest.Run(p))

	p, s = beam.NewPipelineWithRoot()
	CheckUniqueIDs(s, elem.SplitFirst(s, Sign(s, beam.CreateList(s, append(docs, record.Doc{ID: "a", Text: "x", File: "z.jsonl", Line: 9})), o).First).Locs)
	require.ErrorContains(t, ptest.Run(p), `duplicate id "a": x.jsonl:1 and z.jsonl:9`)
}

// TestSetsSpill runs Sign and Collapse with a spill directory: the copies are joined
// from the spilled set keys, and no key travels through the runner as an item.
func TestSetsSpill(t *testing.T) {
	docs := []record.Doc{{ID: "c", Text: "one two three", File: "x.jsonl", Line: 1},
		{ID: "a", Text: "one two three", File: "x.jsonl", Line: 2}, {ID: "b", Text: "four five six", File: "y.jsonl", Line: 1},
		{ID: "d", Text: "Four five, six!", File: "y.jsonl", Line: 2}, {ID: "e", Text: "seven", File: "y.jsonl", Line: 3}}
	o := signOptions(0)
	o.SpillDir = t.TempDir()

	p, s := beam.NewPipelineWithRoot()
	sets := elem.SplitFirst(s, Sign(s, beam.CreateList(s, docs), o).First).Sets
	passert.Empty(s, beam.ParDo(s, setItems, sets))
	passert.Count(s, stagetest.SetTexts(s, stagePartitions, sets), "set keys", len(docs))
	edges, counts := Collapse(s, sets)
	passert.Equals(s, stagetest.Edges(s, edges), "a c 1.00 13 13", "b d 1.00 13 15")
	require.Equal(t, int64(2), tallytest.Run(t, p, s, counts)["exact_duplicates"])
}

// setItems emits the ids of the set keys a batch carries as items.
func setItems(_ int, b elem.SetBatch, emit func(string)) {
	for _, k := range b.Items {
		emit(k.ID)
	}
}

// locItems emits the ids of the locations a batch carries as items.
func locItems(_ int, b elem.LocBatch, emit func(string)) {
	for _, l := range b.Items {
		emit(l.ID)
	}
}

func init() {
	register.Function3x0(locItems)
	register.Function3x0(setItems)
}

// TestMain runs the tests on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }
