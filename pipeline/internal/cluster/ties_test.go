package cluster

import (
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
)

// tieMember is one member of a hand-made cluster: its internal id and text length.
type tieMember struct {
	id  string
	len int64
}

// star joins a cluster's members by edges from its first one.
func star(ms ...tieMember) []elem.Edge {
	var es []elem.Edge
	for _, m := range ms[1:] {
		es = append(es, elem.Edge{U: ms[0].id, V: m.id, Sim: 0.9, ULen: ms[0].len, VLen: m.len})
	}
	return es
}

// TestKeepTies runs Cluster alone, under both connected-components modes, on clusters
// built so that the policy meets a tie or a class boundary, one cluster per case.
// Smallest-id compares ids byte-wise; longest gives a tie in length to the smaller id;
// under both, the best class present (indexed, preferred, input) decides and the others
// do not compete, and among indexed members the smallest id wins whatever the lengths.
func TestKeepTies(t *testing.T) {
	in := func(id string, n int64) tieMember { return tieMember{id, n} }
	pref := func(id string, n int64) tieMember { return tieMember{elem.PreferredPrefix + id, n} }
	idx := func(id string, n int64) tieMember { return tieMember{elem.IndexedID(0, id), n} }
	clusters := [][]tieMember{
		{in("k9", 1), in("k2", 1), in("k10", 1)},                 // ids that look numeric sort as bytes
		{in("l1", 5), in("l3", 9), in("l2", 9)},                  // longest tie, not the first id
		{in("m3", 4), in("m1", 4), in("m2", 4)},                  // all one length
		{in("n2", 9), in("n1", 9), in("n3", 2)},                  // the first id is among the longest
		{in("o0", 50), pref("o2", 7), pref("o1", 7)},             // preferred tie; a longer input does not compete
		{in("p0", 1), pref("p9", 1)},                             // one preferred among inputs
		{in("r", 99), idx("x2", 5), pref("q", 50), idx("x1", 1)}, // indexed ones win, by id
	}
	var edges []elem.Edge
	for _, c := range clusters {
		edges = append(edges, star(c...)...)
	}
	for _, tc := range []struct {
		keep  string
		lines []string
	}{
		{KeepSmallestID, []string{
			`{"cluster":"k10","size":3,"kept":"k10","members":["k10","k2","k9"]}`,
			`{"cluster":"l1","size":3,"kept":"l1","members":["l1","l2","l3"]}`,
			`{"cluster":"m1","size":3,"kept":"m1","members":["m1","m2","m3"]}`,
			`{"cluster":"n1","size":3,"kept":"n1","members":["n1","n2","n3"]}`,
			`{"cluster":"o1","size":3,"kept":"o1","members":["o1","o2","o0"]}`,
			`{"cluster":"p9","size":2,"kept":"p9","members":["p9","p0"]}`,
			`{"cluster":"x1","size":2,"kept":"x1","members":["q","r"],"indexed":["x1","x2"]}`,
		}},
		{KeepLongest, []string{
			`{"cluster":"k10","size":3,"kept":"k10","members":["k10","k2","k9"]}`,
			`{"cluster":"l1","size":3,"kept":"l2","members":["l1","l2","l3"]}`,
			`{"cluster":"m1","size":3,"kept":"m1","members":["m1","m2","m3"]}`,
			`{"cluster":"n1","size":3,"kept":"n1","members":["n1","n2","n3"]}`,
			`{"cluster":"o1","size":3,"kept":"o1","members":["o1","o2","o0"]}`,
			`{"cluster":"p9","size":2,"kept":"p9","members":["p9","p0"]}`,
			`{"cluster":"x1","size":2,"kept":"x1","members":["q","r"],"indexed":["x1","x2"]}`,
		}},
	} {
		for _, cc := range []string{Local, Distributed} {
			t.Run(tc.keep+"/"+cc, func(t *testing.T) {
				p, s := beam.NewPipelineWithRoot()
				fates, lines, _ := Cluster(s, beam.ParDo(s, singleEdge, beam.CreateList(s, edges)),
					Options{CC: cc, Rounds: 12, Partitions: fatePartitions, Keep: tc.keep})
				passert.Equals(s, stagetest.Lines(s, lines), stagetest.Any(tc.lines)...)
				passert.Count(s, beam.ParDo(s, &fateTextsFn{Partitions: fatePartitions}, fates), "fates", 19)
				require.NoError(t, ptest.Run(p))
			})
		}
	}
}
