package output

import (
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/prismtest"
	"github.com/neardup/neardup/io/layout"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// sortedKeys are the keys of TestWriteSorted's lines in byte order: upper case before
// lower, "a10" before "a2", and a multi-byte rune last.
var sortedKeys = []string{"A", "a10", "a2", "ab", "b", "é"}

// sortedLine is the line of key k.
func sortedLine(k string) string { return `{"cluster":"` + k + `"}` }

// TestWriteSorted runs WriteSorted alone on lines that come in several batches, out of
// order. In the single layout the file holds every line in key (byte) order and nothing
// else is left in the directory; in the sharded layout each part holds the lines of
// its keys' hash partition, in key order, compressed as asked, and every part exists,
// empty when no key fell in it. With no lines the file, or every part, exists empty.
func TestWriteSorted(t *testing.T) {
	batches := []elem.LineBatch{
		{Items: []elem.SortedLine{{Key: "b", Line: sortedLine("b")}, {Key: "a2", Line: sortedLine("a2")}}},
		{Items: []elem.SortedLine{{Key: "é", Line: sortedLine("é")}}},
		{Items: []elem.SortedLine{{Key: "ab", Line: sortedLine("ab")}, {Key: "A", Line: sortedLine("A")}, {Key: "a10", Line: sortedLine("a10")}}},
	}
	// byPart is what each of n parts must hold: the lines of its keys, in key order.
	byPart := func(n int) []string {
		parts := make([]string, n)
		for _, k := range sortedKeys {
			p := elem.PartOfString(k, n)
			parts[p] += sortedLine(k) + "\n"
		}
		return parts
	}
	var all string
	for _, k := range sortedKeys {
		all += sortedLine(k) + "\n"
	}
	for _, tc := range []struct {
		name     string
		batches  []elem.LineBatch
		o        Sorted
		want     []string // the single file, or each part
		nonEmpty int      // parts with lines, at least
	}{
		{name: "single", batches: batches, o: Sorted{Name: ClustersFile, Parts: 3},
			want: []string{all}},
		{name: "single, one part", batches: batches, o: Sorted{Name: ClustersFile, Parts: 1},
			want: []string{all}},
		{name: "single, no lines", o: Sorted{Name: ClustersFile, Parts: 3}, want: []string{""}},
		{name: "sharded", batches: batches, o: Sorted{Name: ClustersFile, Parts: 8, Sharded: true, Compress: layout.None},
			want: byPart(8), nonEmpty: 2},
		{name: "sharded, gzip", batches: batches, o: Sorted{Name: ClustersFile, Parts: 4, Sharded: true, Compress: layout.Gzip},
			want: byPart(4), nonEmpty: 2},
		{name: "sharded, no lines", o: Sorted{Name: ClustersFile, Parts: 3, Sharded: true, Compress: layout.None},
			want: []string{"", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Dir = t.TempDir()
			p, s := beam.NewPipelineWithRoot()
			WriteSorted(s, beam.CreateList(s, tc.batches), o)
			require.NoError(t, ptest.Run(p))

			names := []string{o.Name}
			if o.Sharded {
				names = layout.Parts(o.Name, o.Parts, o.Compress)
				full := 0
				for _, w := range tc.want {
					if w != "" {
						full++
					}
				}
				require.GreaterOrEqual(t, full, tc.nonEmpty, "the keys should fill several parts")
				require.Less(t, full, o.Parts, "some part should be empty")
			}
			require.ElementsMatch(t, names, listFiles(t, o.Dir), "the files in the directory")
			for i, name := range names {
				require.Equal(t, tc.want[i], readText(t, filepath.Join(o.Dir, name), o.Compress == layout.Gzip), name)
			}
		})
	}
	require.Panics(t, func() {
		_, s := beam.NewPipelineWithRoot()
		WriteSorted(s, beam.CreateList(s, batches), Sorted{Dir: t.TempDir(), Name: ClustersFile})
	}, "no parts")
}

// listFiles lists the files under dir, as slash-separated relative paths.
func listFiles(t *testing.T, dir string) []string {
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		out = append(out, filepath.ToSlash(rel))
		return err
	}))
	return out
}

// readText reads a file, gunzipping it with the standard library when gzipped.
func readText(t *testing.T, path string, gzipped bool) string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var r io.Reader = f
	if gzipped {
		zr, err := gzip.NewReader(f)
		require.NoError(t, err, path)
		r = zr
	}
	b, err := io.ReadAll(r)
	require.NoError(t, err, path)
	return string(b)
}

// TestMain runs the tests on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }
