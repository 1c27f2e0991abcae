// Package pipeline builds neardup's dedup job as one Apache Beam pipeline: read, normalize,
// shingle, collapse exact duplicates, sign, band, verify candidates exactly, label clusters
// with connected components, apply the keep policy and write the outputs. Config holds every
// choice a user can make; Validate checks them all before any pipeline is built.
package pipeline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/neardup/neardup/candidates"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/normalize"
	"github.com/neardup/neardup/pipeline/internal/cluster"
	"github.com/neardup/neardup/pipeline/internal/keep"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/shingle"
)

// ChooseLSH returns (b, r) for an objective.
func ChooseLSH(objective LSHObjective, threshold float64, numPerm int) (lsh.Params, error) {
	switch objective {
	case LSHRecall:
		return lsh.RecallParams(threshold, numPerm, lsh.DefaultRecallMargin, lsh.DefaultRecallTarget)
	case LSHDatasketch:
		return lsh.OptimalParams(threshold, numPerm, 0.5, 0.5)
	}
	return lsh.Params{}, oneOf("--lsh", objective, LSHRecall, LSHDatasketch)
}

// Config is what the user asked for: every choice of a dedup run (Run) or an index
// build (BuildIndex), as the CLI's flags give it or a library user sets it, starting
// from DefaultConfig. Nothing in it is resolved: the input files, their format, the
// layout, the LSH bands and rows and everything else that needs the inputs, the runner
// or the output directory are found when the run is planned.
type Config struct {
	// What is read, and where the outputs go.
	Inputs    []string // files or globs, local, gs:// or s3://
	Output    string   // output directory
	Format    Format
	IDField   string
	TextField string
	Overwrite bool
	// OnDamagedFile is what an input whose stream breaks mid-way does.
	OnDamagedFile OnDamaged
	// InputChunkBytes is the size of the ranges large inputs are read in (byte ranges,
	// Parquet row groups); 0: source.DefaultChunkBytes. Tests split small files with it.
	InputChunkBytes int64
	// MaxRecordBytes is the longest record read; a longer one is rejected without
	// being held (source.Config.MaxRecordBytes); 0: source.DefaultMaxRecordBytes.
	MaxRecordBytes int64

	// The method: what a document's shingles are, how it is signed and banded, and
	// the similarity a duplicate reaches.
	Normalize   normalize.Options
	Shingle     shingle.Options
	MaxShingles int // index rows keep at most this many (the smallest) shingle hashes; dedup signs and verifies whole sets; 0: no cap
	Scheme      minhash.Scheme
	Hash        minhash.HashFunc
	Seed        int64
	NumPerm     int
	Threshold   float64
	LSH         LSHObjective // how (b, r) are chosen when Bands is 0
	Bands       int          // 0: chosen by the LSH objective
	Rows        int

	// Deduplication.
	Measure Measure
	Verify  Verify
	Keep    Keep
	// GiantClusterShare: a cluster holding more than this share of the documents gets a
	// warning (chained false positives are the classic failure); 0 turns it off.
	GiantClusterShare float64
	CC                CC
	CCRounds          int // rounds of CCDistributed
	Partitions        int // hash partitions every shuffle is gathered into
	// BucketAllPairs: LSH buckets of up to this many distinct sets give all their pairs;
	// larger ones are resolved by candidates.Resolve with a budget of BucketComparisons
	// comparisons per distinct set (see candidates).
	BucketAllPairs    int
	BucketComparisons int
	bucketBudgetFloor int // candidates.BudgetFloor; tests lower it to exhaust budgets
	BandSpill         BandSpill
	// SpillDir is the directory spill files go under (--spill-dir); "": the output's
	// temporary directory when it is local, else the system's.
	SpillDir string

	// What is written: the layout of the record outputs and clusters.jsonl, Shards the
	// parts of each sharded output (0: one per input file), Compress the parts'
	// compression.
	Layout         Layout
	Shards         int
	Compress       Compress
	Mode           Mode
	AnnotatePrefix string // ModeAnnotate: prefix of the added field names
	ReportClusters int    // clusters report.html samples

	Against     []string // indexes to deduplicate against (--against); their documents win and are never removed
	UpdateIndex bool     // add the kept documents to the one --against index as a new generation
	Prefer      []string // inputs (globs) whose documents win their clusters over other inputs'

	Quiet bool
	// Warnings receives what the driver has to say about the output directory (a stale
	// lock taken over, leftovers removed); nil: os.Stderr.
	Warnings io.Writer
}

