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
			if n > 0 && len(b) > (n*(lowBits(n, w)+3)+7)/8 {
				t.Errorf("w %d n %d: %d bytes, over n(l+3) bits", w, n, len(b))
			}
			got, err := decodeEF(nil, b, n, w)
			if err != nil || !slices.Equal(got, vs) {
				t.Fatalf("w %d n %d: %v, equal %v", w, n, err, slices.Equal(got, vs))
			}
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
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := b.Add(d.id, d.hashes, d.keys); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, path string) *Reader {
	t.Helper()
	r, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// check compares every document and every lookup of r with docs, by brute force.
func check(t *testing.T, r *Reader, docs []doc, width int) {
	t.Helper()
	if r.Docs() != len(docs) {
		t.Fatalf("%d documents, want %d", r.Docs(), len(docs))
	}
	for i, d := range docs {
		id, set, err := r.Doc(uint32(i), nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := Truncate(slices.Clone(d.hashes), width); id != d.id || !slices.Equal(set, want) {
			t.Fatalf("document %d: %q %v, want %q %v", i, id, set, d.id, want)
		}
	}
	for band := range r.Bands() {
		want := map[uint64][]uint32{}
		for i, d := range docs {
			want[d.keys[band]] = append(want[d.keys[band]], uint32(i))
		}
		for key, ords := range want {
			var got []uint32
			if err := r.Lookup(band, key, func(o uint32) { got = append(got, o) }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, ords) {
				t.Fatalf("band %d key %x: %v, want %v", band, key, got, ords)
			}
		}
		for _, miss := range []uint64{0, 1, ^uint64(0), 12345} {
			if _, ok := want[miss]; ok {
				continue
			}
			if err := r.Lookup(band, miss, func(o uint32) { t.Fatalf("band %d key %x: found %d", band, miss, o) }); err != nil {
				t.Fatal(err)
			}
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
	if err := Merge(&merged, rs); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one")
	write(t, one, docs, 32, 3)
	b, _ := os.ReadFile(one)
	if !bytes.Equal(b, merged.Bytes()) {
		t.Fatal("merged segment differs from the segment built in one go")
	}
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
		err := readEverything(path, docs)
		var de *DamagedError
		if !errors.As(err, &de) || de.Path != path {
			t.Fatalf("byte %d of %d flipped: err = %v", off, len(b), err)
		}
	}
	os.WriteFile(path, orig[:len(orig)-10], 0o644)
	err := readEverything(path, docs)
	if err == nil || err.Error() != "segment file "+path+" is damaged: no footer at its end (truncated or partially written); rebuild the index or restore the file" {
		t.Fatalf("truncated: %v", err)
	}
}

func readEverything(path string, docs []doc) error {
	r, err := Open(context.Background(), path)
	if err != nil {
		return err
	}
	defer r.Close()
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
