package sink

import (
	"reflect"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/coder"

	"github.com/neardup/neardup/record"
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

// Decisions have a coder of their own, not Beam's row coder, and keep every field
// through it, whichever optional fields are set; a damaged batch is an error.
func TestDecisionsCoderRoundTrip(t *testing.T) {
	require.NotNil(t, coder.LookupCustomCoder(reflect.TypeFor[record.Decisions]()),
		"record.Decisions has no coder registered: runners would decode every Decision as a Row")
	b := record.Decisions{Items: []record.Decision{
		{File: "/data/a.jsonl", Line: 1, ID: "d1", Cluster: "d1", ClusterSize: 1},
		{File: "/data/a.jsonl", Line: 2, ID: "d2", Cluster: "d1", Removed: true, Similarity: 0.875, ClusterSize: 3, Shown: true},
		{File: "/data/b.jsonl", Line: 1 << 40, ID: "", Cluster: "x9", Removed: true, Similarity: 1, ClusterSize: 2, Index: "idx"},
		{File: "/data/b.jsonl", Line: 4, ID: "d4", Cluster: "d4", ClusterSize: 3, Shown: true},
		{File: "", Line: 5, ID: "é", Cluster: "é", ClusterSize: 1},
	}}
	enc := encodeDecisions(b)
	got, err := decodeDecisions(enc)
	require.NoError(t, err)
	assert.Equal(t, b, got)
	for n := range len(enc) {
		_, err := decodeDecisions(enc[:n])
		assert.Error(t, err, "cut at %d of %d bytes", n, len(enc))
	}
	empty, err := decodeDecisions(encodeDecisions(record.Decisions{}))
	require.NoError(t, err)
	assert.Empty(t, empty.Items)
}
