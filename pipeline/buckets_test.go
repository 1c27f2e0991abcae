package pipeline

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/pipeline/internal/cluster"
)

// plantedCorpus writes a corpus of families of edited texts around the threshold —
// chains (each document a few word substitutions from the previous one) and stars (every
// leaf a few substitutions from a centre) — among unrelated documents. Ids are random,
// so a family's smallest id is any of its members. Returns ids and texts in file order.
func plantedCorpus(seed uint64, families int) (ids, texts []string) {
	r := rand.New(rand.NewPCG(seed, 99))
	word := func() string { return fmt.Sprintf("w%d", r.IntN(5000)) }
	doc := func(n int) []string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return ws
	}
	edit := func(ws []string, subs int) []string {
		out := slices.Clone(ws)
		for range subs {
			out[r.IntN(len(out))] = word()
		}
		return out
	}
	var docs [][]string
	for range families {
		base := doc(80 + r.IntN(80))
		members := [][]string{base}
		n := 3 + r.IntN(5)
		if r.IntN(2) == 0 { // chain
			for len(members) < n {
				members = append(members, edit(members[len(members)-1], 1+r.IntN(len(base)/25)))
			}
		} else { // star
			for len(members) < n {
				members = append(members, edit(base, 1+r.IntN(len(base)/12)))
			}
		}
		docs = append(docs, members...)
	}
	for range families {
		docs = append(docs, doc(60+r.IntN(60)))
	}
	perm := r.Perm(len(docs))
	for i, p := range perm {
		_ = i
		ids = append(ids, fmt.Sprintf("d%05d", r.IntN(90000)+10000)) // random, may repeat
		texts = append(texts, strings.Join(docs[p], " "))
	}
	// Make ids unique without giving them the file's order.
	seen := map[string]bool{}
	for i := range ids {
		for seen[ids[i]] {
			ids[i] = fmt.Sprintf("d%05d", r.IntN(90000)+10000)
		}
		seen[ids[i]] = true
	}
	return ids, texts
}

// bucketTruePairs computes, as the guarantee states it, every pair of documents that
// shares an LSH bucket under cfg and has exact Jaccard ≥ cfg.Threshold.
func bucketTruePairs(t *testing.T, cfg Config, ids, texts []string) [][2]string {
	t.Helper()
	sh, err := cfg.Shingler()
	require.NoError(t, err)
	signer, err := minhash.NewSigner(cfg.Scheme, cfg.Seed, cfg.NumPerm)
	require.NoError(t, err)
	bands, rows, err := cfg.bandsRows()
	require.NoError(t, err)
	sets := make([][]uint64, len(ids))
	keys := make([][]uint64, len(ids))
	for i, text := range texts {
		sets[i], _ = sh.Hashes(text)
		sig := make([]uint64, cfg.NumPerm)
		signer.SignInto(sig, sets[i])
		for b := 0; b < bands; b++ {
			keys[i] = append(keys[i], lsh.BandKey(sig, b, rows))
		}
	}
	var pairs [][2]string
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			shared := false
			for b := range keys[i] {
				shared = shared || keys[i][b] == keys[j][b]
			}
			if shared && jaccard.Similarity(sets[i], sets[j]) >= cfg.Threshold {
				pairs = append(pairs, [2]string{ids[i], ids[j]})
			}
		}
	}
	return pairs
}

// clusterLabels reads clusters.jsonl into id → cluster.
func clusterLabels(t *testing.T, clusters string) map[string]string {
	t.Helper()
	labels := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(clusters), "\n") {
		if l == "" {
			continue
		}
		var c cluster.Line
		require.NoError(t, json.Unmarshal([]byte(l), &c))
		for _, m := range c.Members {
			labels[m] = c.Cluster
		}
	}
	return labels
}

func writeCorpus(t *testing.T, path string, ids, texts []string, order []int) string {
	t.Helper()
	var lines []string
	for _, i := range order {
		lines = append(lines, jsonDoc(ids[i], texts[i]))
	}
	return writeLines(t, path, lines...)
}

func plantedConfig(t *testing.T, input string, partitions int) Config {
	cfg := DefaultConfig()
	cfg.Inputs = []string{input}
	cfg.Output = t.TempDir()
	cfg.Threshold = 0.7
	cfg.Partitions = partitions
	cfg.Quiet = true
	require.NoError(t, cfg.Validate())
	return cfg
}

