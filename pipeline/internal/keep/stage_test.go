package keep

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
	"github.com/neardup/neardup/record"
)

// stagePartitions is the partition count of the hand-built collections and the stages.
const stagePartitions = 3

func init() {
	register.Function2x0(fateByID)
	register.Function2x0(shownByID)
	register.Function2x0(decisionTexts)
	register.Function3x0(fateTexts)
}

// fateByID and shownByID key one item by its id's partition, as the earlier stages do.
func fateByID(f elem.Fate, emit func(int, elem.FateBatch)) {
	emit(elem.PartOfString(f.ID, stagePartitions), elem.FateBatch{Items: []elem.Fate{f}})
}

func shownByID(id string, emit func(int, string)) { emit(elem.PartOfString(id, stagePartitions), id) }

// decisionTexts writes each decision as "file:line id kept|removed cluster size sim
// index shown".
func decisionTexts(b record.Decisions, emit func(string)) {
	for _, d := range b.Items {
		verdict := "kept"
		if d.Removed {
			verdict = "removed"
		}
		emit(fmt.Sprintf("%s:%d %s %s %s %d %.2f %q %v", d.File, d.Line, d.ID, verdict, d.Cluster, d.ClusterSize, d.Similarity, d.Index, d.Shown))
	}
}

// fateTexts writes each fate as "id cluster kept|removed", with the users' ids.
func fateTexts(p int, b elem.FateBatch, emit func(string)) {
	for _, ft := range b.Items {
		verdict := "kept"
		if ft.Removed {
			verdict = "removed"
		}
		s := fmt.Sprintf("%s %s %s", elem.ExternalID(ft.ID), elem.ExternalID(ft.Cluster), verdict)
		if p != elem.PartOfString(ft.ID, stagePartitions) {
			s += fmt.Sprintf(" in partition %d", p)
		}
		emit(s)
	}
}

// TestDecide runs Decide alone: every input document gets one Decision; one in no
// cluster is kept as its own cluster of one; a clustered one carries its cluster, size
// and (when removed) similarity; a removal by an indexed document names its index and
// the indexed document itself gets no Decision; internal ids become the users' ids; and
// the clustered documents and the listed ids are Shown.
func TestDecide(t *testing.T) {
	indexed, preferred := elem.IndexedID(1, "x"), elem.PreferredPrefix+"p"
	locs := []elem.IDLoc{
		{ID: "a", File: "in.jsonl", Line: 1}, {ID: "b", File: "in.jsonl", Line: 2},
		{ID: "c", File: "in.jsonl", Line: 3}, {ID: "f", File: "in.jsonl", Line: 4},
		{ID: preferred, File: "pref.jsonl", Line: 1}, {ID: "q", File: "in.jsonl", Line: 5},
		{ID: indexed, File: "shard-0", Line: 7},
	}
	fates := []elem.Fate{
		{ID: "a", Cluster: "a", Sim: 0.9, Size: 2}, {ID: "b", Cluster: "a", Removed: true, Sim: 0.9, Size: 2},
		{ID: "c", Cluster: indexed, Removed: true, Sim: 0.85, Size: 2},
		{ID: preferred, Cluster: preferred, Sim: 1, Size: 2}, {ID: "q", Cluster: preferred, Removed: true, Sim: 1, Size: 2},
	}
	want := []string{
		`in.jsonl:1 a kept a 2 0.00 "" true`,
		`in.jsonl:2 b removed a 2 0.90 "" true`,
		`in.jsonl:3 c removed x 2 0.85 "idx1" true`,
		`in.jsonl:4 f kept f 1 0.00 "" true`,
		`pref.jsonl:1 p kept p 2 0.00 "" true`,
		`in.jsonl:5 q removed p 2 1.00 "" true`,
	}
	p, s := beam.NewPipelineWithRoot()
	decisions := Decide(s, stagetest.Locs(s, stagePartitions, locs), beam.ParDo(s, fateByID, beam.CreateList(s, fates)),
		beam.ParDo(s, shownByID, beam.CreateList(s, []string{"f"})), []string{"idx0", "idx1"})
	passert.Equals(s, beam.ParDo(s, decisionTexts, decisions), stagetest.Any(want)...)
	require.NoError(t, ptest.Run(p))
}

