package segment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEFRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range []int{1, 8, 24, 32, 40, 63, 64} {
		for _, n := range []int{0, 1, 2, 3, 7, 100, 1000} {
			if w < 11 && n > 1<<w {
				continue
			}
			set := map[uint64]bool{}
			for len(set) < n {
				v := rng.Uint64()
				if w < 64 {
					v >>= 64 - w
				}
				set[v] = true
			}
			vs := make([]uint64, 0, n)
			for v := range set {
				vs = append(vs, v)
			}
			slices.Sort(vs)
			b := appendEF(nil, vs, w)
			if n > 0 {
				assert.LessOrEqual(t, len(b), (n*(lowBits(n, w)+3)+7)/8, "w %d n %d: over n(l+3) bits", w, n)
			}
			got, err := decodeEF(nil, b, n, w)
			require.NoError(t, err, "w %d n %d", w, n)
			require.True(t, slices.Equal(got, vs), "w %d n %d: decoded other values", w, n)
		}
	}
}

type doc struct {
	id     string
	hashes []uint64
	keys   []uint64
}

// testDocs makes n documents with few distinct band keys, so that runs of one key span
// several blocks.
func testDocs(n, bands int, seed uint64) []doc {
	rng := rand.New(rand.NewPCG(seed, 7))
	docs := make([]doc, n)
	for i := range docs {
		h := make([]uint64, rng.IntN(40))
		for j := range h {
			h[j] = rng.Uint64()
		}
		slices.Sort(h)
		h = slices.Compact(h)
		keys := make([]uint64, bands)
		for b := range keys {
			keys[b] = uint64(rng.IntN(n/50+1))*0x9e3779b97f4a7c15 + uint64(b)
		}
		docs[i] = doc{id: fmt.Sprintf("%s-%05d", []string{"a", "bb", "ccc"}[i%3], i), hashes: h, keys: keys}
	}
	return docs
}

