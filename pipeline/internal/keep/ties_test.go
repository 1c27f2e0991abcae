package keep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/pipeline/internal/stagetest"
)

// TestByFieldTies runs ByField alone on clusters built so that the field policy meets a
// tie, a missing value or a class boundary, one cluster per case, under max and min: a
// tie (equal numbers however written, equal strings, all values missing) goes to the
// smallest id; a missing value loses to any present one under both orders; and only the
// best class present (indexed, preferred, input) competes.
func TestByFieldTies(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.jsonl")
	// Each cluster lists its members as id=value ("" missing); a leading * marks a
	// preferred input's id, a leading # an indexed document's.
	clusters := [][]string{
		{"a1=3", "a3=7", "a2=7"},             // tie on the best value, not the first id
		{"b1=9", "b3=2", "b2=2"},             // tie on the smallest value
		{"c3=50e-1", "c1=5", "c2=5.0"},       // one number written three ways
		{"d2=\"x\"", "d1=\"x\""},             // equal strings
		{"e2=", "e1="},                       // all missing
		{"f1=", "f3=3", "f2=3"},              // a missing value loses, then a tie
		{"g0=100", "*g2=4", "*g1=4", "*g3="}, // preferred tie; an input does not compete
		{"h0=1", "#x2=", "*h9=8", "#x1="},    // indexed ones win, by id
	}
	var data []byte
	var locs []elem.IDLoc
	var fates []elem.Fate
	for _, c := range clusters {
		var ids []string
		for _, m := range c {
			id, v, _ := strings.Cut(m, "=")
			switch id[0] {
			case '*':
				id = elem.PreferredPrefix + id[1:]
			case '#':
				id = elem.IndexedID(0, id[1:])
			}
			ids = append(ids, id)
			if elem.IDClass(id) == elem.ClassIndexed {
				locs = append(locs, elem.IDLoc{ID: id, File: "shard-0", Line: 1})
				continue
			}
			field := ""
			if v != "" {
				field = `,"stars":` + v
			}
			data = fmt.Appendf(data, `{"id":%q,"text":"t"%s}`+"\n", elem.ExternalID(id), field)
			locs = append(locs, elem.IDLoc{ID: id, File: file, Line: int64(len(strings.Split(string(data), "\n")) - 1)})
		}
		label := ids[0]
		for _, id := range ids {
			label = min(label, id)
		}
		for _, id := range ids {
			fates = append(fates, elem.Fate{ID: id, Cluster: label, Sim: 0.9, Size: int64(len(ids))})
		}
	}
	require.NoError(t, os.WriteFile(file, data, 0o644))
	for _, tc := range []struct {
		keep string
		kept []string // per cluster
	}{
		{"field:stars:max", []string{"a2", "b1", "c1", "d1", "e1", "f2", "g1", "x1"}},
		{"field:stars:min", []string{"a1", "b2", "c1", "d1", "e1", "f2", "g1", "x1"}},
	} {
		t.Run(tc.keep, func(t *testing.T) {
			lines := []string{
				`{"cluster":"a1","size":3,"kept":"%s","members":["a1","a2","a3"]}`,
				`{"cluster":"b1","size":3,"kept":"%s","members":["b1","b2","b3"]}`,
				`{"cluster":"c1","size":3,"kept":"%s","members":["c1","c2","c3"]}`,
				`{"cluster":"d1","size":2,"kept":"%s","members":["d1","d2"]}`,
				`{"cluster":"e1","size":2,"kept":"%s","members":["e1","e2"]}`,
				`{"cluster":"f1","size":3,"kept":"%s","members":["f1","f2","f3"]}`,
				`{"cluster":"g1","size":4,"kept":"%s","members":["g1","g2","g3","g0"]}`,
				`{"cluster":"x1","size":2,"kept":"%s","members":["h9","h0"],"indexed":["x1","x2"]}`,
			}
			for i := range lines {
				lines[i] = fmt.Sprintf(lines[i], tc.kept[i])
			}
			p, s := beam.NewPipelineWithRoot()
			_, out, _ := ByField(s, stagetest.Locs(s, stagePartitions, locs),
				beam.ParDo(s, fateByID, beam.CreateList(s, fates)), tc.keep, "jsonl", stagePartitions, 0)
			passert.Equals(s, stagetest.Lines(s, out), stagetest.Any(lines)...)
			require.NoError(t, ptest.Run(p))
		})
	}
}
