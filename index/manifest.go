// Package index is neardup's on-disk index of already-published documents: what `neardup
// index` writes and `neardup dedup --against` reads. An index is a directory (local or
// gs://) holding Parquet shard files and one manifest.json. The manifest records the method
// parameters the shingle hashes were made with (a run with other parameters cannot use
// them), the document count and every shard file with its size and SHA-256, so a damaged,
// truncated or half-written index is refused instead of silently deduplicating against
// part of it.
//
// Each shard holds the documents whose id hashes to it (ShardOf), sorted by id, one row
// per document: its id and its sorted, distinct 64-bit shingle hashes (capped by
// max_shingles, as the pipeline caps them). That is all exact verification needs, so the
// original corpus may be deleted or moved.
//
// Generations: an update writes the changed shards under a new generation directory and
// then replaces manifest.json in one atomic step (a rename locally, a single object write
// on gs://). A reader reads the manifest once and then only the files it names, so it sees
// the old generation or the new one, never a mix. Files of older generations are deleted
// once no manifest newer than the previous one refers to them.
package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/neardup/neardup/io/files"
)

// Format identifies an index manifest; FormatVersion changes whenever the layout does.
const (
	Format        = "neardup-index"
	FormatVersion = 1 // Parquet shards (Files)
	// FormatSegments is the version of an index of segment files (Segments): see lsm.go.
	FormatSegments = 2
	ManifestName   = "manifest.json"
)

// Params are the method parameters an index was built with. Two runs can share an index
// only when they agree on every one of them.
type Params struct {
	NumPerm   int     `json:"num_perm"`
	Scheme    string  `json:"scheme"`
	Hash      string  `json:"hash"`
	Seed      int64   `json:"seed"`
	Bands     int     `json:"b"`
	Rows      int     `json:"r"`
	Threshold float64 `json:"threshold"`
	Shingle   string  `json:"shingle"` // word or char
	NGram     int     `json:"ngram"`
	// Normalization names the text normalization: "nfkc,lower,whitespace" and
	// ",strip-punct" when punctuation is stripped.
	Normalization string `json:"normalization"`
	MaxShingles   int    `json:"max_shingles"`
}

// Mismatches lists, in manifest order, every parameter on which the index (p) and a run
// (run) differ, as "name: index X, this run Y".
func (p Params) Mismatches(run Params) []string {
	type field struct {
		name       string
		index, now string
	}
	f := func(v any) string { return fmt.Sprint(v) }
	fields := []field{
		{"num_perm", f(p.NumPerm), f(run.NumPerm)},
		{"scheme", p.Scheme, run.Scheme},
		{"hash", p.Hash, run.Hash},
		{"seed", f(p.Seed), f(run.Seed)},
		{"b", f(p.Bands), f(run.Bands)},
		{"r", f(p.Rows), f(run.Rows)},
		{"threshold", strconv.FormatFloat(p.Threshold, 'g', -1, 64), strconv.FormatFloat(run.Threshold, 'g', -1, 64)},
		{"shingle", p.Shingle, run.Shingle},
		{"ngram", f(p.NGram), f(run.NGram)},
		{"normalization", p.Normalization, run.Normalization},
		{"max_shingles", f(p.MaxShingles), f(run.MaxShingles)},
	}
	var out []string
	for _, x := range fields {
		if x.index != x.now {
			out = append(out, fmt.Sprintf("%s: index %s, this run %s", x.name, x.index, x.now))
		}
	}
	return out
}

// MismatchError is returned when a run's parameters differ from an index's.
type MismatchError struct {
	Index      string
	Mismatches []string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("index %s was built with other method flags; rerun with the index's values or rebuild it:\n  %s",
		e.Index, strings.Join(e.Mismatches, "\n  "))
}

// CheckParams returns a *MismatchError naming every difference, or nil.
func (m *Manifest) CheckParams(dir string, run Params) error {
	if mm := m.Params.Mismatches(run); len(mm) > 0 {
		return &MismatchError{Index: dir, Mismatches: mm}
	}
	return nil
}

// FileEntry is one shard file of a generation.
type FileEntry struct {
	Shard    int    `json:"shard"`
	Path     string `json:"path"` // relative to the index directory
	Rows     int64  `json:"rows"`
	Shingles int64  `json:"shingles"`
	Bytes    int64  `json:"bytes"`
	SHA256   string `json:"sha256"`
}

