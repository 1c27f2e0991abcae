package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/neardup/neardup/io/layout"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline/internal/cluster"
	"github.com/neardup/neardup/pipeline/internal/pairs"
)

// The enumerated settings of Config. Each is a string type whose constants are the
// names the CLI's flags take, so that a library user sets them with the constants below
// and a flag sets them by name; Validate refuses any other value, naming the flag.

// Format is the input format (--format).
type Format string

const (
	FormatAuto    Format = source.FormatAuto // by file name, per file (default)
	FormatJSONL   Format = source.FormatJSONL
	FormatText    Format = source.FormatText // one document per line
	FormatParquet Format = source.FormatParquet
)

// OnDamaged is what a run does with an input whose stream breaks mid-way
// (--on-damaged-file): a truncated or corrupt .gz/.zst, an unreadable Parquet page, a
// failed remote read. The records after the break cannot be counted, so they can be in
// no output.
type OnDamaged string

const (
	// DamagedFail stops the run, naming the file, its last good line and the byte
	// offset of the break, before any output is committed (default).
	DamagedFail OnDamaged = "fail"
	// DamagedSkip keeps what was read before the break, records the file in
	// rejected.jsonl and stats.json, and warns.
	DamagedSkip OnDamaged = "skip"
)

// LSHObjective is how bands and rows are chosen from the threshold and num_perm (--lsh).
type LSHObjective string

const (
	LSHRecall     LSHObjective = "recall"     // pairs at threshold+0.05 found with probability ≥ 0.99 (default)
	LSHDatasketch LSHObjective = "datasketch" // datasketch's choice, minimizing 0.5·FP + 0.5·FN
)

// Measure is what similarity --threshold applies to (--measure).
type Measure string

const (
	MeasureJaccard     Measure = "jaccard"     // |A∩B| / |A∪B|; clusters are connected components (default)
	MeasureContainment Measure = "containment" // |A∩B| / |A| for the smaller A; A is removed into B's cluster
)

// Verify is how a candidate pair is decided (--verify).
type Verify string

const (
	VerifyExact    Verify = pairs.Exact    // exact Jaccard of the shingle-hash sets (default)
	VerifyEstimate Verify = pairs.Estimate // the MinHash estimate
	VerifyNone     Verify = pairs.None     // every LSH candidate is a duplicate
)

// Keep is which member of a cluster is kept (--keep): KeepSmallestID, KeepLongest, or
// a field's largest or smallest value (KeepField).
type Keep string

const (
	KeepSmallestID Keep = cluster.KeepSmallestID // default
	KeepLongest    Keep = cluster.KeepLongest
)

// KeepField keeps the member whose top-level field name holds the largest value (max)
// or the smallest; a member without it loses, ties go to the smallest id.
func KeepField(name string, max bool) Keep {
	end := ":min"
	if max {
		end = ":max"
	}
	return Keep(cluster.KeepFieldPrefix + name + end)
}

// CC is how connected components are found (--cc).
type CC string

const (
	// CCAuto is CCLocal when the workers run in this process, where the verified edges
	// are already in its memory, or when one worker holds the union-find's nodes for the
	// inputs' documents (plan.resolveCC), and CCDistributed otherwise (default).
	// Containment is decided in one worker.
	CCAuto        CC = "auto"
	CCLocal       CC = cluster.Local       // union-find over the verified edges, streamed through one worker
	CCDistributed CC = cluster.Distributed // large-star/small-star rounds
)

// BandSpill is whether the band entries go through local files instead of the runner's
// shuffle (--band-spill). They are the job's largest shuffle, and the embedded runner
// holds a shuffle several times over; spilled by partition they cost their bytes on disk
// once. That needs every worker to see the same disk, which is true exactly when the
// workers run in this process.
type BandSpill string

const (
	BandSpillAuto BandSpill = "auto" // spill when the workers run in this process (default)
	BandSpillOff  BandSpill = "off"  // always through the runner's shuffle
)

// Layout is how the record outputs and clusters.jsonl are laid out (--layout;
// docs/outputs.md).
type Layout string

const (
	LayoutAuto    Layout = layout.Auto    // single when the workers run in this process, else sharded (default)
	LayoutSingle  Layout = layout.Single  // one file per output
	LayoutSharded Layout = layout.Sharded // a directory of parts per output
)

// Compress is the compression of a sharded layout's parts (--compress).
type Compress string

const (
	CompressNone Compress = layout.None
	CompressGzip Compress = layout.Gzip
	CompressZstd Compress = layout.Zstd
)

// Mode is what dedup writes (--mode).
type Mode string

const (
	ModeDedup    Mode = "dedup"    // kept and removed records (default)
	ModeAnnotate Mode = "annotate" // every record, with its cluster fields added
)

// oneOf returns an error naming flag unless v is one of names.
func oneOf[T ~string](flag string, v T, names ...T) error {
	if slices.Contains(names, v) {
		return nil
	}
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	list := strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
	return fmt.Errorf("%s: must be %s, got %q", flag, list, v)
}
