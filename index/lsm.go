package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"

	"github.com/neardup/neardup/index/segment"
	"github.com/neardup/neardup/io/files"
)

// An index of format version 2 is a list of segment files (package segment), oldest
// first, each written once: an update adds a segment in a new generation and leaves the
// others as they are (an LSM tree's way), and compaction merges segments into one.
// Lookup reads every segment, so after an addition the newest segments are merged
// whenever an older one is not much larger than all newer ones together (MergeFactor):
// segment sizes then grow geometrically from the newest to the oldest, and an index of n
// documents added b at a time has about log(n/b)/log(MergeFactor) segments.

// DefaultShingleBits is the stored width of shingle hashes in a new index: the width at
// which an index stays within about 800 bytes per document (see docs/index.md for what
// "exact" means at a width below 64).
const DefaultShingleBits = 32

// MergeFactor: an addition merges the newest segments while the next older one holds at
// most this many times their documents.
const MergeFactor = 4

// SegmentEntry is one segment file of a generation.
type SegmentEntry struct {
	Path      string `json:"path"` // relative to the index directory
	Documents int64  `json:"documents"`
	Shingles  int64  `json:"shingles"`
	Bytes     int64  `json:"bytes"`
	SHA256    string `json:"sha256"`
}

// NewSegmented returns the manifest of an empty index of segments (generation 0, never
// committed).
func NewSegmented(p Params, shingleBits int) *Manifest {
	return &Manifest{Format: Format, FormatVersion: FormatSegments, Params: p, Shards: 1, Files: []FileEntry{},
		Segments: []SegmentEntry{}, ShingleBits: shingleBits}
}

// Segmented reports whether the index is made of segments (format version 2).
func (m *Manifest) Segmented() bool { return m.FormatVersion == FormatSegments }

// checkSegments checks the segment entries of a version 2 manifest as read.
func (m *Manifest) checkSegments(dir string) error {
	if !m.Segmented() {
		return nil
	}
	if m.ShingleBits < 1 || m.ShingleBits > 64 {
		return fmt.Errorf("index %s: %s is damaged: shingle_bits %d", dir, ManifestName, m.ShingleBits)
	}
	var docs int64
	for _, s := range m.Segments {
		docs += s.Documents
	}
	if docs != m.Documents {
		return fmt.Errorf("index %s: %s is damaged: its segments hold %d documents, it says %d", dir, ManifestName, docs, m.Documents)
	}
	return nil
}

// verifySegments checks every segment file's size and SHA-256 against the manifest.
func (m *Manifest) verifySegments(ctx context.Context, dir string) error {
	for _, f := range m.Segments {
		n, sum, err := hashFile(ctx, files.Join(dir, f.Path))
		switch {
		case err != nil:
			return fmt.Errorf("index %s: segment file %s is missing or unreadable: %w", dir, f.Path, err)
		case n != f.Bytes:
			return fmt.Errorf("index %s: segment file %s is damaged: %d bytes, the manifest says %d (truncated or partially written); rebuild the index or restore the file", dir, f.Path, n, f.Bytes)
		case sum != f.SHA256:
			return fmt.Errorf("index %s: segment file %s is damaged: its SHA-256 is %s, the manifest says %s; rebuild the index or restore the file", dir, f.Path, sum, f.SHA256)
		}
	}
	return nil
}

// WithSegments returns the manifest of the generation after m whose segments are
// m's, with those numbered [from, to) replaced by added (all of them appended when
// from == to == len(m.Segments)).
func (m *Manifest) WithSegments(from, to int, added ...SegmentEntry) *Manifest {
	n := *m
	n.Generation = m.Generation + 1
	n.Files = []FileEntry{}
	n.Segments = append(append(append([]SegmentEntry{}, m.Segments[:from]...), added...), m.Segments[to:]...)
	n.Documents, n.Shingles = 0, 0
	for _, s := range n.Segments {
		n.Documents += s.Documents
		n.Shingles += s.Shingles
	}
	n.retire(m)
	return &n
}

// WriteSegment writes a segment at dir/rel with fill, which adds its documents to the
// builder, and returns its manifest entry.
func WriteSegment(ctx context.Context, dir, rel string, m *Manifest, fill func(b *segment.Builder) (shingles int64, err error)) (SegmentEntry, error) {
	return writeSegmentFile(ctx, dir, rel, func(ch *countingHash) (int64, int64, error) {
		b, err := segment.NewBuilder(ch, m.ShingleBits, m.Params.Bands)
		if err != nil {
			return 0, 0, err
		}
		shingles, err := fill(b)
		if err != nil {
			return 0, 0, err
		}
		return int64(b.Docs()), shingles, b.Close()
	})
}

