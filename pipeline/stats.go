package pipeline

import (
	"fmt"
	"github.com/neardup/neardup/io/source"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/internal/spill"
	"github.com/neardup/neardup/pipeline/internal/cluster"
	"github.com/neardup/neardup/pipeline/internal/elem"
)

// Stats is stats.json. Everything but Timings is a deterministic function of the input
// and the flags.
type Stats struct {
	Parameters          parameters       `json:"parameters"`
	Inputs              []string         `json:"inputs"`
	Counts              map[string]int64 `json:"counts"`
	ConnectedComponents ccStats          `json:"connected_components"`
	LargestCluster      int64            `json:"largest_cluster"`
	ClusterSizes        map[string]int64 `json:"cluster_sizes"`
	Warnings            []string         `json:"warnings"`
	// DamagedFiles and RecordsAfterDamage ("unknown") are set when inputs broke mid-way
	// under --on-damaged-file skip (damaged.go).
	DamagedFiles       []damagedFile `json:"damaged_files,omitempty"`
	RecordsAfterDamage string        `json:"records_after_damage,omitempty"`

	Detection map[string]float64 `json:"detection_probability"`
	Timings   map[string]float64 `json:"timings"`
	// Resources, like Timings, vary from run to run.
	Resources resources `json:"resources"`
}

// resources are what the run took of the machine it was launched on.
type resources struct {
	// PeakRSSBytes is the launching process's peak resident memory (getrusage): the
	// whole job's when the workers run in this process.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// SpilledBytes is what the run wrote to spill files (internal/spill).
	SpilledBytes int64 `json:"spilled_bytes"`
}

// measureResources reads the process's peak RSS and the bytes spilled since spilled0
// (spill.Written at the run's start).
func measureResources(spilled0 int64) resources {
	return resources{PeakRSSBytes: peakRSS(), SpilledBytes: spill.Written() - spilled0}
}

// peakRSS is this process's peak resident memory: VmHWM, the high-water mark of its own
// address space. getrusage's ru_maxrss is not: Linux carries it across exec, so a process
// started by a larger one reports that one's size at the fork.
func peakRSS() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss << 10
}

// parameters are the settings that decide the result.
type parameters struct {
	NumPerm   int     `json:"num_perm"`
	Scheme    string  `json:"scheme"`
	Hash      string  `json:"hash"`
	Seed      int64   `json:"seed"`
	LSH       string  `json:"lsh"`
	Bands     int     `json:"b"`
	Rows      int     `json:"r"`
	Threshold float64 `json:"threshold"`
	// Measure and Containment are set under --measure containment only.
	Measure           string             `json:"measure,omitempty"`
	Containment       []containmentGroup `json:"containment_groups,omitempty"`
	ContainmentSample *containmentSample `json:"containment_sample,omitempty"`
	NGram             int                `json:"ngram"`
	Shingle           string             `json:"shingle"`
	StripPunct        bool               `json:"strip_punct"`
	Verify            string             `json:"verify"`
	Keep              string             `json:"keep"`
	Partitions        int                `json:"partitions"`
	// BucketAllPairs is the largest LSH bucket (distinct sets) whose pairs are all checked.
	BucketAllPairs int `json:"bucket_all_pairs"`
	// BucketComparisons is the comparison budget per distinct set of a larger bucket.
	BucketComparisons int `json:"bucket_comparisons"`
	// EstimateFloor is the estimate below which --verify exact skips a candidate.
	EstimateFloor float64 `json:"estimate_floor"`
	MaxShingles   int     `json:"max_shingles"`
	// The fields the records were read by (the report finds the texts with them).
	IDField   string `json:"id_field"`
	TextField string `json:"text_field"`
	// MaxRecordBytes is the record size limit the inputs were read with (the report
	// re-reads them with it).
	MaxRecordBytes int64 `json:"max_record_bytes"`
}

