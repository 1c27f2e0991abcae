package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sharded layout writes --shards parts of each record output (one per input file by
// default) whose concatenation is the single layout's file, and refuses more parts than
// input files before the pipeline: a fast check of the part count the job is given.
func TestShardedPartCount(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		writeLines(t, filepath.Join(dir, fmt.Sprintf("in%d.jsonl", i)),
			jsonDoc(fmt.Sprintf("a%d", i), words(i*100, 30)), jsonDoc(fmt.Sprintf("b%d", i), words(i*100, 30)),
			jsonDoc(fmt.Sprintf("c%d", i), words(i*100+50, 30)))
	}
	in := filepath.Join(dir, "*.jsonl")
	single := DefaultConfig()
	single.Inputs, single.Output = []string{in}, t.TempDir()
	want, _ := dedup(t, single)

	for _, tc := range []struct{ shards, parts int }{{0, 3}, {2, 2}, {3, 3}} {
		cfg := DefaultConfig()
		cfg.Inputs, cfg.Output, cfg.Layout, cfg.Shards = []string{in}, t.TempDir(), "sharded", tc.shards
		_, err := Run(context.Background(), cfg, nil)
		require.NoError(t, err, "--shards %d", tc.shards)
		for _, out := range []string{"kept", "removed"} {
			entries, err := os.ReadDir(filepath.Join(cfg.Output, out))
			require.NoError(t, err)
			var joined []byte
			for i, e := range entries {
				assert.Equal(t, fmt.Sprintf("part-%05d-of-%05d.jsonl", i, tc.parts), e.Name(), "--shards %d", tc.shards)
				b, err := os.ReadFile(filepath.Join(cfg.Output, out, e.Name()))
				require.NoError(t, err)
				joined = append(joined, b...)
			}
			assert.Len(t, entries, tc.parts, "--shards %d: %s", tc.shards, out)
			assert.Equal(t, want[out+".jsonl"], string(joined), "--shards %d: %s parts joined", tc.shards, out)
		}
	}

	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Layout, cfg.Shards = []string{in}, t.TempDir(), "sharded", 1_000_000
	_, err := Run(context.Background(), cfg, nil)
	require.Error(t, err)
	var u UsageError
	assert.True(t, errors.As(err, &u), "%v", err)
	assert.Contains(t, err.Error(), "--shards 1000000: more than the 3 input file(s)")
	entries, _ := os.ReadDir(cfg.Output)
	assert.Empty(t, entries)
}

// TestCompressMakesAutoSharded: --compress on the embedded runner, where auto would be
// the single layout's plain files, writes compressed parts instead of ignoring the flag.
func TestCompressMakesAutoSharded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Compress = []string{genCorpus(t, 200, 5)}, t.TempDir(), CompressZstd
	st, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Positive(t, st.Counts["kept"])
	_, err = os.Stat(filepath.Join(cfg.Output, "kept", "part-00000-of-00001.jsonl.zst"))
	require.NoError(t, err, "kept's part is zstd-compressed")
	_, err = os.Stat(filepath.Join(cfg.Output, "kept.jsonl"))
	assert.True(t, os.IsNotExist(err), "no plain kept.jsonl beside the parts")
}
