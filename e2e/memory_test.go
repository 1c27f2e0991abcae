//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// familyCopies and familyMaxRSS: a family of this many near-copies of one text must be
// deduplicated within this peak RSS. The bound has room for the runner and the collector's
// headroom, and is well below what holding every copy's shingle set for each large bucket
// it falls in costs. familyBudget is a --memory below what the family takes at the
// defaults, which the run must keep to within 20% (familyBudgetRSS).
const (
	familyCopies    = 50_000
	familyMaxRSS    = 700 << 20
	familyBudget    = 256 << 20
	familyBudgetRSS = familyBudget * 6 / 5
)

// TestFamilyMemory runs dedup on one family of near-copies (each a 200-word text with two
// words replaced: every band holds one bucket of nearly all of them) and reads the
// process's peak RSS from its stats.json (VmHWM): verification reads a large bucket's sets from its
// spill files as it compares them instead of holding them all. With --memory the peak
// RSS, the executable's resident pages included, stays near the budget.
func TestFamilyMemory(t *testing.T) {
	bin := filepath.Join(binaries(t), "neardup")
	dir := t.TempDir()
	in := filepath.Join(dir, "family.jsonl")
	writeFamily(t, in, familyCopies)
	for _, c := range []struct {
		name  string
		flags []string
		bound int64
	}{
		{"defaults", nil, familyMaxRSS},
		{"memory", []string{"--memory", fmt.Sprint(familyBudget)}, familyBudgetRSS},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name)
			cmd := exec.Command(bin, append([]string{"dedup", "--quiet", "--input", in, "--output", out}, c.flags...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+dir)
			log, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", log)
			var stats struct {
				Counts    struct{ Clusters, Removed int }
				Resources struct {
					PeakRSSBytes int64 `json:"peak_rss_bytes"`
				}
			}
			b, err := os.ReadFile(filepath.Join(out, "stats.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &stats))
			require.Equal(t, 1, stats.Counts.Clusters, "the family is one cluster")
			require.Equal(t, familyCopies-1, stats.Counts.Removed)
			// Not the child's rusage: Linux carries ru_maxrss across exec, so it starts
			// from this test process's size at the fork.
			rss := stats.Resources.PeakRSSBytes
			require.Positive(t, rss, "stats.json reports the peak RSS")
			t.Logf("%d near-copies %v: peak RSS %d MiB", familyCopies, c.flags, rss>>20)
			require.Less(t, rss, c.bound, "peak RSS %d MiB on %d near-copies %v, bound %d MiB", rss>>20, familyCopies, c.flags, c.bound>>20)
		})
	}
}

// writeFamily writes n copies of one 200-word text over a 5,000-word vocabulary, each
// with two random positions replaced.
func writeFamily(t *testing.T, path string, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string { return fmt.Sprintf("w%d", r.IntN(5000)) }
	base := make([]string, 200)
	for i := range base {
		base[i] = word()
	}
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	text := make([]string, len(base))
	for i := range n {
		copy(text, base)
		for range 2 {
			text[r.IntN(len(text))] = word()
		}
		line, err := json.Marshal(map[string]string{"id": fmt.Sprintf("f%07d", i), "text": strings.Join(text, " ")})
		require.NoError(t, err)
		w.Write(append(line, '\n'))
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}