// containmentGroup is the banding of the pairs whose size classes (powers of two) are
// ClassDistance apart, under --measure containment (lsh.containmentGroup).
type containmentGroup struct {
	ClassDistance int     `json:"class_distance"`
	MaxSizeRatio  float64 `json:"max_size_ratio"`
	JaccardFloor  float64 `json:"jaccard_floor"`
	Bands         int     `json:"b"`
	Rows          int     `json:"r"`
}

// containmentSample is the sampling of the pairs whose size classes are at least
// FromClassDistance apart, up to MaxSizeRatio, under --measure containment
// (lsh.ContainmentSample): a set of n shingles meets its containers through the
// shingles hashed under Rate/n.
type containmentSample struct {
	FromClassDistance int     `json:"from_class_distance"`
	MaxSizeRatio      float64 `json:"max_size_ratio"`
	Rate              float64 `json:"rate"`
}

// ccStats reports connected components' rounds and convergence.
type ccStats struct {
	Mode        string `json:"mode"`
	Rounds      int    `json:"rounds,omitempty"`
	Converged   bool   `json:"converged"`
	Unconverged int64  `json:"unconverged_nodes"`
}

// giantClusterMinSize keeps the giant-cluster warning quiet on small corpora, where a
// pair of duplicates is already a large share.
const giantClusterMinSize = 100

// DetectionSimilarities are the similarities stats.json reports the S-curve at.
var DetectionSimilarities = []float64{0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95}

// countNames are the counts stats.json always has, in the order a reader follows the
// pipeline; counts no stage made are reported as 0.
var countNames = []string{
	"documents_read", "indexed_documents", "records_rejected", "damaged_files", "invalid_utf8_replaced", "shingles", "empty_documents", "capped_documents",
	"input_ranges", "unsplittable_files",
	"exact_duplicates", "shared_buckets", "bucket_edges", "large_buckets", "large_bucket_comparisons", "unresolved_bucket_pairs", "candidate_pairs",
	"estimate_filtered", "false_candidates", "verified_pairs", "clusters", "kept", "removed",
	"output_kept", "output_removed", "output_rejected",
}

