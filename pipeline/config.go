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

	"github.com/neardup/neardup/candidates"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/io/layout"
	"github.com/neardup/neardup/io/sink"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/normalize"
	"github.com/neardup/neardup/pipeline/internal/cluster"
	"github.com/neardup/neardup/pipeline/internal/indexwrite"
	"github.com/neardup/neardup/pipeline/internal/keep"
	"github.com/neardup/neardup/pipeline/internal/pairs"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/shingle"
)

// LSH objectives: how bands and rows are chosen from the threshold and num_perm.
const (
	LSHRecall     = "recall"     // detect pairs at threshold+0.05 with probability ≥ 0.99 (default)
	LSHDatasketch = "datasketch" // datasketch's choice, minimizing 0.5·FP + 0.5·FN
)

// ChooseLSH returns (b, r) for an objective.
func ChooseLSH(objective string, threshold float64, numPerm int) (lsh.Params, error) {
	switch objective {
	case LSHRecall:
		return lsh.RecallParams(threshold, numPerm, lsh.DefaultRecallMargin, lsh.DefaultRecallTarget)
	case LSHDatasketch:
		return lsh.OptimalParams(threshold, numPerm, 0.5, 0.5)
	}
	return lsh.Params{}, fmt.Errorf("--lsh: must be recall or datasketch, got %q", objective)
}

// Config is everything a dedup run depends on.
type Config struct {
	Inputs    []string // files or globs, local or gs://
	Output    string   // output directory
	Format    string   // auto, jsonl, text
	IDField   string
	TextField string
	Overwrite bool
	// OnDamagedFile is DamagedFail or DamagedSkip (checks.go).
	OnDamagedFile string
	// InputChunkBytes is the size of the ranges large inputs are read in (byte ranges,
	// Parquet row groups); 0: source.DefaultChunkBytes. Tests split small files with it.
	InputChunkBytes int64

	Normalize   normalize.Options
	Shingle     shingle.Options
	MaxShingles int // index rows keep at most this many (the smallest) shingle hashes; dedup signs and verifies whole sets; 0: no cap

	// GiantClusterShare: a cluster holding more than this share of the documents gets a
	// warning (chained false positives are the classic failure); 0 turns it off.
	GiantClusterShare float64

	Scheme    minhash.Scheme
	Hash      minhash.HashFunc
	Seed      int64
	NumPerm   int
	Threshold float64
	LSH       string // how (b, r) are chosen when Bands is 0: LSHRecall or LSHDatasketch
	Bands     int    // 0: chosen by the LSH objective
	Rows      int

	// Measure is MeasureJaccard ("" too) or MeasureContainment (measure.go).
	Measure    string
	Verify     string
	Keep       string
	CC         string // CCAuto, cluster.Local or cluster.Distributed
	CCRounds   int    // rounds of CCDistributed
	Partitions int    // hash partitions every shuffle is gathered into (see partition.go)
	// BucketAllPairs: LSH buckets of up to this many distinct sets give all their pairs;
	// larger ones are resolved by candidates.Resolve with a budget of BucketComparisons
	// comparisons per distinct set (see candidates).
	BucketAllPairs    int
	BucketComparisons int
	bucketBudgetFloor int // candidates.BudgetFloor; tests lower it to exhaust budgets
	// BandSpill is BandSpillAuto or BandSpillOff: whether the band entries go through
	// local files instead of the runner's shuffle (see spill.go).
	BandSpill string
	// SpillDir is the directory spill files go under (--spill-dir); "": the output's
	// temporary directory when it is local, else the system's (spill.go).
	SpillDir string
	Quiet    bool
	// Warnings receives what the driver has to say about the output directory (a stale
	// lock taken over, leftovers removed); nil: os.Stderr.
	Warnings io.Writer

	// Layout is how the record outputs and clusters.jsonl are laid out: layout.Auto,
	// Single or Sharded (layout.go). Shards is the parts of each sharded output (0: one
	// per input file); Compress the parts' compression.
	Layout   string
	Shards   int
	Compress string

	Mode           string // ModeDedup or ModeAnnotate
	AnnotatePrefix string // ModeAnnotate: prefix of the added field names
	ReportClusters int    // clusters report.html samples

	Against     []string // indexes to deduplicate against (--against); their documents win and are never removed
	UpdateIndex bool     // add the kept documents to the one --against index as a new generation
	Prefer      []string // inputs (globs) whose documents win their clusters over other inputs'

	indexes    []*index.Manifest  // the opened Against indexes (OpenIndexes)
	preferred  []string           // Prefer, expanded
	indexWrite *indexwrite.Target // where UpdateIndex writes
	spillDir   string             // where featurize spills band entries; "": through the runner
	layout     string             // Layout resolved (resolveLayout)
	shards     int                // Shards resolved
	// containment is the size-class banding of MeasureContainment, chosen by Validate.
	containment *lsh.ContainmentScheme
}

