package pipeline

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/pipeline/internal/elem"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/spill"
)

// TestBandSpillMatchesTheRunnersShuffle runs a generated corpus with the band entries,
// set keys, locations, candidate edges, read requests and verification halves spilled to local files (the default on
// the embedded runner) and through the runner's shuffle: every output must be
// byte-identical, and the spilled run must really have spilled each kind, into the
// run's temporary directory.
func TestBandSpillMatchesTheRunnersShuffle(t *testing.T) {
	corpus := genCorpus(t, 800, 5)
	var mu sync.Mutex
	var spilled []string
	kinds := map[string]int{}
	elem.SpilledHook = func(kind, ref string) {
		mu.Lock()
		spilled = append(spilled, spill.File(ref))
		kinds[kind]++
		mu.Unlock()
	}
	t.Cleanup(func() { elem.SpilledHook = nil })

	run := func(mode BandSpill) map[string]string {
		cfg := DefaultConfig()
		cfg.Inputs, cfg.Output, cfg.Threshold, cfg.BandSpill = []string{corpus}, t.TempDir(), 0.5, mode
		out, st := dedup(t, cfg)
		require.Greater(t, st.Counts["removed"], int64(50), "the corpus must have clusters to compare")
		require.Positive(t, st.Counts["exact_duplicates"], "the corpus must have exact copies to collapse")
		return out
	}
	off := run(BandSpillOff)
	require.Empty(t, spilled, "--band-spill off spilled")
	auto := run(BandSpillAuto)
	assertSameOutputs(t, off, auto)

	// Band files are written by featurize, halves by the verification re-read, all under
	// the run's temporary directory.
	dirs := map[string]bool{}
	for _, p := range spilled {
		dirs[filepath.Dir(p)] = true
		assert.Contains(t, filepath.ToSlash(p), "/"+tempPrefix, "spill file outside the run's temporary directory")
	}
	require.Len(t, dirs, 1, "spill files in several directories: %v", dirs)
	assert.GreaterOrEqual(t, kinds["bands"], 256, "band references: at least one per partition")
	assert.Positive(t, kinds["halves"], "no verification halves were spilled")
	assert.Positive(t, kinds["locs"], "no locations were spilled")
	assert.Positive(t, kinds["sets"], "no set keys were spilled")
	assert.Positive(t, kinds["edges"], "no candidate edges were spilled")
	assert.Positive(t, kinds["requests"], "no set requests were spilled")
	assert.Positive(t, kinds["reads"], "no read requests were spilled")
	for d := range dirs {
		assert.NoDirExists(t, d, "the spill directory outlived the run")
		assert.True(t, strings.HasSuffix(d, "spill"))
	}
}

func TestBandSpillFlagIsChecked(t *testing.T) {
	cfg := seedConfig(t)
	cfg.BandSpill = "sometimes"
	err := cfg.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--band-spill")
}