// Manifest is manifest.json.
type Manifest struct {
	Format        string      `json:"format"`
	FormatVersion int         `json:"format_version"`
	Generation    int         `json:"generation"`
	Params        Params      `json:"params"`
	Shards        int         `json:"shards"`
	Documents     int64       `json:"documents"`
	Shingles      int64       `json:"shingles"`
	Files         []FileEntry `json:"files"` // by shard; shards without documents have no file
	// Segments, in format version 2, are the segment files, oldest first.
	Segments []SegmentEntry `json:"segments,omitempty"`
	// ShingleBits, in format version 2, is the width of the stored shingle hashes.
	ShingleBits int `json:"shingle_bits,omitempty"`
	// Retired are the files the previous generation named that this one does not:
	// readers of that generation may still use them, so they are deleted when the
	// generation after this one is committed. Only files a manifest names are deleted.
	Retired []string `json:"retired,omitempty"`
}

// ReadManifest reads dir's manifest. A missing manifest, one that is not JSON, one of
// another format or version, or one naming a path outside dir (CheckPaths) is an error
// naming the index, and so is a local dir or manifest that is a symlink (CheckDir).
func ReadManifest(ctx context.Context, dir string) (*Manifest, error) {
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	path := files.Join(dir, ManifestName)
	if err := noSymlinks(dir, ManifestName); err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	r, err := files.Open(ctx, path)
	if err != nil {
		if files.IsLocal(path) && !errors.Is(err, os.ErrNotExist) {
			if _, serr := os.Stat(path); serr == nil {
				return nil, fmt.Errorf("index %s: read %s: %w", dir, ManifestName, err)
			}
		}
		return nil, fmt.Errorf("index %s: no %s (not a neardup index, or its first generation was never completed)", dir, ManifestName)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("index %s: read %s: %w", dir, ManifestName, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("index %s: %s is damaged: %v", dir, ManifestName, err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("index %s: %s is not a neardup index manifest (format %q)", dir, ManifestName, m.Format)
	}
	if m.FormatVersion != FormatVersion && m.FormatVersion != FormatSegments {
		return nil, fmt.Errorf("index %s: format version %d, this neardup reads versions %d and %d", dir, m.FormatVersion, FormatVersion, FormatSegments)
	}
	if err := m.checkSegments(dir); err != nil {
		return nil, err
	}
	if m.Shards < 1 {
		return nil, fmt.Errorf("index %s: %s is damaged: shards %d", dir, ManifestName, m.Shards)
	}
	if err := m.CheckPaths(dir); err != nil {
		return nil, err
	}
	return &m, nil
}

// Verify checks every shard file against the manifest: present, of the recorded size and
// SHA-256. It reads the whole index once.
func (m *Manifest) Verify(ctx context.Context, dir string) error {
	if m.Segmented() {
		return m.verifySegments(ctx, dir)
	}
	var rows int64
	for _, f := range m.Files {
		path := files.Join(dir, f.Path)
		n, sum, err := hashFile(ctx, path)
		if err != nil {
			return fmt.Errorf("index %s: shard file %s is missing or unreadable: %w", dir, f.Path, err)
		}
		if n != f.Bytes {
			return fmt.Errorf("index %s: shard file %s is damaged: %d bytes, the manifest says %d (truncated or partially written); rebuild the index or restore the file",
				dir, f.Path, n, f.Bytes)
		}
		if sum != f.SHA256 {
			return fmt.Errorf("index %s: shard file %s is damaged: its SHA-256 is %s, the manifest says %s; rebuild the index or restore the file",
				dir, f.Path, sum, f.SHA256)
		}
		rows += f.Rows
	}
	if rows != m.Documents {
		return fmt.Errorf("index %s: %s is damaged: its files hold %d rows, it says %d documents", dir, ManifestName, rows, m.Documents)
	}
	return nil
}

func hashFile(ctx context.Context, path string) (int64, string, error) {
	r, err := files.Open(ctx, path)
	if err != nil {
		return 0, "", err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return n, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Open reads dir's manifest, checks it against the run's parameters and verifies every
// shard file. Errors: a *MismatchError for parameters, a plain error for anything damaged.
func Open(ctx context.Context, dir string, run Params) (*Manifest, error) {
	m, err := ReadManifest(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := m.CheckParams(dir, run); err != nil {
		return nil, err
	}
	if err := m.Verify(ctx, dir); err != nil {
		return nil, err
	}
	return m, nil
}

// ShardPaths lists the shard files' full paths, in shard order.
func (m *Manifest) ShardPaths(dir string) []string {
	out := make([]string, len(m.Files))
	for i, f := range m.Files {
		out[i] = files.Join(dir, f.Path)
	}
	return out
}