// DefaultConfig returns the defaults the CLI documents.
func DefaultConfig() Config {
	return Config{
		Format:            FormatAuto,
		OnDamagedFile:     DamagedFail,
		IDField:           "id",
		TextField:         "text",
		Shingle:           shingle.Options{Kind: shingle.Word, N: 5},
		Scheme:            minhash.Affine32,
		Hash:              minhash.XXHash,
		Seed:              1,
		NumPerm:           128,
		Threshold:         0.8,
		MaxShingles:       100_000,
		GiantClusterShare: 0.01,
		LSH:               LSHRecall,
		Measure:           MeasureJaccard,
		Verify:            VerifyExact,
		Keep:              KeepSmallestID,
		CC:                CCAuto,
		CCRounds:          12,
		Partitions:        256,
		BucketAllPairs:    candidates.DefaultMaxAll,
		BucketComparisons: candidates.DefaultComparisons,
		bucketBudgetFloor: candidates.BudgetFloor,
		BandSpill:         BandSpillAuto,
		Layout:            LayoutAuto,
		Compress:          CompressNone,
		Mode:              ModeDedup,
		AnnotatePrefix:    sink.DefaultAnnotatePrefix,
		ReportClusters:    report.DefaultClusters,
	}
}

// MaxRecordLimit is the largest --max-record-bytes: a record is held whole by the steps
// that parse, sign and verify it, several times over.
const MaxRecordLimit = 1 << 30

// Validate checks every setting of a dedup run, without I/O and without changing c:
// every error names its flag, all of them at once.
func (c *Config) Validate() error {
	if err := errors.Join(append(c.checkReading(), c.checkMethod()...)...); err != nil {
		return err
	}
	return c.checkDedup()
}

// checkReading checks what is read and where the outputs go.
func (c *Config) checkReading() []error {
	var errs []error
	if len(c.Inputs) == 0 {
		errs = append(errs, errors.New("--input: at least one file or glob is required"))
	}
	if c.Output == "" {
		errs = append(errs, errors.New("--output: an output directory is required"))
	}
	if slices.Contains(c.Inputs, c.Output) && c.Output != "" {
		errs = append(errs, errors.New("--output: must not be one of the --input paths"))
	}
	if c.IDField == "" || c.TextField == "" {
		errs = append(errs, errors.New("--id-field/--text-field: must not be empty"))
	}
	errs = appendErr(errs, oneOf("--format", c.Format, FormatAuto, FormatJSONL, FormatText, FormatParquet))
	errs = appendErr(errs, oneOf("--on-damaged-file", c.OnDamagedFile, DamagedFail, DamagedSkip))
	if c.MaxRecordBytes < 0 || c.MaxRecordBytes > MaxRecordLimit {
		errs = append(errs, fmt.Errorf("--max-record-bytes %d: want a size from 1 byte to %d GiB", c.MaxRecordBytes, MaxRecordLimit>>30))
	}
	return errs
}

