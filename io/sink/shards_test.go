package sink

import (
	"slices"
	"testing"
)

// TestShardOfCutsRunsOfConsecutivePieces: the pieces, in input order, are cut into runs
// of consecutive pieces, every shard used when there are as many pieces, and a piece
// number out of range has no shard.
func TestShardOfCutsRunsOfConsecutivePieces(t *testing.T) {
	var got []int
	for seq := range 5 {
		got = append(got, shardOf(seq, 5, 2))
	}
	if want := []int{0, 0, 0, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("2 shards of 5 pieces: %v, want %v", got, want)
	}
	got = got[:0]
	for seq := range 5 {
		got = append(got, shardOf(seq, 5, 5))
	}
	if want := []int{0, 1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("5 shards of 5 pieces: %v, want %v", got, want)
	}
	if s := shardOf(5, 5, 2); s != -1 {
		t.Errorf("shard of a piece past the last: %d", s)
	}
}
