package pipeline

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/spill"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// TestSpillOfOneReaderIsFreedOnceRead: the kinds a run spills that have one reader
// (band entries, candidate edges, set and read requests, halves) give their disk space
// back as that reader reads them, so the spill does not pile up beside the outputs.
// The test keeps every spill file open from the moment a bundle spills into it, so
// that after the run, whose end removes the files, it can still ask which blocks of
// each reference hold data (SEEK_DATA).
func TestSpillOfOneReaderIsFreedOnceRead(t *testing.T) {
	var mu sync.Mutex
	refs := map[string][]string{}
	open := map[string]*os.File{}
	elem.SpilledHook = func(kind, ref string) {
		mu.Lock()
		defer mu.Unlock()
		path := spill.File(ref)
		if open[path] == nil {
			f, err := os.Open(path)
			if err != nil {
				t.Errorf("open %s: %v", path, err)
				return
			}
			open[path] = f
		}
		refs[kind] = append(refs[kind], ref)
	}
	t.Cleanup(func() {
		elem.SpilledHook = nil
		for _, f := range open {
			f.Close()
		}
	})
	cfg := DefaultConfig()
	// Few partitions, so that a bundle's extents span whole blocks.
	cfg.Inputs, cfg.Output, cfg.Partitions = []string{genCorpus(t, 3000, 5)}, t.TempDir(), 2
	dedup(t, cfg)

	mu.Lock()
	defer mu.Unlock()
	for _, kind := range []string{"bands", "edges", "requests", "reads", "halves"} {
		require.NotEmpty(t, refs[kind], "nothing spilled as %s", kind)
		blocks := 0
		for _, ref := range refs[kind] {
			f := open[spill.File(ref)]
			for _, e := range extents(t, ref) {
				// Only the blocks wholly inside an extent can be freed.
				const bs = 4096
				start, end := (e[0]+bs-1)/bs*bs, (e[0]+e[1])/bs*bs
				if start >= end {
					continue
				}
				blocks += int((end - start) / bs)
				data, err := f.Seek(start, 3) // SEEK_DATA
				if errors.Is(err, syscall.ENXIO) {
					continue // no data at or after start
				}
				require.NoError(t, err)
				require.GreaterOrEqual(t, data, end, "%s: %s still holds data at byte %d of extent %d+%d after it was read", kind, spill.File(ref), data, e[0], e[1])
			}
		}
		require.Positive(t, blocks, "no %s extent spans a whole block: the test checks nothing", kind)
		t.Logf("%s: %d references, %d whole blocks freed", kind, len(refs[kind]), blocks)
	}
}

// extents parses a spill reference's OFFSET+LENGTH list (spill's reference format).
func extents(t *testing.T, ref string) [][2]int64 {
	var out [][2]int64
	for s := range strings.SplitSeq(ref[strings.LastIndexByte(ref, '@')+1:], ",") {
		off, n, _ := strings.Cut(s, "+")
		o, err1 := strconv.ParseInt(off, 10, 64)
		l, err2 := strconv.ParseInt(n, 10, 64)
		require.NoError(t, errors.Join(err1, err2), "reference %s", ref)
		out = append(out, [2]int64{o, l})
	}
	return out
}
