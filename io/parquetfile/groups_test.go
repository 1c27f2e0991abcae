package parquetfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Any run of row groups read on its own gives the rows of a whole read, with their
// numbers in the whole file; the footer's row counts agree with the rows read.
func TestReadDocsInEqualsSliceOfWholeRead(t *testing.T) {
	f := open(t, writeParquet(t, t.TempDir(), "a.parquet", articles, 2))
	cols, err := FindColumns(f.Schema(), "id", "text")
	require.NoError(t, err)
	all, err := readDocs(t, f, cols)
	require.NoError(t, err)
	groups := f.Groups()
	require.Len(t, groups, 3)
	for g, x := range groups {
		assert.Positive(t, x.Bytes, "group %d", g)
	}
	assert.Equal(t, []int64{1, 3, 5}, []int64{FirstRow(groups, 0), FirstRow(groups, 1), FirstRow(groups, 2)})
	for from := 0; from <= len(groups); from++ {
		for to := from; to <= len(groups); to++ {
			var got []docRow
			err := f.ReadDocsIn(cols, from, to, func(row int64, id string, text []byte, null bool) {
				got = append(got, docRow{row, id, string(text), null})
			})
			require.NoError(t, err)
			lo, hi := FirstRow(groups, from)-1, FirstRow(groups, to)-1
			assert.Equal(t, all[lo:hi], append([]docRow{}, got...), "groups %d-%d", from, to)
		}
	}
	require.Error(t, f.ReadDocsIn(cols, 2, 4, func(int64, string, []byte, bool) {}))
}
