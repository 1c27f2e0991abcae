package sink

import (
	"slices"
	"testing"
)

// TestShardOfCutsRunsOfConsecutiveFiles: the sorted inputs are cut into runs of
// consecutive files, every shard used when there are as many files, and a file that is
// not an input has no shard.
func TestShardOfCutsRunsOfConsecutiveFiles(t *testing.T) {
	files := []string{"a", "b", "c", "d", "e"}
	var got []int
	for _, f := range files {
		got = append(got, shardOf(files, 2, f))
	}
	if want := []int{0, 0, 0, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("2 shards of 5 files: %v, want %v", got, want)
	}
	got = got[:0]
	for _, f := range files {
		got = append(got, shardOf(files, 5, f))
	}
	if want := []int{0, 1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("5 shards of 5 files: %v, want %v", got, want)
	}
	if s := shardOf(files, 2, "zz"); s != -1 {
		t.Errorf("shard of a non-input: %d", s)
	}
}