// checkMethod checks the shingling, signing and banding settings, and that bands and
// rows can be chosen or fit.
func (c *Config) checkMethod() []error {
	var errs []error
	if err := c.Shingle.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("--ngram/--shingle: %w", err))
	}
	if _, err := minhash.ParseScheme(string(c.Scheme)); err != nil {
		errs = append(errs, fmt.Errorf("--scheme: %w", err))
	}
	if _, err := minhash.ParseHashFunc(string(c.Hash)); err != nil {
		errs = append(errs, fmt.Errorf("--hash: %w", err))
	}
	if c.NumPerm < 2 || c.NumPerm > lsh.MaxNumPerm {
		errs = append(errs, fmt.Errorf("--num-perm: must be from 2 to %d, got %d", lsh.MaxNumPerm, c.NumPerm))
	}
	if err := jaccard.CheckThreshold(c.Threshold); err != nil {
		errs = append(errs, fmt.Errorf("--threshold: %w", err))
	}
	if c.Seed < 0 || c.Seed > math.MaxUint32 {
		// numpy's RandomState, whose permutations datasketch uses, takes only these seeds.
		errs = append(errs, fmt.Errorf("--seed: must be between 0 and 4294967295, got %d", c.Seed))
	}
	if c.MaxShingles < 0 {
		errs = append(errs, fmt.Errorf("--max-shingles: must be 0 (no cap) or positive, got %d", c.MaxShingles))
	}
	errs = appendErr(errs, oneOf("--lsh", c.LSH, LSHRecall, LSHDatasketch))
	if len(errs) > 0 || c.isContainment() {
		return errs // containment chooses its banding per size class (checkDedup)
	}
	if _, _, err := c.bandsRows(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// bandsRows returns the run's LSH bands and rows: Bands and Rows when given, else the
// LSH objective's choice for the threshold and num_perm.
func (c *Config) bandsRows() (bands, rows int, err error) {
	switch {
	case c.Bands == 0 && c.Rows == 0:
		p, err := ChooseLSH(c.LSH, c.Threshold, c.NumPerm)
		if err != nil {
			return 0, 0, fmt.Errorf("--threshold %v with --num-perm %d: %w", c.Threshold, c.NumPerm, err)
		}
		return p.Bands, p.Rows, nil
	case c.Bands < 2 || c.Rows < 1:
		return 0, 0, fmt.Errorf("--bands/--rows: need bands >= 2 and rows >= 1, got %d and %d", c.Bands, c.Rows)
	case c.Bands*c.Rows > c.NumPerm:
		return 0, 0, fmt.Errorf("--bands/--rows: bands*rows = %d exceeds --num-perm %d", c.Bands*c.Rows, c.NumPerm)
	}
	return c.Bands, c.Rows, nil
}

// checkDedup checks what only a dedup run uses.
func (c *Config) checkDedup() error {
	var errs []error
	errs = appendErr(errs, oneOf("--verify", c.Verify, VerifyExact, VerifyEstimate, VerifyNone))
	switch {
	case c.Keep == KeepSmallestID, c.Keep == KeepLongest:
	case cluster.IsKeepField(string(c.Keep)):
		if _, err := keep.ParseField(string(c.Keep)); err != nil {
			errs = append(errs, fmt.Errorf("--keep: %w", err))
		}
	default:
		errs = append(errs, fmt.Errorf("--keep: must be smallest-id, longest or field:NAME:max|min, got %q", c.Keep))
	}
	errs = appendErr(errs, oneOf("--cc", c.CC, CCAuto, CCLocal, CCDistributed))
	errs = appendErr(errs, oneOf("--band-spill", c.BandSpill, BandSpillAuto, BandSpillOff))
	errs = appendErr(errs, oneOf("--layout", c.Layout, LayoutAuto, LayoutSingle, LayoutSharded))
	errs = appendErr(errs, oneOf("--compress", c.Compress, CompressNone, CompressGzip, CompressZstd))
	if c.Layout == LayoutSingle && c.Compress != CompressNone {
		errs = append(errs, fmt.Errorf("--compress %s: compresses the parts of --layout sharded, and --layout single writes one plain file per output: drop one of the two", c.Compress))
	}
	if !(c.GiantClusterShare >= 0 && c.GiantClusterShare <= 1) {
		errs = append(errs, fmt.Errorf("--giant-cluster-share: must be in [0, 1], got %v", c.GiantClusterShare))
	}
	if c.Partitions < 1 {
		errs = append(errs, fmt.Errorf("--partitions: must be at least 1, got %d", c.Partitions))
	}
	if c.BucketAllPairs < 1 {
		errs = append(errs, fmt.Errorf("--bucket-all-pairs: must be at least 1, got %d", c.BucketAllPairs))
	}
	if c.BucketComparisons < 1 {
		errs = append(errs, fmt.Errorf("--bucket-comparisons: must be at least 1, got %d", c.BucketComparisons))
	}
	if c.ReportClusters < 0 {
		errs = append(errs, fmt.Errorf("--report-clusters: must be 0 or more, got %d", c.ReportClusters))
	}
	if c.Shards < 0 {
		errs = append(errs, fmt.Errorf("--shards: must be 0 (one per input file) or positive, got %d", c.Shards))
	}
	if c.CCRounds < 1 {
		errs = append(errs, fmt.Errorf("--cc-rounds: must be at least 1, got %d", c.CCRounds))
	}
	if len(c.Against) > maxIndexes {
		errs = append(errs, fmt.Errorf("--against: at most %d indexes, got %d", maxIndexes, len(c.Against)))
	}
	if c.UpdateIndex && len(c.Against) != 1 {
		errs = append(errs, fmt.Errorf("--update-index: needs exactly one --against index to update, got %d", len(c.Against)))
	}
	errs = appendErr(errs, c.validateMode())
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return c.validateMeasure()
}

// appendErr appends err to errs unless it is nil.
func appendErr(errs []error, err error) []error {
	if err != nil {
		errs = append(errs, err)
	}
	return errs
}

// estimateFloor sits four standard deviations of the MinHash estimator (sqrt(t(1-t)/k))
// under the threshold. Candidates estimated below it are counted (estimate_filtered),
// not dropped: an estimate filter would lose a pair at the threshold with probability
// about 1e-4 and save only a merge of two sets already in hand.
func (c *Config) estimateFloor() float64 {
	t := c.Threshold
	return t - 4*math.Sqrt(t*(1-t)/float64(c.NumPerm))
}