// TestDecideUnshownSingleton: a document in no cluster and not listed is not Shown.
func TestDecideUnshownSingleton(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	decisions := Decide(s, stagetest.Locs(s, stagePartitions, []elem.IDLoc{{ID: "a", File: "in.jsonl", Line: 1}}),
		beam.ParDo(s, fateByID, beam.CreateList(s, []elem.Fate(nil))),
		beam.ParDo(s, shownByID, beam.CreateList(s, []string{"b"})), nil)
	passert.Equals(s, beam.ParDo(s, decisionTexts, decisions), `in.jsonl:1 a kept a 1 0.00 "" false`)
	require.NoError(t, ptest.Run(p))
}

// TestDecideNeedsEveryLocation: a clustered document with no input location fails the
// stage instead of vanishing from the outputs.
func TestDecideNeedsEveryLocation(t *testing.T) {
	p, s := beam.NewPipelineWithRoot()
	Decide(s, stagetest.Locs(s, stagePartitions, []elem.IDLoc{{ID: "a", File: "in.jsonl", Line: 1}}),
		beam.ParDo(s, fateByID, beam.CreateList(s, []elem.Fate{{ID: "a", Cluster: "a", Size: 2}, {ID: "z", Cluster: "a", Removed: true, Size: 2}})),
		beam.ParDo(s, shownByID, beam.CreateList(s, []string(nil))), nil)
	require.ErrorContains(t, ptest.Run(p), "1 clustered documents have no input location")
}

// TestByField runs ByField alone on provisional fates (every member labelled with its
// cluster's smallest id, as Cluster leaves them) and a real input file: the member with
// the largest (max) or smallest (min) value is kept, a missing value loses to any
// present one, ties go to the smallest id, a preferred member wins over input ones
// whatever its value, and a cluster mixing numbers and strings fails naming both records.
func TestByField(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.jsonl")
	records := []struct{ id, stars string }{
		{"a", `3`}, {"b", `7`}, {"c", ``}, // cluster a: b has the most stars, c none
		{"d", `5`}, {"e", `5`}, // cluster d: a tie
		{"g", `2`}, {"h", `"many"`}, // cluster g: a number and a string
		{"p", `1`}, {"q", `9`}, // cluster p: p is a preferred input's
	}
	var data []byte
	locs := map[string]elem.IDLoc{}
	for i, r := range records {
		field := ""
		if r.stars != "" {
			field = `,"stars":` + r.stars
		}
		data = fmt.Appendf(data, `{"id":%q,"text":"t"%s}`+"\n", r.id, field)
		id := r.id
		if id == "p" {
			id = elem.PreferredPrefix + id
		}
		locs[r.id] = elem.IDLoc{ID: id, File: file, Line: int64(i + 1)}
	}
	require.NoError(t, os.WriteFile(file, data, 0o644))
	cluster := func(ids ...string) []elem.Fate {
		var fs []elem.Fate
		for _, id := range ids {
			fs = append(fs, elem.Fate{ID: locs[id].ID, Cluster: locs[ids[0]].ID, Sim: 0.9, Size: int64(len(ids))})
		}
		return fs
	}
	for _, tc := range []struct {
		name   string
		keep   string
		fates  []elem.Fate
		want   []string
		line   string
		failed string
	}{
		{name: "max", keep: "field:stars:max", fates: cluster("a", "b", "c"),
			want: []string{"a b removed", "b b kept", "c b removed"},
			line: `{"cluster":"a","size":3,"kept":"b","members":["a","b","c"]}`},
		{name: "min", keep: "field:stars:min", fates: cluster("a", "b", "c"),
			want: []string{"a a kept", "b a removed", "c a removed"},
			line: `{"cluster":"a","size":3,"kept":"a","members":["a","b","c"]}`},
		{name: "tie", keep: "field:stars:max", fates: cluster("d", "e"),
			want: []string{"d d kept", "e d removed"},
			line: `{"cluster":"d","size":2,"kept":"d","members":["d","e"]}`},
		{name: "preferred", keep: "field:stars:max", fates: cluster("p", "q"),
			want: []string{"p p kept", "q p removed"},
			line: `{"cluster":"p","size":2,"kept":"p","members":["p","q"]}`},
		{name: "mixed kinds", keep: "field:stars:max", fates: cluster("g", "h"),
			failed: fmt.Sprintf(`%s:7 (id "h") and %s:6 (id "g")`, file, file)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := make([]elem.IDLoc, 0, len(locs))
			for _, l := range locs {
				all = append(all, l)
			}
			p, s := beam.NewPipelineWithRoot()
			fates, lines, _ := ByField(s, stagetest.Locs(s, stagePartitions, all),
				beam.ParDo(s, fateByID, beam.CreateList(s, tc.fates)), tc.keep, "jsonl", stagePartitions, 0)
			if tc.failed != "" {
				require.ErrorContains(t, ptest.Run(p), tc.failed)
				return
			}
			passert.Equals(s, beam.ParDo(s, fateTexts, fates), stagetest.Any(tc.want)...)
			passert.Equals(s, stagetest.Lines(s, lines), tc.line)
			require.NoError(t, ptest.Run(p))
		})
	}
}

