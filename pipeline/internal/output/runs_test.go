package output

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/pipeline/internal/elem"
)

// TestMergeRunsIsTheSortedLines: runs of hash partitions, merged, are every line in key
// order, as one sort of all the lines gives them; empty runs and lines with newlines'
// neighbours (any bytes in keys) are fine.
func TestMergeRunsIsTheSortedLines(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	var all []elem.SortedLine
	for i := range 5000 {
		k := fmt.Sprintf("%x\x00é%d", r.Uint64()%100000, i)
		all = append(all, elem.SortedLine{Key: k, Line: `{"cluster":"` + k + `"}`})
	}
	const parts = 7
	byPart := make([][]elem.SortedLine, parts+1) // the last run stays empty
	for _, l := range all {
		p := elem.PartOfString(l.Key, parts)
		byPart[p] = append(byPart[p], l)
	}
	var runs []string
	for p, lines := range byPart {
		slices.SortFunc(lines, func(a, b elem.SortedLine) int { return strings.Compare(a.Key, b.Key) })
		path := filepath.Join(dir, fmt.Sprintf("run-%d", p))
		if err := writeRun(ctx, path, lines); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, path)
	}
	dst := filepath.Join(dir, "merged")
	n, err := mergeRuns(ctx, dst, runs)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b elem.SortedLine) int { return strings.Compare(a.Key, b.Key) })
	var want strings.Builder
	for _, l := range all {
		want.WriteString(l.Line + "\n")
	}
	got, _ := os.ReadFile(dst)
	if n != len(all) || string(got) != want.String() {
		t.Fatalf("merged %d lines, want %d; same bytes: %v", n, len(all), string(got) == want.String())
	}
}

// TestMergeRunsRefusesACutRun: a run cut inside a record fails, naming the run.
func TestMergeRunsRefusesACutRun(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "run")
	if err := writeRun(ctx, path, []elem.SortedLine{{Key: "a", Line: "line a"}, {Key: "b", Line: "line b"}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:len(b)-3], 0o644)
	_, err := mergeRuns(ctx, filepath.Join(dir, "merged"), []string{path})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("merge of a cut run: err = %v, want one naming %s", err, path)
	}
}

// TestSmallRunsCostTheirBytes: writing and merging many small runs, as a step writes one
// per partition, allocates about their bytes, not a large buffer per run: 256 runs of a
// few lines took 1 GiB of fresh buffers, whose zeroing was most of the step's CPU.
func TestSmallRunsCostTheirBytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const parts, perRun = 256, 20
	var runs []string
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for p := range parts {
		lines := make([]elem.SortedLine, perRun)
		for i := range lines {
			k := fmt.Sprintf("%03d-%03d", p, i)
			lines[i] = elem.SortedLine{Key: k, Line: `{"cluster":"` + k + `"}`}
		}
		path := filepath.Join(dir, fmt.Sprintf("run-%d", p))
		if err := writeRun(ctx, path, lines); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, path)
	}
	if _, err := mergeRuns(ctx, filepath.Join(dir, "merged"), runs); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms1)
	// The merged file's own writer may take a few MiB; per run, 64 KiB is ample.
	if got, limit := ms1.TotalAlloc-ms0.TotalAlloc, uint64(8<<20+parts*64<<10); got > limit {
		t.Fatalf("writing and merging %d runs of %d lines allocated %d MiB, want at most %d MiB", parts, perRun, got>>20, limit>>20)
	}
}