// DefaultConfig returns the defaults the CLI documents.
func DefaultConfig() Config {
	return Config{
		Format:            "auto",
		OnDamagedFile:     damagedFail,
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
		Verify:            pairs.Exact,
		Keep:              cluster.KeepSmallestID,
		CC:                ccAuto,
		CCRounds:          12,
		Partitions:        256,
		BucketAllPairs:    candidates.DefaultMaxAll,
		BucketComparisons: candidates.DefaultComparisons,
		bucketBudgetFloor: candidates.BudgetFloor,
		BandSpill:         bandSpillAuto,
		Layout:            layout.Auto,
		Compress:          layout.None,
		Mode:              modeDedup,
		AnnotatePrefix:    sink.DefaultAnnotatePrefix,
		ReportClusters:    report.DefaultClusters,
	}
}

// Validate checks the configuration and fills in the LSH parameters when they were not
// given. Every error names the flag at fault.
func (c *Config) Validate() error {
	var errs []error
	if len(c.Inputs) == 0 {
		errs = append(errs, errors.New("--input: at least one file or glob is required"))
	}
	if c.Output == "" {
		errs = append(errs, errors.New("--output: an output directory is required"))
	}
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
	if !(c.Threshold > 0 && c.Threshold <= 1) || math.IsNaN(c.Threshold) {
		errs = append(errs, fmt.Errorf("--threshold: must be in (0, 1], got %v", c.Threshold))
	}
	switch c.Verify {
	case pairs.Exact, pairs.Estimate, pairs.None:
	default:
		errs = append(errs, fmt.Errorf("--verify: must be exact, estimate or none, got %q", c.Verify))
	}
	switch {
	case c.Keep == cluster.KeepSmallestID, c.Keep == cluster.KeepLongest:
	case cluster.IsKeepField(c.Keep):
		if _, err := keep.ParseField(c.Keep); err != nil {
			errs = append(errs, fmt.Errorf("--keep: %w", err))
		}
	default:
		errs = append(errs, fmt.Errorf("--keep: must be smallest-id, longest or field:NAME:max|min, got %q", c.Keep))
	}
	switch c.CC {
	case ccAuto, cluster.Local, cluster.Distributed:
	default:
		errs = append(errs, fmt.Errorf("--cc: must be auto, local or distributed, got %q", c.CC))
	}
	if c.MaxShingles < 0 {
		errs = append(errs, fmt.Errorf("--max-shingles: must be 0 (no cap) or positive, got %d", c.MaxShingles))
	}
	if !(c.GiantClusterShare >= 0 && c.GiantClusterShare <= 1) {
		errs = append(errs, fmt.Errorf("--giant-cluster-share: must be in [0, 1], got %v", c.GiantClusterShare))
	}
	if c.Partitions < 1 {
		errs = append(errs, fmt.Errorf("--partitions: must be at least 1, got %d", c.Partitions))
	}
	if c.BandSpill != bandSpillAuto && c.BandSpill != bandSpillOff {
		errs = append(errs, fmt.Errorf("--band-spill: must be auto or off, got %q", c.BandSpill))
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
	if err := layout.Check(c.Layout, c.Compress); err != nil {
		errs = append(errs, err)
	}
	if c.Shards < 0 {
		errs = append(errs, fmt.Errorf("--shards: must be 0 (one per input file) or positive, got %d", c.Shards))
	}
	if c.CCRounds < 1 {
		errs = append(errs, fmt.Errorf("--cc-rounds: must be at least 1, got %d", c.CCRounds))
	}
	if err := c.validateMode(); err != nil {
		errs = append(errs, err)
	}
	if c.IDField == "" || c.TextField == "" {
		errs = append(errs, errors.New("--id-field/--text-field: must not be empty"))
	}
	errs = append(errs, c.checkChoices()...)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if c.isContainment() {
		return c.validateMeasure()
	}
	if err := c.validateMeasure(); err != nil {
		return err
	}
	switch {
	case c.Bands == 0 && c.Rows == 0:
		p, err := ChooseLSH(c.LSH, c.Threshold, c.NumPerm)
		if err != nil {
			return fmt.Errorf("--threshold %v with --num-perm %d: %w", c.Threshold, c.NumPerm, err)
		}
		c.Bands, c.Rows = p.Bands, p.Rows
	case c.Bands < 2 || c.Rows < 1:
		return fmt.Errorf("--bands/--rows: need bands >= 2 and rows >= 1, got %d and %d", c.Bands, c.Rows)
	case c.Bands*c.Rows > c.NumPerm:
		return fmt.Errorf("--bands/--rows: bands*rows = %d exceeds --num-perm %d", c.Bands*c.Rows, c.NumPerm)
	}
	return nil
}

// estimateFloor sits four standard deviations of the MinHash estimator (sqrt(t(1-t)/k))
// under the threshold. Candidates estimated below it are counted (estimate_filtered),
// not dropped: an estimate filter would lose a pair at the threshold with probability
// about 1e-4 and save only a merge of two sets already in hand.
func (c *Config) estimateFloor() float64 {
	t := c.Threshold
	return t - 4*math.Sqrt(t*(1-t)/float64(c.NumPerm))
}