// TestMain runs the tests on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }

// batchSizes puts under one key each batch of fates as its fates and its bytes less its
// last fate's.
func batchSizes(_ int, b elem.FateBatch) (int, string) {
	n := 0
	for _, ft := range b.Items {
		n += elem.FateSize(ft)
	}
	return 0, fmt.Sprintf("%d %d", len(b.Items), n-elem.FateSize(b.Items[len(b.Items)-1]))
}

// checkBatches fails unless every batch, less its last fate, is under elem.ShuffleBytes,
// there are several, and they hold want fates in all.
type checkBatches struct{ Want int }

func (c *checkBatches) ProcessElement(_ int, sizes func(*string) bool) error {
	fates, batches := 0, 0
	var sz string
	for sizes(&sz) {
		var n, bytes int
		if _, err := fmt.Sscan(sz, &n, &bytes); err != nil {
			return err
		}
		batches++
		fates += n
		if bytes >= elem.ShuffleBytes {
			return fmt.Errorf("a batch of %d fates, %d bytes before its last", n, bytes)
		}
	}
	if fates != c.Want || batches < 2 {
		return fmt.Errorf("%d fates in %d batches, want %d in several", fates, batches, c.Want)
	}
	return nil
}

func init() {
	register.Function2x2(batchSizes)
	register.DoFn2x1[int, func(*string) bool, error](&checkBatches{})
}

// TestByFieldSendsBoundedBatches: the fates of a partition's many clusters leave in
// batches of at most elem.ShuffleBytes (and one fate), several of them, not gathered
// into one element that grows with the partition.
func TestByFieldSendsBoundedBatches(t *testing.T) {
	const docs = 6000
	file := filepath.Join(t.TempDir(), "in.jsonl")
	var data []byte
	var locs []elem.IDLoc
	var fates []elem.Fate
	for i := range docs {
		id := fmt.Sprintf("%0100d", i) // long ids: the partition's fates are several batches' worth
		data = fmt.Appendf(data, `{"id":%q,"text":"t","stars":%d}`+"\n", id, i%7)
		locs = append(locs, elem.IDLoc{ID: id, File: file, Line: int64(i + 1)})
		fates = append(fates, elem.Fate{ID: id, Cluster: locs[i-i%2].ID, Sim: 0.9, Size: 2})
	}
	require.NoError(t, os.WriteFile(file, data, 0o644))
	p, s := beam.NewPipelineWithRoot()
	byID := beam.ParDo(s, fateByID, beam.CreateList(s, fates))
	out, _, _ := ByField(s, stagetest.Locs(s, stagePartitions, locs), byID, "field:stars:max", "jsonl", stagePartitions, 0)
	beam.ParDo0(s, &checkBatches{Want: docs}, beam.GroupByKey(s, beam.ParDo(s, batchSizes, out)))
	require.NoError(t, ptest.Run(p))
}
