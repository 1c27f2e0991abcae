// Package sink writes neardup's outputs: kept records (byte-identical to the input; for
// Parquet, the input's rows with its schema), removed records with their cluster and
// similarity, and rejected records with their reason. It does not receive record bytes
// through the pipeline: it re-reads the input files and routes each line (row) by its
// record.Decision or record.Rejected, so the corpus is never shuffled and kept output is
// the input's own records.
//
// Everything is written under a temporary directory; Commit moves the finished files into
// place only after the pipeline has succeeded, so an interrupted run leaves nothing that
// looks finished.
package sink

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
)

// Output file names.
const (
	KeptJSONL = "kept.jsonl"
	KeptText  = "kept.txt"
	// KeptParquet holds the kept rows of Parquet inputs, with all their columns.
	KeptParquet = "kept.parquet"
	Removed     = "removed.jsonl"
	Rejected    = "rejected.jsonl"
	// ReportTexts is not an output: for JSONL inputs, Write also copies here, in the
	// temporary directory, the kept lines whose texts report.html may show
	// (record.Decision.Shown), so that the report reads a file the size of the clusters,
	// not the corpus. Commit does not move it.
	ReportTexts = "report-texts.jsonl"
)

// MaxRejectedRecord caps the bytes of a rejected line copied into rejected.jsonl; longer
// lines are cut (at a UTF-8 boundary) and marked "truncated": true.
const MaxRejectedRecord = 64 << 10

// WriteConfig says where and how Write writes.
type WriteConfig struct {
	TempDir string // where the outputs are written until Commit; under the output dir
	// Format is the inputs' resolved format, "jsonl", "text" or "parquet"
	// (source.OutputFormat). It names the kept file and decides how a removed record is
	// embedded.
	Format string
	// IDField and TextField are the JSONL field names the records were read with. The
	// sink copies records whole and does not parse them again; the fields are carried for
	// symmetry with source.Config.
	IDField, TextField string
	// Annotate, when not empty, selects --mode annotate and is the prefix of the added
	// field names (DefaultAnnotatePrefix): every readable record is written, in input
	// order, to AnnotatedName(Format) with its cluster fields, instead of kept and removed.
	Annotate string
}

// KeptName is the kept output's name for a format: kept.txt for text, kept.parquet for
// Parquet, kept.jsonl otherwise.
func KeptName(format string) string {
	switch format {
	case source.FormatText:
		return KeptText
	case source.FormatParquet:
		return KeptParquet
	}
	return KeptJSONL
}

// OutputNames lists the files Write produces for a format, for Commit.
func OutputNames(format string) []string {
	return []string{KeptName(format), Removed, Rejected}
}

// AnnotateOutputNames lists the files Write produces in annotate mode, for Commit.
func AnnotateOutputNames(format string) []string {
	return []string{AnnotatedName(format), Rejected}
}

// NewTempDir returns a fresh temporary directory name under outDir. The leading dot and the
// random suffix keep it from being mistaken for output or colliding with a concurrent run.
func NewTempDir(outDir string) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	return files.Join(outDir, ".neardup-tmp-"+hex.EncodeToString(b[:]))
}

// Commit moves each named output from tempDir into outDir (replacing an older one), then
// removes tempDir. The driver calls it only after the pipeline succeeded.
//
// On local disk an older output is first moved into tempDir and deleted with it, several
// files at a time. Renaming over it made the kernel write the new file out (ext4's
// safeguard for replace-by-rename) and drop the old file's pages on the spot, one file
// after the other: 80 ms for a 100 MB kept.jsonl. A single 100k-document run now ends
// about 2% sooner; the new files are written out by the kernel's flusher afterwards, as
// they always were into an empty directory.
func Commit(ctx context.Context, tempDir, outDir string, names []string) error {
	for _, n := range names {
		to := files.Join(outDir, n)
		aside, err := setAside(tempDir, to, n)
		if err != nil {
			return fmt.Errorf("commit %s: %w", n, err)
		}
		if err := files.Rename(ctx, files.Join(tempDir, n), to); err != nil {
			if aside != "" {
				os.Rename(aside, to) // best effort: the older output stays where it was
			}
			return fmt.Errorf("commit %s: %w", n, err)
		}
	}
	if err := files.RemoveAll(ctx, tempDir); err != nil {
		return fmt.Errorf("commit: clean up: %w", err)
	}
	return nil
}

// setAside moves the local file path, an older output named name, into tempDir and
// returns where it went ("" when there was none, or path is not local).
func setAside(tempDir, path, name string) (string, error) {
	if !files.IsLocal(path) {
		return "", nil
	}
	aside := filepath.Join(tempDir, ".replaced-"+name)
	switch err := os.Rename(path, aside); {
	case err == nil:
		return aside, nil
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	default:
		return "", err
	}
}
