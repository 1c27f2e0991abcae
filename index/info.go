package index

import (
	"fmt"
	"io"
)

// Bytes is the total size of the shard files.
func (m *Manifest) Bytes() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Bytes
	}
	for _, f := range m.Segments {
		n += f.Bytes
	}
	return n
}

// WriteInfo prints what `neardup index --info` shows: the manifest's parameters and
// counts, with sizes per document. verr is the result of Verify, reported on the last line.
func (m *Manifest) WriteInfo(w io.Writer, dir string, verr error) {
	per := func(x int64) float64 {
		if m.Documents == 0 {
			return 0
		}
		return float64(x) / float64(m.Documents)
	}
	p := m.Params
	fmt.Fprintf(w, "index:         %s\n", dir)
	fmt.Fprintf(w, "format:        %s version %d, generation %d\n", m.Format, m.FormatVersion, m.Generation)
	fmt.Fprintf(w, "documents:     %d\n", m.Documents)
	fmt.Fprintf(w, "shingles:      %d (%.1f per document)\n", m.Shingles, per(m.Shingles))
	if m.Segmented() {
		fmt.Fprintf(w, "size:          %d bytes (%.1f per document) in %d segments, shingle hashes stored in %d bits\n", m.Bytes(), per(m.Bytes()), len(m.Segments), m.ShingleBits)
	} else {
		fmt.Fprintf(w, "size:          %d bytes (%.1f per document) in %d files, %d shards\n", m.Bytes(), per(m.Bytes()), len(m.Files), m.Shards)
	}
	fmt.Fprintf(w, "minhash:       num_perm %d, scheme %s, hash %s, seed %d\n", p.NumPerm, p.Scheme, p.Hash, p.Seed)
	fmt.Fprintf(w, "lsh:           b %d, r %d, threshold %v\n", p.Bands, p.Rows, p.Threshold)
	fmt.Fprintf(w, "shingling:     %s %d-grams, normalization %s, max_shingles %d\n", p.Shingle, p.NGram, p.Normalization, p.MaxShingles)
	if verr != nil {
		fmt.Fprintf(w, "checksums:     FAILED: %v\n", verr)
	} else {
		fmt.Fprintf(w, "checksums:     ok (%d files)\n", len(m.Files)+len(m.Segments))
	}
}

// WriteOrphans adds to WriteInfo's lines the files of no manifest, if any (Orphans of
// every generation: an update still running writes some too).
func WriteOrphans(w io.Writer, orphans []Orphan) {
	if len(orphans) > 0 {
		fmt.Fprintf(w, "unreferenced:  %d files, %d bytes, named by no manifest: left by an interrupted update (or being written by a running one); the next update removes them\n",
			len(orphans), OrphanBytes(orphans))
	}
}
