package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/internal/memlimit"
	"github.com/neardup/neardup/pipeline"
)

// runDedup parses dedup's flags together with Beam's own (--runner, --endpoint,
// --environment_type, --project, ...), which live on the global flag set.
func runDedup(args []string, stdout, stderr io.Writer) error {
	cfg := pipeline.DefaultConfig()
	fs := flag.NewFlagSet("dedup", flag.ContinueOnError)
	var inputs inputFlag
	fs.Var(&inputs, "input", "input file or glob (local, gs:// or s3://); repeatable; .gz/.zst decompressed")
	fs.StringVar(&cfg.Output, "output", "", "output directory (local, gs:// or s3://)")
	fs.StringVar((*string)(&cfg.Format), "format", string(cfg.Format), "input format: auto (by extension), jsonl, text (one document per line) or parquet")
	fs.StringVar(&cfg.IDField, "id-field", cfg.IDField, "JSON field holding the document id (missing: FILE:LINE is used)")
	fs.StringVar(&cfg.TextField, "text-field", cfg.TextField, "JSON field holding the text")
	fs.BoolVar(&cfg.Overwrite, "overwrite", false, "replace outputs of an earlier run in --output")
	methodFlags(fs, &cfg)
	lshFlags(fs, &cfg)
	againstFlags(fs, &cfg)
	fs.StringVar((*string)(&cfg.Measure), "measure", string(cfg.Measure), "jaccard (|A∩B|/|A∪B|; clusters are connected components) or containment (|A∩B|/|A| for the smaller A: partial copies are removed into the cluster of a kept document containing them; docs/method.md)")
	fs.StringVar((*string)(&cfg.Verify), "verify", string(cfg.Verify), "how candidates are decided: exact (Jaccard of shingle sets), estimate (MinHash) or none (every LSH candidate)")
	fs.StringVar((*string)(&cfg.Keep), "keep", string(cfg.Keep), "which cluster member is kept: smallest-id, longest, or field:NAME:max|min (the largest/smallest value of a top-level field; missing loses, ties: smallest id)")
	fs.StringVar((*string)(&cfg.Mode), "mode", string(cfg.Mode), "dedup (write kept and removed records) or annotate (write every record to annotated.jsonl/.parquet with its cluster fields added)")
	fs.StringVar(&cfg.AnnotatePrefix, "annotate-prefix", cfg.AnnotatePrefix, "--mode annotate: prefix of the added fields (PREFIXcluster__, PREFIXcluster_size__, PREFIXduplicate__, PREFIXsimilarity__)")
	fs.StringVar((*string)(&cfg.CC), "cc", string(cfg.CC), "connected components: auto (local when the workers run in this process or, on a cluster runner, for up to about 3.9M documents; else distributed), local (union-find over the verified edges in one worker) or distributed (large-star/small-star rounds)")
	fs.IntVar(&cfg.CCRounds, "cc-rounds", cfg.CCRounds, "rounds of --cc distributed")
	fs.StringVar((*string)(&cfg.Layout), "layout", string(cfg.Layout), "record outputs and clusters.jsonl: single (one file each), sharded (a directory of parts each: kept/part-00000-of-00004.jsonl, ...) or auto (single when the workers run in this process, sharded otherwise); see docs/outputs.md")
	fs.IntVar(&cfg.Shards, "shards", cfg.Shards, "--layout sharded: parts per output (0: one per input file)")
	fs.StringVar((*string)(&cfg.Compress), "compress", string(cfg.Compress), "--layout sharded: compression of the JSONL and text parts: none, gzip (.gz) or zstd (.zst)")
	fs.StringVar((*string)(&cfg.BandSpill), "band-spill", string(cfg.BandSpill), "auto: when the workers run in this process (the embedded runner, LOOPBACK), the band entries go through local files in the output's temporary directory instead of the runner's in-memory shuffle; off: always through the runner")
	fs.StringVar(&cfg.SpillDir, "spill-dir", cfg.SpillDir, "directory for spill files, when the workers run in this process (default: the output's temporary directory when local, else the system's); the run checks before it starts that its disk has room for them, and removes what killed runs left there")
	fs.IntVar(&cfg.BucketAllPairs, "bucket-all-pairs", cfg.BucketAllPairs, "LSH buckets of up to this many distinct sets give all their pairs; larger ones are resolved by pivots and the triangle inequality (exact within --bucket-comparisons)")
	fs.IntVar(&cfg.BucketComparisons, "bucket-comparisons", cfg.BucketComparisons, "comparison budget per distinct set of an LSH bucket above --bucket-all-pairs, counting at least 8192 sets; pairs left undecided when it runs out are counted in stats.json (unresolved_bucket_pairs)")
	fs.IntVar(&cfg.Partitions, "partitions", cfg.Partitions, "hash partitions each shuffle is gathered into; raise with the corpus (about 1 per 10,000 documents)")
	fs.Float64Var(&cfg.GiantClusterShare, "giant-cluster-share", cfg.GiantClusterShare, "warn when a cluster of 100 or more documents holds more than this share of the corpus (0: never)")
	maxRecord := recordFlags(fs, &cfg)
	fs.BoolVar(&cfg.Quiet, "quiet", false, "print only the result line, warnings and errors")
	fs.StringVar((*string)(&cfg.OnDamagedFile), "on-damaged-file", string(cfg.OnDamagedFile), "an input whose stream breaks mid-way (truncated or corrupt .gz/.zst, bad Parquet page, failed gs:// read): fail (stop the run) or skip (keep what was read before the break, list the file in rejected.jsonl and stats.json)")
	fs.IntVar(&cfg.ReportClusters, "report-clusters", cfg.ReportClusters, "clusters report.html shows side by side (the largest fifth, then a seeded random sample)")
	memory := fs.String("memory", "", "memory budget of this process, e.g. 8GB (default: 3/4 of the machine's or container's memory); the Go garbage collector works harder as it is approached")
	if err := parseWithBeam(fs, args, stdout, "usage: neardup dedup --input GLOB [--input GLOB...] --output DIR [flags]"); err != nil {
		return err
	}
	cfg.Inputs = inputs
	if err := maxRecord(); err != nil {
		return err
	}
	budget := int64(0)
	if *memory != "" {
		b, err := memlimit.ParseBudget(*memory)
		if err != nil {
			return usageError{fmt.Errorf("--memory: %w", err)}
		}
		budget = b
	}
	applyBudget(budget)
	beam.Init()

	var progress io.Writer
	if !cfg.Quiet {
		progress = stderr
	}
	st, err := pipeline.Run(context.Background(), cfg, progress)
	if errors.Is(err, pipeline.ErrDryRun) {
		fmt.Fprintf(stderr, "neardup dedup: %v\n", err)
		return nil
	}
	if err != nil {
		return indexUsageError(err)
	}
	for _, w := range st.Warnings {
		fmt.Fprintf(stderr, "neardup dedup: warning: %s\n", w)
	}
	c := st.Counts
	fmt.Fprintf(stdout, "%d documents: %d kept, %d removed in %d clusters; %d records rejected; outputs in %s\n",
		c["documents_read"], c["kept"], c["removed"], c["clusters"], c["records_rejected"], cfg.Output)
	if !cfg.Quiet {
		b, _ := json.Marshal(st.Parameters)
		fmt.Fprintf(stderr, "parameters: %s\n", b)
	}
	return nil
}

// applyBudget makes budget bytes (0: the default share) this process's memory budget, with
// the heap floor the budget implies, and returns the budget in force (memlimit.Apply).
func applyBudget(budget int64) int64 {
	budget = memlimit.Apply(budget)
	memlimit.HeapFloor(memlimit.FloorFor(budget))
	return budget
}
