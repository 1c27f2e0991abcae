package report

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/require"
)

// sampleClusters picks what its documentation says: the largest fifth by size (ties by
// id), then the rest by the seeded hash of the id, whatever lines it passes over by their
// leading members. The reference decodes every line and sorts the whole file. Some lines
// put their members in another order, which the shortcut must not misread.
func TestSampleClustersMatchesSortingEveryCluster(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var all []cluster
	var lines []string
	for i := range 3000 {
		c := cluster{ID: fmt.Sprintf("c%05d", r.IntN(1_000_000)*10+i%10), Size: 2 + r.IntN(40)}
		c.Kept = c.ID
		for j := range c.Size {
			c.Members = append(c.Members, fmt.Sprintf("%s-%02d", c.ID, j))
		}
		c.Members[0] = c.ID
		all = append(all, c)
		b, err := json.Marshal(c)
		require.NoError(t, err)
		if i%7 == 0 { // the same cluster with its size last
			b = fmt.Appendf(nil, `{"kept":%q,"members":%s,"cluster":%q,"size":%d}`, c.Kept, mustJSON(t, c.Members), c.ID, c.Size)
		}
		lines = append(lines, string(b))
	}
	path := filepath.Join(t.TempDir(), "clusters.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))

	for _, tc := range []struct{ n, nTop int }{{50, 10}, {1, 1}, {400, 20}, {5000, 10}} {
		const seed = 42
		sample, largest, count, err := sampleClusters(context.Background(), path, tc.n, tc.nTop, 3, seed)
		require.NoError(t, err)
		require.Equal(t, len(all), count)

		var sb [8]byte
		binary.LittleEndian.PutUint64(sb[:], seed)
		bySize := slices.SortedFunc(slices.Values(all), func(a, b cluster) int { return cmp.Or(cmp.Compare(b.Size, a.Size), cmp.Compare(a.ID, b.ID)) })
		byHash := slices.SortedFunc(slices.Values(all), func(a, b cluster) int {
			return cmp.Or(cmp.Compare(xxhash.Sum64String(string(sb[:])+a.ID), xxhash.Sum64String(string(sb[:])+b.ID)), cmp.Compare(a.ID, b.ID))
		})
		nLargest := min(tc.n, max(1, (tc.n+4)/5))
		var want []string
		for _, c := range bySize[:min(nLargest, len(all))] {
			want = append(want, c.ID)
		}
		for _, c := range byHash {
			if len(want) < tc.n && !slices.Contains(want, c.ID) {
				want = append(want, c.ID)
			}
		}
		ids := func(cs []cluster) []string {
			var out []string
			for _, c := range cs {
				out = append(out, c.ID)
				require.LessOrEqual(t, len(c.Members), 4, "the kept member and at most maxMembers removed ones")
			}
			return out
		}
		require.Equal(t, want, ids(sample), "n=%d", tc.n)
		var wantTop []string
		for _, c := range bySize[:min(tc.nTop, len(all))] {
			wantTop = append(wantTop, c.ID)
		}
		require.Equal(t, wantTop, ids(largest), "nTop=%d", tc.nTop)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