func write(t *testing.T, path string, docs []doc, width, bands int) {
	t.Helper()
	var buf bytes.Buffer
	b, err := NewBuilder(&buf, width, bands)
	require.NoError(t, err)
	for _, d := range docs {
		require.NoError(t, b.Add(d.id, d.hashes, d.keys))
	}
	require.NoError(t, b.Close())
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

func open(t *testing.T, path string) *Reader {
	t.Helper()
	r, err := Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// check compares every document and every lookup of r with docs, by brute force.
func check(t *testing.T, r *Reader, docs []doc, width int) {
	t.Helper()
	require.Equal(t, len(docs), r.Docs(), "documents")
	for i, d := range docs {
		id, set, err := r.Doc(uint32(i), nil)
		require.NoError(t, err)
		want := Truncate(slices.Clone(d.hashes), width)
		require.True(t, id == d.id && slices.Equal(set, want), "document %d: %q %v, want %q %v", i, id, set, d.id, want)
	}
	for band := range r.Bands() {
		want := map[uint64][]uint32{}
		for i, d := range docs {
			want[d.keys[band]] = append(want[d.keys[band]], uint32(i))
		}
		for key, ords := range want {
			var got []uint32
			require.NoError(t, r.Lookup(band, key, func(o uint32) { got = append(got, o) }))
			require.True(t, slices.Equal(got, ords), "band %d key %x: %v, want %v", band, key, got, ords)
		}
		for _, miss := range []uint64{0, 1, ^uint64(0), 12345} {
			if _, ok := want[miss]; ok {
				continue
			}
			require.NoError(t, r.Lookup(band, miss, func(o uint32) { require.Fail(t, "a key not added is found", "band %d key %x: found %d", band, miss, o) }))
		}
	}
}

func TestWriteLookupRead(t *testing.T) {
	dir := t.TempDir()
	for _, width := range []int{32, 64} {
		for _, n := range []int{0, 1, BlockEntries, 3000} {
			docs := testDocs(n, 4, uint64(n))
			path := filepath.Join(dir, fmt.Sprintf("s-%d-%d", width, n))
			write(t, path, docs, width, 4)
			check(t, open(t, path), docs, width)
		}
	}
}

func TestMergeEqualsOneBuild(t *testing.T) {
	dir := t.TempDir()
	docs := testDocs(2500, 3, 9)
	parts := [][]doc{docs[:1000], docs[1000:1001], docs[1001:]}
	var rs []*Reader
	for i, p := range parts {
		path := filepath.Join(dir, fmt.Sprintf("part-%d", i))
		write(t, path, p, 32, 3)
		rs = append(rs, open(t, path))
	}
	var merged bytes.Buffer
	require.NoError(t, Merge(&merged, rs))
	one := filepath.Join(dir, "one")
	write(t, one, docs, 32, 3)
	b, _ := os.ReadFile(one)
	require.True(t, bytes.Equal(b, merged.Bytes()), "merged segment differs from the segment built in one go")
	check(t, open(t, one), docs, 32)
}

// TestDamageNamed flips each byte region of a segment and expects an error naming the
// file from whichever read crosses it: the file is never read as other content.
func TestDamageNamed(t *testing.T) {
	dir := t.TempDir()
	docs := testDocs(600, 2, 3)
	good := filepath.Join(dir, "good")
	write(t, good, docs, 32, 2)
	orig, _ := os.ReadFile(good)
	path := filepath.Join(dir, "seg-000001.nds")
	for off := 0; off < len(orig); off += 97 {
		b := slices.Clone(orig)
		b[off] ^= 0x5a
		os.WriteFile(path, b, 0o644)
		for _, read := range []func(string, []doc, bool) error{readEverything, joinEverything} {
			err := read(path, docs, off%2 == 0)
			var de *DamagedError
			require.True(t, errors.As(err, &de) && de.Path == path, "byte %d of %d flipped: err = %v", off, len(b), err)
		}
	}
	os.WriteFile(path, orig[:len(orig)-10], 0o644)
	err := readEverything(path, docs, true)
	require.EqualError(t, err, "segment file "+path+" is damaged: no footer at its end (truncated or partially written); rebuild the index or restore the file", "truncated")
}

func readEverything(path string, docs []doc, mapped bool) error {
	r, err := Open(context.Background(), path)
	if err != nil {
		return err
	}
	defer r.Close()
	if !mapped {
		r.readThrough()
	}
	for i := range r.Docs() {
		if _, _, err := r.Doc(uint32(i), nil); err != nil {
			return err
		}
	}
	for band := range r.Bands() {
		if err := r.Band(band, func(Entry) error { return nil }); err != nil {
			return err
		}
		for _, d := range docs {
			if err := r.Lookup(band, d.keys[band], func(uint32) {}); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("no error")
}

// TestJoinIsLookup: Join finds for every key, repeated or absent, what Lookup finds, and
// ReadDocs what Doc reads, whether the reads take one block or record at a time, a few,
// or many, through the mapping or not.
func TestJoinIsLookup(t *testing.T) {
	dir := t.TempDir()
	docs := testDocs(20000, 3, 11)
	path := filepath.Join(dir, "s")
	write(t, path, docs, 32, 3)
	mapped, unmapped := open(t, path), open(t, path)
	unmapped.readThrough()
	rng := rand.New(rand.NewPCG(3, 4))
	defer func(g, n uint64) { joinGap, joinRead = g, n }(joinGap, joinRead)
	for _, lim := range []struct {
		gap, read uint64
		r         *Reader
	}{{0, 1, mapped}, {64, 4 << 10, mapped}, {16 << 10, 1 << 20, mapped}, {0, 1, unmapped}, {16 << 10, 1 << 20, unmapped}} {
		joinGap, joinRead = lim.gap, lim.read
		r := lim.r
		var sc BatchScratch
		for _, share := range []int{1, 30, 100} { // percent of the documents looked up
			for band := range r.Bands() {
				var keys []uint64
				for _, d := range docs {
					if rng.IntN(100) < share {
						keys = append(keys, d.keys[band])
					}
				}
				keys = append(keys, 0, 1, ^uint64(0), rng.Uint64(), rng.Uint64())
				slices.Sort(keys)
				got := make([][]uint32, len(keys))
				err := r.Join(band, len(keys), func(i int) uint64 { return keys[i] }, &sc, func(i int, o uint32) { got[i] = append(got[i], o) })
				require.NoError(t, err)
				for i, key := range keys {
					var want []uint32
					require.NoError(t, r.Lookup(band, key, func(o uint32) { want = append(want, o) }))
					require.True(t, slices.Equal(got[i], want), "gap %d, read %d, band %d, key %x: %v, want %v", lim.gap, lim.read, band, key, got[i], want)
				}
			}
			var ords []uint32
			for i := range docs {
				if rng.IntN(100) < share {
					ords = append(ords, uint32(i))
				}
			}
			n := 0
			err := r.ReadDocs(ords, &sc, func(i int, id string, set []uint64) error {
				wid, wset, err := r.Doc(ords[i], nil)
				require.True(t, err == nil && i == n && id == wid && slices.Equal(set, wset), "document %d (%d-th): %q %v, want %q %v (%v)", ords[i], i, id, set, wid, wset, err)
				n++
				return nil
			})
			require.NoError(t, err, "read %d of %d documents", n, len(ords))
			require.Equal(t, len(ords), n, "documents read")
		}
	}
}

// joinEverything reads every record and block of a segment by ReadDocs and Join.
func joinEverything(path string, docs []doc, mapped bool) error {
	r, err := Open(context.Background(), path)
	if err != nil {
		return err
	}
	defer r.Close()
	if !mapped {
		r.readThrough()
	}
	var sc BatchScratch
	ords := make([]uint32, r.Docs())
	for i := range ords {
		ords[i] = uint32(i)
	}
	if err := r.ReadDocs(ords, &sc, func(int, string, []uint64) error { return nil }); err != nil {
		return err
	}
	for band := range r.Bands() {
		keys := make([]uint64, len(docs))
		for i, d := range docs {
			keys[i] = d.keys[band]
		}
		slices.Sort(keys)
		if err := r.Join(band, len(keys), func(i int) uint64 { return keys[i] }, &sc, func(int, uint32) {}); err != nil {
			return err
		}
	}
	return fmt.Errorf("no error")
}

// readThrough makes r read by reads of the file, as it reads a segment it cannot map.
func (r *Reader) readThrough() {
	unmapFile(r.mapped)
	r.mapped, r.checked = nil, nil
}