func writeSegmentFile(ctx context.Context, dir, rel string, write func(*countingHash) (docs, shingles int64, err error)) (SegmentEntry, error) {
	out, finish, err := createPartial(ctx, dir, rel)
	if err != nil {
		return SegmentEntry{}, err
	}
	ch := &countingHash{w: out, h: sha256.New()}
	docs, shingles, err := write(ch)
	if err := finish(err); err != nil {
		return SegmentEntry{}, err
	}
	return SegmentEntry{Path: rel, Documents: docs, Shingles: shingles, Bytes: ch.n, SHA256: hex.EncodeToString(ch.h.Sum(nil))}, nil
}

// SegmentName is the file name of the k-th segment written in a generation.
func SegmentName(k int) string { return fmt.Sprintf("segment-%05d.nds", k) }

// mergeSegments writes segments [from, to) of m as one segment dir/rel.
func mergeSegments(ctx context.Context, dir, rel string, m *Manifest, from, to int) (SegmentEntry, error) {
	var rs []*segment.Reader
	defer func() {
		for _, r := range rs {
			r.Close()
		}
	}()
	var docs, shingles int64
	for _, s := range m.Segments[from:to] {
		r, err := openSegment(ctx, dir, s)
		if err != nil {
			return SegmentEntry{}, err
		}
		rs = append(rs, r)
		docs += s.Documents
		shingles += s.Shingles
	}
	return writeSegmentFile(ctx, dir, rel, func(ch *countingHash) (int64, int64, error) {
		return docs, shingles, segment.Merge(ch, rs)
	})
}

// openSegment opens a segment file of the index and checks its size against the entry.
func openSegment(ctx context.Context, dir string, s SegmentEntry) (*segment.Reader, error) {
	r, err := segment.Open(ctx, files.Join(dir, s.Path))
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	if int64(r.Docs()) != s.Documents {
		r.Close()
		return nil, fmt.Errorf("index %s: segment file %s is damaged: %d documents, the manifest says %d; rebuild the index or restore the file", dir, s.Path, r.Docs(), s.Documents)
	}
	return r, nil
}

// tierStart is where the merge after an addition starts: the newest segments are
// merged, from the returned one on, while the next older one holds at most
// MergeFactor times their documents. It returns len(segs)-1 when nothing merges.
func tierStart(segs []SegmentEntry) int {
	i := len(segs) - 1
	if i < 0 {
		return 0
	}
	acc := segs[i].Documents
	for i > 0 && segs[i-1].Documents <= MergeFactor*acc {
		acc += segs[i-1].Documents
		i--
	}
	return i
}

// AddSegment commits the generation after prev with one more segment, written by fill
// into a new generation directory (CommitSegment).
func AddSegment(ctx context.Context, dir string, prev *Manifest, fill func(b *segment.Builder) (int64, error)) (*Manifest, error) {
	gen := prev.GenerationDir()
	e, err := WriteSegment(ctx, dir, gen+"/"+SegmentName(0), prev, fill)
	if err != nil {
		return nil, err
	}
	return CommitSegment(ctx, dir, prev, e)
}

// CommitSegment commits the generation after prev with the segment e (written into
// the directory of prev.GenerationDir()) added, merged with the newest segments as the
// tiering rule says (see MergeFactor).
func CommitSegment(ctx context.Context, dir string, prev *Manifest, e SegmentEntry) (*Manifest, error) {
	next, err := PrepareSegment(ctx, dir, prev, e)
	if err != nil {
		return nil, err
	}
	return next, Commit(ctx, dir, prev, next)
}

// PrepareSegment returns the generation after prev with the segment e added, writing
// the merged segment the tiering rule asks for, but commits nothing.
func PrepareSegment(ctx context.Context, dir string, prev *Manifest, e SegmentEntry) (*Manifest, error) {
	next := prev.WithSegments(len(prev.Segments), len(prev.Segments), e)
	if from := tierStart(next.Segments); from < len(next.Segments)-1 {
		merged, err := mergeSegments(ctx, dir, path.Dir(e.Path)+"/merged-"+path.Base(e.Path), next, from, len(next.Segments))
		if err != nil {
			return nil, err
		}
		if CheckPath(dir, e.Path) == nil {
			fsOp("remove", e.Path)
			files.Remove(ctx, files.Join(dir, e.Path))
		}
		next = prev.WithSegments(from, len(prev.Segments), merged)
	}
	return next, nil
}

// Compact commits the generation after m with all its segments merged into one. An
// index of one segment or none is left as it is.
func Compact(ctx context.Context, dir string, m *Manifest) (*Manifest, error) {
	if len(m.Segments) < 2 {
		return m, nil
	}
	merged, err := mergeSegments(ctx, dir, m.GenerationDir()+"/"+SegmentName(0), m, 0, len(m.Segments))
	if err != nil {
		return nil, err
	}
	next := m.WithSegments(0, len(m.Segments), merged)
	return next, Commit(ctx, dir, m, next)
}
