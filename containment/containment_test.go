package containment

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOf(t *testing.T) {
	assert.Equal(t, 1.0, Of([]uint64{1, 2}, []uint64{0, 1, 2, 3}))
	assert.Equal(t, 0.5, Of([]uint64{0, 1, 2, 3}, []uint64{1, 9}))
	assert.Equal(t, 1.0, Of(nil, nil))
	assert.Equal(t, 0.0, Of(nil, []uint64{1}))
	assert.True(t, Contained(2, 3, "z", "a"))
	assert.True(t, Contained(3, 3, "b", "a"), "equal sizes: the later id is contained")
	assert.False(t, Contained(3, 3, "a", "b"))
}

func fatesByID(fs []Fate) map[string]Fate {
	m := map[string]Fate{}
	for _, f := range fs {
		m[f.ID] = f
	}
	return m
}

// A chain a ⊂ b ⊂ c where a is not contained in c: c is kept, b removed into it, and a
// stays, since its only container is removed.
func TestChainKeepsWhatOnlyARemovedDocumentContains(t *testing.T) {
	got := fatesByID(Resolve([]Pair{{"a", "b", 0.9}, {"b", "c", 0.85}}, nil))
	assert.Equal(t, Fate{ID: "c", Kept: "c", Sim: 0.85}, got["c"])
	assert.Equal(t, Fate{ID: "b", Kept: "c", Removed: true, Sim: 0.85}, got["b"])
	assert.NotContains(t, got, "a", "a is kept and has no cluster")

	got = fatesByID(Resolve([]Pair{{"a", "b", 0.9}, {"b", "c", 0.85}, {"a", "c", 0.8}}, nil))
	assert.Equal(t, Fate{ID: "a", Kept: "c", Removed: true, Sim: 0.8}, got["a"], "a contained in the kept c joins it")
}

// An excerpt of two unrelated documents is removed into the one it is most contained
// in; both containers stay.
func TestSharedExcerptJoinsItsBestContainer(t *testing.T) {
	got := fatesByID(Resolve([]Pair{{"x", "p", 0.8}, {"x", "q", 0.95}}, nil))
	assert.False(t, got["q"].Removed)
	assert.Equal(t, Fate{ID: "x", Kept: "q", Removed: true, Sim: 0.95}, got["x"])
	assert.NotContains(t, got, "p", "p keeps no member and has no cluster")

	got = fatesByID(Resolve([]Pair{{"x", "q", 0.8}, {"x", "p", 0.8}}, nil))
	assert.Equal(t, "p", got["x"].Kept, "ties go to the smaller id")
}

// Exact duplicates follow their smallest id: removed with it into its container.
func TestDuplicatesFollowTheirRepresentative(t *testing.T) {
	got := fatesByID(Resolve([]Pair{{"d1", "big", 0.9}}, [][2]string{{"d1", "d2"}, {"d1", "d3"}}))
	for _, id := range []string{"d1", "d2", "d3"} {
		assert.Equal(t, Fate{ID: id, Kept: "big", Removed: true, Sim: 0.9}, got[id], id)
	}
	got = fatesByID(Resolve(nil, [][2]string{{"d1", "d2"}}))
	assert.Equal(t, Fate{ID: "d1", Kept: "d1", Sim: 1}, got["d1"])
	assert.Equal(t, Fate{ID: "d2", Kept: "d1", Removed: true, Sim: 1}, got["d2"])
}

// The fates depend on the pairs only, not on their order, and every removed document's
// container is kept.
func TestResolveIsOrderFreeAndRemovesOnlyIntoKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var pairs []Pair
	for range 400 {
		a, b := rng.IntN(120), rng.IntN(120)
		if a == b {
			continue
		}
		// The larger number is the larger document.
		pairs = append(pairs, Pair{Member: name(min(a, b)), Container: name(max(a, b)), Sim: 0.8 + float64(rng.IntN(20))/100})
	}
	want := Resolve(pairs, nil)
	for range 5 {
		rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		require.Equal(t, want, Resolve(pairs, nil))
	}
	byID := fatesByID(want)
	contains := map[[2]string]bool{}
	for _, p := range pairs {
		contains[[2]string{p.Member, p.Container}] = true
	}
	for _, f := range want {
		if f.Removed {
			assert.False(t, byID[f.Kept].Removed, "%s is removed into %s, which is removed", f.ID, f.Kept)
			assert.True(t, contains[[2]string{f.ID, f.Kept}])
		}
	}
	// A kept document is contained in no kept document.
	for _, p := range pairs {
		m, c := byID[p.Member], byID[p.Container]
		if _, in := byID[p.Container]; in && !c.Removed {
			assert.True(t, m.Removed, "%s is contained in kept %s but kept", p.Member, p.Container)
		}
	}
}

func name(i int) string { return string(rune('A'+i/26)) + string(rune('a'+i%26)) }