// TestEveryTruePairSharingABucketIsClustered states the candidate guarantee directly:
// on planted families of edits around the threshold, every pair that shares an LSH
// bucket and has exact Jaccard ≥ t ends in one cluster, for several seeds and partition
// counts, both when buckets give all their pairs and when every bucket of three or more
// sets is resolved by pivots (--bucket-all-pairs 2). Star edges from the smallest id
// fail it (the hub fails against two members that are duplicates of each other), and so
// does re-starring (the hub passes one of them and fails the other).
func TestEveryTruePairSharingABucketIsClustered(t *testing.T) {
	for _, tc := range []struct {
		seed       uint64
		partitions int
		allPairs   int
	}{{1, 1, 100}, {2, 7, 2}, {3, 64, 100}, {4, 5, 2}} {
		t.Run(fmt.Sprintf("seed%d-p%d-all%d", tc.seed, tc.partitions, tc.allPairs), func(t *testing.T) {
			ids, texts := plantedCorpus(tc.seed, 60)
			input := writeCorpus(t, filepath.Join(t.TempDir(), "c.jsonl"), ids, texts, identity(len(ids)))
			cfg := plantedConfig(t, input, tc.partitions)
			cfg.BucketAllPairs = tc.allPairs
			truth := bucketTruePairs(t, cfg, ids, texts)
			require.Greater(t, len(truth), 50, "the corpus must plant pairs")
			out, st := dedup(t, cfg)
			require.Empty(t, missedPairs(t, truth, out[clustersFile]), "pairs sharing a bucket with J ≥ %v not in one cluster", cfg.Threshold)
			require.Zero(t, st.Counts["unresolved_bucket_pairs"])
			if tc.allPairs == 2 {
				require.Positive(t, st.Counts["large_buckets"])
				require.Positive(t, st.Counts["large_bucket_comparisons"])
			} else {
				require.Zero(t, st.Counts["large_buckets"])
			}
		})
	}
}

// missedPairs returns the pairs of truth that clusters.jsonl does not put in one cluster.
func missedPairs(t *testing.T, truth [][2]string, clusters string) []string {
	labels := clusterLabels(t, clusters)
	var missed []string
	for _, p := range truth {
		if labels[p[0]] == "" || labels[p[0]] != labels[p[1]] {
			missed = append(missed, p[0]+"–"+p[1])
		}
	}
	return missed
}

// TestBucketBudgetIsAudited starves the large buckets of comparisons
// (--bucket-comparisons 1, no floor) and checks that nothing is lost silently: every missed pair
// that shared a bucket is counted in unresolved_bucket_pairs (an upper bound, per bucket)
// and stats.json warns.
func TestBucketBudgetIsAudited(t *testing.T) {
	ids, texts := plantedCorpus(2, 100)
	input := writeCorpus(t, filepath.Join(t.TempDir(), "c.jsonl"), ids, texts, identity(len(ids)))
	cfg := plantedConfig(t, input, 5)
	cfg.BucketAllPairs, cfg.BucketComparisons, cfg.bucketBudgetFloor = 2, 1, 1
	truth := bucketTruePairs(t, cfg, ids, texts)
	out, st := dedup(t, cfg)
	missed := len(missedPairs(t, truth, out[clustersFile]))
	require.Positive(t, missed, "one comparison per member should miss planted pairs here")
	require.GreaterOrEqual(t, st.Counts["unresolved_bucket_pairs"], int64(missed))
	require.Positive(t, st.Counts["large_buckets"])
	require.Contains(t, strings.Join(st.Warnings, "\n"), "--bucket-comparisons")
}

// TestResultIndependentOfArrivalOrder shuffles the input lines (so members and ids
// arrive in other orders) and changes the partition count: every output is the same
// byte for byte, apart from kept.jsonl, which keeps the input order, and must hold the
// same records. It holds for buckets given all pairs and for buckets resolved by pivots
// (--bucket-all-pairs 2), whose pivot is the smallest id, never the first to arrive.
func TestResultIndependentOfArrivalOrder(t *testing.T) {
	ids, texts := plantedCorpus(5, 50)
	for _, allPairs := range []int{100, 2} {
		t.Run(fmt.Sprintf("all%d", allPairs), func(t *testing.T) {
			dir := t.TempDir()
			var ref map[string]string
			var refStats *Stats
			r := rand.New(rand.NewPCG(7, 7))
			for run, partitions := range []int{1, 13, 3} {
				order := identity(len(ids))
				if run > 0 {
					r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				}
				input := writeCorpus(t, filepath.Join(dir, fmt.Sprintf("c%d.jsonl", run)), ids, texts, order)
				cfg := plantedConfig(t, input, partitions)
				cfg.BucketAllPairs = allPairs
				out, st := dedup(t, cfg)
				if ref == nil {
					ref, refStats = out, st
					require.NotEmpty(t, out[clustersFile])
					continue
				}
				require.Equal(t, ref[clustersFile], out[clustersFile])
				require.Equal(t, sortedLines(ref["kept.jsonl"]), sortedLines(out["kept.jsonl"]))
				require.Equal(t, sortedLines(stripPlace(t, ref["removed.jsonl"])), sortedLines(stripPlace(t, out["removed.jsonl"])))
				for _, k := range []string{"bucket_edges", "large_buckets", "large_bucket_comparisons", "candidate_pairs", "verified_pairs", "removed", "clusters"} {
					require.Equal(t, refStats.Counts[k], st.Counts[k], k)
				}
			}
		})
	}
}

func identity(n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	return order
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(lines)
	return lines
}

// stripPlace drops removed.jsonl's file and line, which differ when the input order does.
func stripPlace(t *testing.T, s string) string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		delete(m, "file")
		delete(m, "line")
		b, err := json.Marshal(m)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	return strings.Join(out, "\n")
}
