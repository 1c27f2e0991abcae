package eval

import (
	"fmt"
	"slices"
	"strings"
)

// Clusters is a clustering of a corpus given by its non-singleton clusters: each
// a list of document ids. Every document of the corpus not listed is a singleton.
type Clusters [][]string

// labels maps each listed id to its cluster's index, rejecting an id listed twice.
func (c Clusters) labels() (map[string]int32, error) {
	m := make(map[string]int32)
	for i, members := range c {
		for _, id := range members {
			if j, dup := m[id]; dup {
				return nil, fmt.Errorf("document %q is in two clusters (%d and %d)", id, j, i)
			}
			m[id] = int32(i)
		}
	}
	return m, nil
}

// Documents returns the number of documents in non-singleton clusters.
func (c Clusters) Documents() int64 {
	var n int64
	for _, m := range c {
		n += int64(len(m))
	}
	return n
}

// Pairs returns the number of co-clustered pairs: Σ C(|cluster|, 2).
func (c Clusters) Pairs() int64 {
	var n int64
	for _, m := range c {
		n += choose2(int64(len(m)))
	}
	return n
}

func choose2(n int64) int64 { return n * (n - 1) / 2 }

// PairCounts compares two clusterings of the same n documents by their
// co-clustered pairs, counted from the contingency table (cluster of a × cluster
// of b) rather than by listing pairs, which a cluster of a million documents
// would make impossible.
type PairCounts struct {
	N         int64 // documents in the corpus, singletons included
	Both      int64 // pairs co-clustered in a and in b: Σ C(n_ij, 2)
	A, B      int64 // pairs co-clustered in a; in b
	AllPairs  int64 // C(N, 2)
	ClustersA int
	ClustersB int
}

// Compare counts the pairs of clusterings a (the reference) and b (the one
// judged) over a corpus of n documents. An id listed twice within one clustering
// is an error; ids need not be listed in both.
func Compare(a, b Clusters, n int64) (PairCounts, error) {
	la, err := a.labels()
	if err != nil {
		return PairCounts{}, fmt.Errorf("reference clustering: %w", err)
	}
	if _, err := b.labels(); err != nil {
		return PairCounts{}, fmt.Errorf("judged clustering: %w", err)
	}
	if docs := max(a.Documents(), b.Documents()); docs > n {
		return PairCounts{}, fmt.Errorf("clusters list %d documents but the corpus has %d", docs, n)
	}
	pc := PairCounts{N: n, A: a.Pairs(), B: b.Pairs(), AllPairs: choose2(n), ClustersA: len(a), ClustersB: len(b)}
	// One row of the contingency table per cluster of b; documents absent from a
	// are singletons there and add no pair.
	var row []int32
	for _, members := range b {
		row = row[:0]
		for _, id := range members {
			if i, ok := la[id]; ok {
				row = append(row, i)
			}
		}
		slices.Sort(row)
		for i := 0; i < len(row); {
			j := i + 1
			for j < len(row) && row[j] == row[i] {
				j++
			}
			pc.Both += choose2(int64(j - i))
			i = j
		}
	}
	return pc, nil
}

// Precision is the share of b's co-clustered pairs that a co-clusters too; 1 when
// b has none (it claimed nothing wrong).
func (p PairCounts) Precision() float64 { return ratioOr1(p.Both, p.B) }

// Recall is the share of a's co-clustered pairs that b co-clusters too; 1 when a
// has none.
func (p PairCounts) Recall() float64 { return ratioOr1(p.Both, p.A) }

// F1 is the harmonic mean of precision and recall.
func (p PairCounts) F1() float64 {
	pr, re := p.Precision(), p.Recall()
	if pr+re == 0 {
		return 0
	}
	return 2 * pr * re / (pr + re)
}

// RandIndex is the share of all document pairs on which a and b agree (both
// together or both apart).
func (p PairCounts) RandIndex() float64 {
	if p.AllPairs == 0 {
		return 1
	}
	agree := p.AllPairs - p.A - p.B + 2*p.Both
	return float64(agree) / float64(p.AllPairs)
}

// ARI is the adjusted Rand index (Hubert & Arabie 1985): the Rand index corrected
// for the agreement expected by chance between clusterings with these cluster
// sizes; 1 for identical clusterings, about 0 for independent ones, negative
// below chance. When the clusterings leave no room for chance (both all
// singletons, say) it is 1, as in scikit-learn.
func (p PairCounts) ARI() float64 {
	if p.AllPairs == 0 {
		return 1
	}
	index, a, b := float64(p.Both), float64(p.A), float64(p.B)
	expected := a * b / float64(p.AllPairs)
	maximum := (a + b) / 2
	if maximum == expected {
		return 1
	}
	return (index - expected) / (maximum - expected)
}

func ratioOr1(num, den int64) float64 {
	if den == 0 {
		return 1
	}
	return float64(num) / float64(den)
}

// Components returns the connected components (size ≥ 2) of the graph whose
// edges are pairs, each sorted, ordered by their smallest id: the clusters an
// exact all-pairs join implies, as neardup clusters verified pairs.
func Components(pairs [][2]string) Clusters {
	index := map[string]int32{}
	var ids []string
	var parent []int32
	node := func(id string) int32 {
		i, ok := index[id]
		if !ok {
			i = int32(len(ids))
			index[id] = i
			ids = append(ids, id)
			parent = append(parent, i)
		}
		return i
	}
	find := func(x int32) int32 {
		r := x
		for parent[r] != r {
			r = parent[r]
		}
		for parent[x] != r { // path compression
			parent[x], x = r, parent[x]
		}
		return r
	}
	for _, e := range pairs {
		a, b := find(node(e[0])), find(node(e[1]))
		if a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	groups := map[int32][]string{}
	for i, id := range ids {
		r := find(int32(i))
		groups[r] = append(groups[r], id)
	}
	out := make(Clusters, 0, len(groups))
	for _, g := range groups {
		slices.Sort(g)
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}
