package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShardedLayoutIsTheSingleFileInParts: on local disk, a sharded run's parts, read in
// part order, are the single-file run's kept and removed bytes, every part exists, and
// clusters.jsonl's parts hold its lines, each part in cluster-id order.
func TestShardedLayoutIsTheSingleFileInParts(t *testing.T) {
	dir := fixture(t, "generated", func(dir string) { splitCorpus(t, genCorpus(t, matrixGenerated, 7), dir, matrixParts) })
	in := filepath.Join(dir, "*.jsonl")
	single := filepath.Join(t.TempDir(), "single")
	neardup(t, nil, "dedup", "--quiet", "--input", in, "--threshold", "0.8", "--output", single)
	want := readTree(t, single)

	const shards = 3
	sharded := filepath.Join(t.TempDir(), "sharded")
	const partitions = 5 // clusters/ has a part per partition
	neardup(t, nil, "dedup", "--quiet", "--input", in, "--threshold", "0.8", "--output", sharded,
		"--layout", "sharded", "--shards", fmt.Sprint(shards), "--compress", "zstd", "--partitions", fmt.Sprint(partitions))
	got := readTree(t, sharded)
	for _, name := range []string{"kept.jsonl", "removed.jsonl", "clusters.jsonl"} {
		require.NotContains(t, got, name, "the sharded layout writes no single %s", name)
	}
	joined := func(stem string) []byte {
		var all []byte
		for i := range shards {
			p := fmt.Sprintf("%s/part-%05d-of-%05d.jsonl.zst", stem, i, shards)
			require.Contains(t, got, p)
			all = append(all, unzstd(t, got[p])...)
		}
		return all
	}
	assert.Equal(t, string(want["kept.jsonl"]), string(joined("kept")), "kept parts in order")
	assert.Equal(t, string(want["removed.jsonl"]), string(joined("removed")), "removed parts in order")
	assert.Equal(t, string(want["rejected.jsonl"]), string(got["rejected.jsonl"]))

	var lines []string
	for i := range partitions {
		part := strings.Split(strings.TrimSuffix(string(unzstd(t, got[fmt.Sprintf("clusters/part-%05d-of-%05d.jsonl.zst", i, partitions)])), "\n"), "\n")
		assert.True(t, slices.IsSorted(part), "clusters part %d is in id order", i)
		lines = append(lines, part...)
	}
	slices.Sort(lines)
	assert.Equal(t, strings.TrimSuffix(string(want["clusters.jsonl"]), "\n"), strings.Join(lines, "\n"), "clusters parts hold the clusters")
	_, err := os.Stat(filepath.Join(sharded, "stats.json"))
	require.NoError(t, err)
}

func unzstd(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := zstd.NewReader(nil) // DecodeAll only: no stream to decode in the background
	require.NoError(t, err)
	defer r.Close()
	out, err := r.DecodeAll(b, nil)
	require.NoError(t, err)
	return out
}
