package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/io/source"
)

// The sharded layout writes --shards parts of each record output (one per piece of input,
// here one per file, by default) whose concatenation is the single layout's file, and
// refuses more parts than pieces before the pipeline: a fast check of the part count the
// job is given.
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
	assert.Contains(t, err.Error(), "--shards 1000000: more than the 3 piece(s) the input is read in (3 file(s)")
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

// TestShardedPartsFollowReadRanges: a corpus in one file, read in several byte ranges,
// is written in several non-empty parts, one per range by default, whose concatenation
// in part order is the single layout's file; --shards may exceed the one file, up to the
// ranges, and not past them. The single layout's files are the same whether the file
// is read whole or in ranges.
func TestShardedPartsFollowReadRanges(t *testing.T) {
	lines := strings.SplitAfter(strings.TrimSuffix(readFile(t, genCorpus(t, 300, 7)), "\n"), "\n")
	mid := len(lines) / 2
	lines = append(lines[:mid:mid], append([]string{"not json\n"}, lines[mid:]...)...)
	in := filepath.Join(t.TempDir(), "one.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(strings.Join(lines, "")), 0o644))
	st, err := os.Stat(in)
	require.NoError(t, err)
	chunk := st.Size()/5 + 1
	ranges := len(source.SplitFile(in, "jsonl", st.Size(), chunk))
	require.Equal(t, 5, ranges)

	single := DefaultConfig()
	single.Inputs, single.Output = []string{in}, t.TempDir()
	whole, _ := dedup(t, single)
	single.Output, single.InputChunkBytes = t.TempDir(), chunk
	want, _ := dedup(t, single)
	for _, name := range []string{"kept.jsonl", "removed.jsonl", "rejected.jsonl"} {
		assert.Equal(t, whole[name], want[name], "%s read whole and in ranges", name)
	}
	require.NotEmpty(t, want["removed.jsonl"])
	require.Contains(t, want["rejected.jsonl"], `"line":151`)

	for _, tc := range []struct{ shards, parts int }{{0, ranges}, {3, 3}} {
		cfg := DefaultConfig()
		cfg.Inputs, cfg.Output, cfg.Layout, cfg.Shards, cfg.InputChunkBytes = []string{in}, t.TempDir(), "sharded", tc.shards, chunk
		_, err := Run(context.Background(), cfg, nil)
		require.NoError(t, err, "--shards %d", tc.shards)
		for _, out := range []string{"kept", "removed"} {
			entries, err := os.ReadDir(filepath.Join(cfg.Output, out))
			require.NoError(t, err)
			require.Len(t, entries, tc.parts, "--shards %d: %s", tc.shards, out)
			var joined []byte
			nonEmpty := 0
			for i, e := range entries {
				assert.Equal(t, fmt.Sprintf("part-%05d-of-%05d.jsonl", i, tc.parts), e.Name())
				b, err := os.ReadFile(filepath.Join(cfg.Output, out, e.Name()))
				require.NoError(t, err)
				if len(b) > 0 {
					nonEmpty++
				}
				joined = append(joined, b...)
			}
			assert.Equal(t, want[out+".jsonl"], string(joined), "--shards %d: %s parts joined in order", tc.shards, out)
			if out == "kept" {
				assert.Equal(t, tc.parts, nonEmpty, "--shards %d: every kept part holds records", tc.shards)
			}
		}
		rejected, err := os.ReadFile(filepath.Join(cfg.Output, "rejected.jsonl"))
		require.NoError(t, err)
		assert.Equal(t, want["rejected.jsonl"], string(rejected))
	}

	cfg := DefaultConfig()
	cfg.Inputs, cfg.Output, cfg.Layout, cfg.Shards, cfg.InputChunkBytes = []string{in}, t.TempDir(), "sharded", ranges+1, chunk
	_, err = Run(context.Background(), cfg, nil)
	var u UsageError
	require.True(t, errors.As(err, &u), "%v", err)
	assert.Contains(t, err.Error(), fmt.Sprintf("--shards %d: more than the %d piece(s)", ranges+1, ranges))
}