// newStats makes stats.json from counts, the run's counts (tally.Read), and res, the
// runner's metrics, of which only timings and connected components' convergence are
// read: metrics count attempts, which a runner may repeat.
func newStats(pl *plan, counts map[string]int64, res beam.PipelineResult, wall time.Duration) *Stats {
	cfg := &pl.cfg
	st := &Stats{
		Parameters: parameters{
			NumPerm: cfg.NumPerm, Scheme: string(cfg.Scheme), Hash: string(cfg.Hash), Seed: cfg.Seed,
			LSH: string(cfg.LSH), Bands: pl.bands, Rows: pl.rows, Threshold: cfg.Threshold, NGram: cfg.Shingle.N,
			Shingle: cfg.Shingle.Kind.String(), StripPunct: cfg.Normalize.StripPunct,
			Verify: string(cfg.Verify), Keep: string(cfg.Keep), Partitions: cfg.Partitions, BucketAllPairs: cfg.BucketAllPairs,
			BucketComparisons: cfg.BucketComparisons, EstimateFloor: cfg.estimateFloor(),
			MaxShingles: cfg.MaxShingles, IDField: cfg.IDField, TextField: cfg.TextField,
			MaxRecordBytes: source.Config{MaxRecordBytes: cfg.MaxRecordBytes}.WithDefaults().MaxRecordBytes,
		},
		Inputs:       pl.inputs,
		Counts:       map[string]int64{},
		ClusterSizes: map[string]int64{},
		Warnings:     []string{},
		Detection:    map[string]float64{},
		Timings:      map[string]float64{"total_time": wall.Seconds()},
	}
	for _, n := range countNames {
		st.Counts[n] = 0
	}
	for name, n := range counts {
		if i, ok := cluster.ParseSizeBucketCount(name); ok {
			if n > 0 {
				st.ClusterSizes[cluster.SizeBucketName(i)] += n
			}
			continue
		}
		if name == cluster.LargestClusterCount {
			st.LargestCluster = n
			continue
		}
		st.Counts[name] = n
	}
	nanos := map[string]string{
		"shingle_nanos": "shingle_time", "minhash_nanos": "minhash_time", "lsh_nanos": "lsh_time", "verify_nanos": "verify_time",
	}
	var unconverged int64
	if res != nil {
		for _, c := range res.Metrics().AllMetrics().Counters() {
			if c.Namespace() != elem.MetricsNS {
				continue
			}
			switch name := c.Name(); {
			case nanos[name] != "":
				st.Timings[nanos[name]] += float64(c.Result()) / 1e9
			case name == "cc_unconverged_nodes":
				unconverged += c.Result()
			}
		}
	}
	st.ConnectedComponents = ccStats{Mode: string(pl.cc), Converged: unconverged == 0, Unconverged: unconverged}
	if pl.cc == CCDistributed {
		st.ConnectedComponents.Rounds = cfg.CCRounds
	}
	if n := st.Counts["documents_read"]; cfg.GiantClusterShare > 0 && st.LargestCluster >= giantClusterMinSize &&
		float64(st.LargestCluster) > cfg.GiantClusterShare*float64(n) {
		st.Warnings = append(st.Warnings, fmt.Sprintf(
			"giant cluster: %d of %d documents (%.1f%%) are in one cluster, above --giant-cluster-share %v; "+
				"if they are not all copies of one page, chained near-duplicates are merging unrelated documents: "+
				"raise --threshold or look at the cluster in clusters.jsonl",
			st.LargestCluster, n, 100*float64(st.LargestCluster)/float64(n), cfg.GiantClusterShare))
	}
	if n := st.Counts["unresolved_bucket_pairs"]; n > 0 {
		st.Warnings = append(st.Warnings, fmt.Sprintf(
			"up to %d pairs that shared one of %d LSH buckets larger than --bucket-all-pairs %d were left undecided when "+
				"the budget of --bucket-comparisons %d per distinct set ran out: some may be duplicates left in the output; "+
				"raise --bucket-comparisons to check them",
			n, st.Counts["large_buckets"], cfg.BucketAllPairs, cfg.BucketComparisons))
	}
	if pl.containment != nil {
		st.Parameters.Measure = string(cfg.Measure)
		for _, g := range pl.containment.Groups {
			st.Parameters.Containment = append(st.Parameters.Containment,
				containmentGroup{ClassDistance: g.Distance, MaxSizeRatio: g.MaxRatio, JaccardFloor: g.Floor, Bands: g.Bands, Rows: g.Rows})
		}
		p := pl.containment.Sample
		st.Parameters.ContainmentSample = &containmentSample{FromClassDistance: p.FromDistance, MaxSizeRatio: p.MaxRatio, Rate: p.Rate}
	}
	for _, sim := range DetectionSimilarities {
		st.Detection[strconv.FormatFloat(sim, 'f', -1, 64)] = pl.detection(sim)
	}
	return st
}

// check enforces the accounting rule: every document read is decided kept or removed,
// and the writers wrote exactly those records and the rejected ones.
func (st *Stats) check() error {
	c := st.Counts
	if c["kept"]+c["removed"] != c["documents_read"] {
		return fmt.Errorf("accounting error: %d documents read but %d kept + %d removed; outputs left uncommitted",
			c["documents_read"], c["kept"], c["removed"])
	}
	if c["output_kept"] != c["kept"] || c["output_removed"] != c["removed"] || c["output_rejected"] != c["records_rejected"] {
		return fmt.Errorf("accounting error: wrote %d kept, %d removed, %d rejected records for %d, %d, %d; outputs left uncommitted",
			c["output_kept"], c["output_removed"], c["output_rejected"], c["kept"], c["removed"], c["records_rejected"])
	}
	return nil
}
