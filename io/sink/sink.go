// Package sink writes neardup's outputs: kept records (byte-identical to the input; for
// Parquet, the input's rows with its schema), removed records with their cluster and
// similarity, and rejected records with their reason. It does not receive record bytes
// through the pipeline: it re-reads the input files and routes each line (row) by its
// record.Decision or record.Rejected, so the corpus is never shuffled and kept output is
// the input's own records.
//
// Everything is written under a temporary directory; the driver publishes the finished
// files (io/commit) only after the pipeline has succeeded, so an interrupted run leaves
// nothing that looks finished.
package sink

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

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
	// not the corpus. It is not committed.
	ReportTexts = "report-texts.jsonl"
)

// MaxRejectedRecord caps the bytes of a rejected line copied into rejected.jsonl; longer
// lines are cut (at a UTF-8 boundary) and marked "truncated": true.
const MaxRejectedRecord = 64 << 10

// WriteConfig says where and how Write writes.
type WriteConfig struct {
	TempDir string // where the outputs are written until the commit; under the output dir
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
	// Shards, when positive, selects the sharded layout: kept (annotated) and removed
	// are each Shards parts (layout.Part), compressed by Compress, the input files
	// Files cut into Shards runs of consecutive files. 0: one file each.
	Shards   int
	Compress string
	// Files are the input files; a Parquet output without rows gets the first one's
	// schema.
	Files []string
	// MaxRecordBytes is the record size limit the inputs were read with
	// (source.Config.MaxRecordBytes; 0: the default). The re-read must use the same one
	// to find the same lines, and so never holds a line the source rejected as too long.
	MaxRecordBytes int64
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

// OutputNames lists the files Write produces for a format, to commit.
func OutputNames(format string) []string {
	return []string{KeptName(format), Removed, Rejected}
}

// AllOutputNames lists every file Write may produce, in any mode and format: the names
// an --overwrite commit replaces.
func AllOutputNames() []string {
	return []string{KeptJSONL, KeptText, KeptParquet, Removed, Rejected, AnnotatedJSONL, AnnotatedParquet}
}

// AnnotateOutputNames lists the files Write produces in annotate mode, to commit.
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
