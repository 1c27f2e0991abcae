package sink

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every kind of outcome survives the grouping's coder with all its fields; a kept line
// needs only its line number, and a damaged batch is an error, not fewer outcomes.
func TestEntryBatchCoderRoundTrip(t *testing.T) {
	b := entryBatch{Items: []entry{
		{Line: 1, Kind: kindKept},
		{Line: 2, Kind: kindRemoved, ID: "d2", Cluster: "d1", Similarity: 0.875, Index: "idx"},
		{Line: 3, Kind: kindRejected, Reason: "line 3: invalid JSON"},
		{Line: 1 << 40, Kind: kindAnnotated, ID: "d4", Cluster: "d1", Similarity: 1, Size: 3, Duplicate: true},
		{Line: 5, Kind: kindKept},
	}}
	enc := encodeEntries(b)
	got, err := decodeEntries(enc)
	require.NoError(t, err)
	assert.Equal(t, b, got)
	assert.Less(t, len(encodeEntries(entryBatch{Items: b.Items[:1]})), 5, "a kept line is its kind and line number")
	for n := range len(enc) {
		_, err := decodeEntries(enc[:n])
		assert.Error(t, err, "cut at %d of %d bytes", n, len(enc))
	}
}
