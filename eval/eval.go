// Package eval measures how good a neardup result is: the clusters it found
// against the duplicates planted by package gen (the truth) and against the exact
// answer of package baseline (every pair with exact Jaccard ≥ the threshold, and
// the connected components those pairs make). It reports pair precision, recall
// and F1 and the adjusted Rand index of the clusterings, and the recall of exact
// pairs per similarity bucket next to the LSH S-curve's prediction, as a text
// table, as JSON and as an SVG plot.
//
// Pair counts come from the contingency table of the two clusterings, never from
// listing pairs: one boilerplate cluster of a million documents holds 5·10¹¹ pairs.
package eval

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/neardup/neardup/baseline"
	"github.com/neardup/neardup/internal/atomicfile"
	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/shingle"
)

// Options configure an evaluation. Zero values of Threshold, NGram, Shingle,
// Hash, Bands and Rows, and an unset StripPunct, mean "as the result's
// stats.json says" (else the pipeline's defaults).
type Options struct {
	Truth  string // planted clusters (gen's truth file)
	Result string // neardup's output dir (clusters.jsonl, stats.json), or a clusters file
	Exact  string // baseline pairs file; "" computes them from Input
	Docs   int64  // documents in the corpus; 0: from Input or stats.json

	// The exact join, when computed here.
	Input      []string
	Format     string
	IDField    string
	TextField  string
	Threshold  float64 // the dedup threshold: exact pairs ≥ it make the reference components
	NGram      int
	Shingle    string
	StripPunct OptBool
	Hash       string
	Workers    int

	Bands, Rows int     // LSH parameters for the S-curve
	NoiseSeeds  int     // with Input: the S-curve's sampling noise over seeds 1…NoiseSeeds (AddBandNoise)
	BucketMin   float64 // lowest similarity bucketed
	BucketWidth float64

	JSON bool   // write the report as JSON instead of a table
	SVG  string // also write the recall plot here
}

// OptBool is a boolean flag that remembers whether it was set.
type OptBool struct{ IsSet, Value bool }

// String implements flag.Value.
func (b *OptBool) String() string { return strconv.FormatBool(b.Value) }

// IsBoolFlag lets the flag be given without a value.
func (b *OptBool) IsBoolFlag() bool { return true }

// Set implements flag.Value.
func (b *OptBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.IsSet, b.Value = true, v
	return nil
}

// Defaults returns the options the CLI starts from.
func Defaults() Options {
	return Options{Format: "auto", IDField: "id", TextField: "text", BucketMin: 0.70, BucketWidth: 0.05}
}

// RegisterFlags defines eval's flags on fs, with o's values as defaults.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Truth, "truth", o.Truth, "planted clusters file (from neardup gen)")
	fs.StringVar(&o.Result, "result", o.Result, "neardup output dir (clusters.jsonl, stats.json) or a clusters file")
	fs.StringVar(&o.Exact, "exact", o.Exact, "exact pairs file (from the baseline); default: compute them from -input")
	fs.Int64Var(&o.Docs, "docs", o.Docs, "documents in the corpus, for the adjusted Rand index (default: from -input or stats.json)")
	fs.Func("input", "corpus files or globs, comma-separated or repeated, for the exact join", func(v string) error {
		o.Input = append(o.Input, splitComma(v)...)
		return nil
	})
	fs.StringVar(&o.Format, "format", o.Format, "input format: auto, jsonl or text")
	fs.StringVar(&o.IDField, "id-field", o.IDField, "JSONL id field")
	fs.StringVar(&o.TextField, "text-field", o.TextField, "JSONL text field")
	fs.Float64Var(&o.Threshold, "threshold", o.Threshold, "dedup threshold for the exact components (default: stats.json's, else 0.8)")
	fs.IntVar(&o.NGram, "ngram", o.NGram, "shingle length for the exact join (default: stats.json's, else 5)")
	fs.StringVar(&o.Shingle, "shingle", o.Shingle, "shingle kind for the exact join: word or char (default: stats.json's)")
	fs.Var(&o.StripPunct, "strip-punct", "strip punctuation for the exact join (default: stats.json's)")
	fs.StringVar(&o.Hash, "hash", o.Hash, "shingle hash for the exact join: xxhash or sha1 (default: stats.json's)")
	fs.IntVar(&o.Workers, "workers", o.Workers, "goroutines for the exact join (0: GOMAXPROCS)")
	fs.IntVar(&o.Bands, "bands", o.Bands, "LSH bands b for the S-curve (default: stats.json's)")
	fs.IntVar(&o.Rows, "rows", o.Rows, "LSH rows r for the S-curve (default: stats.json's)")
	fs.IntVar(&o.NoiseSeeds, "noise-seeds", o.NoiseSeeds, "with -input: re-sign the bucketed pairs' documents as the run did and report, per bucket, the pairs that shared an LSH bucket (and of them the ones not co-clustered), and the 5th-95th percentile of that share over seeds 1..N: the sampling noise to judge recall against")
	fs.Float64Var(&o.BucketMin, "bucket-min", o.BucketMin, "lowest similarity of the recall buckets")
	fs.Float64Var(&o.BucketWidth, "bucket-width", o.BucketWidth, "width of the recall buckets")
	fs.BoolVar(&o.JSON, "json", o.JSON, "write the report as JSON")
	fs.StringVar(&o.SVG, "svg", o.SVG, "also write an SVG plot of recall by similarity to this file")
}

func splitComma(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Run evaluates as o says and writes the report to w (a table, or JSON with
// o.JSON), and the plot to o.SVG when set.
func Run(o Options, w io.Writer) error { return RunContext(context.Background(), o, w) }

// RunContext is Run with a context for reading the inputs.
func RunContext(ctx context.Context, o Options, w io.Writer) error {
	r, err := Evaluate(ctx, o)
	if err != nil {
		return err
	}
	if o.SVG != "" {
		if err := atomicfile.Write(o.SVG, func(f io.Writer) error { return WriteSVG(f, r) }); err != nil {
			return err
		}
	}
	if o.JSON {
		return r.WriteJSON(w)
	}
	return r.WriteText(w)
}

// Evaluate builds the report.
func Evaluate(ctx context.Context, o Options) (*Report, error) {
	if o.Result == "" {
		return nil, errors.New("eval: -result is required")
	}
	if o.Truth == "" && o.Exact == "" && len(o.Input) == 0 {
		return nil, errors.New("eval: nothing to compare with: give -truth, -exact or -input")
	}
	if o.NoiseSeeds > 0 && len(o.Input) == 0 {
		return nil, errors.New("eval: -noise-seeds needs the corpus: give -input")
	}
	if !(o.BucketWidth > 0 && o.BucketMin >= 0 && o.BucketMin < 1) {
		return nil, fmt.Errorf("eval: need 0 ≤ bucket-min < 1 and bucket-width > 0, got %v and %v", o.BucketMin, o.BucketWidth)
	}
	clustersPath, statsPath, err := resultPaths(o.Result)
	if err != nil {
		return nil, fmt.Errorf("eval: result: %w", err)
	}
	result, err := ReadClustersFile(clustersPath)
	if err != nil {
		return nil, fmt.Errorf("eval: result: %w", err)
	}
	rep := &Report{}
	stats, err := ReadStats(statsPath)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("eval: %w", err)
		}
		stats = nil
		rep.warn("no stats.json beside the result: parameters come from flags and defaults")
	}
	p := resolve(o, stats)
	rep.Parameters = ReportParams{Threshold: p.Threshold, Bands: p.Bands, Rows: p.Rows,
		NGram: p.Join.Shingle.N, Shingle: p.Join.Shingle.Kind.String(), StripPunct: p.Join.StripPunct}
	if err := jaccard.CheckThreshold(p.Threshold); err != nil {
		return nil, fmt.Errorf("eval: threshold %w", err)
	}

	// The exact pairs: read, or joined here at the lower of the threshold and
	// the lowest bucket, so that every bucket is filled.
	var exact []baseline.IDPair
	var corpusIDs []string
	var corpus *baseline.Corpus
	haveExact := o.Exact != "" || len(o.Input) > 0
	switch {
	case o.Exact != "":
		f, err := os.Open(o.Exact)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		exact, err = baseline.ReadPairs(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", o.Exact, err)
		}
	case len(o.Input) > 0:
		if err := p.Join.Validate(); err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		c, err := baseline.Load(ctx, p.Join)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		corpus = c
		exact = c.Pairs(p.Join.Threshold, p.Join.Workers)
		corpusIDs = slices.Sorted(slices.Values(c.IDs))
		rep.Exact = &ExactSummary{JoinThreshold: p.Join.Threshold}
	}

	n, err := corpusSize(o, corpusIDs, stats, rep)
	if err != nil {
		return nil, err
	}
	rep.Documents = n
	rep.Result = ClusterSummary{Clusters: len(result), Documents: result.Documents(), Pairs: result.Pairs()}
	if corpusIDs != nil {
		if k, some := unknownIDs(result, corpusIDs); k > 0 {
			rep.warn(fmt.Sprintf("%d result ids are not in the input (e.g. %s): was the result computed on this corpus?", k, some))
		}
	}

	if o.Truth != "" {
		truth, err := ReadClustersFile(o.Truth)
		if err != nil {
			return nil, fmt.Errorf("eval: truth: %w", err)
		}
		if corpusIDs != nil {
			if k, some := unknownIDs(truth, corpusIDs); k > 0 {
				rep.warn(fmt.Sprintf("%d truth ids are not in the input (e.g. %s)", k, some))
			}
		}
		a, err := agreement("planted truth", truth, result, n)
		if err != nil {
			return nil, fmt.Errorf("eval: truth vs result: %w", err)
		}
		rep.VsTruth = a
	}

	if haveExact {
		if rep.Exact == nil {
			rep.Exact = &ExactSummary{}
		}
		rep.Exact.Threshold = p.Threshold
		rep.Exact.AllPairs = int64(len(exact))
		var edges [][2]string
		labels, err := result.labels()
		if err != nil {
			return nil, fmt.Errorf("eval: result: %w", err)
		}
		var found int64
		for _, e := range exact {
			if e.Similarity >= p.Threshold {
				edges = append(edges, [2]string{e.A, e.B})
				la, okA := labels[e.A]
				lb, okB := labels[e.B]
				if okA && okB && la == lb {
					found++
				}
			}
		}
		rep.Exact.Pairs = int64(len(edges))
		rep.Exact.PairsFound = found
		rep.Exact.PairRecall = ratioOr1(found, int64(len(edges)))
		comps := Components(edges)
		rep.Exact.Components = len(comps)
		a, err := agreement(fmt.Sprintf("exact components (J ≥ %v)", p.Threshold), comps, result, n)
		if err != nil {
			return nil, fmt.Errorf("eval: exact vs result: %w", err)
		}
		rep.VsExact = a
		if minSim := minSimilarity(exact); o.Exact != "" && len(exact) > 0 && minSim >= o.BucketMin+o.BucketWidth {
			rep.warn(fmt.Sprintf("the lowest similarity in the exact pairs file is %v: was it joined at a threshold above -bucket-min %v? Lower buckets are empty",
				minSim, o.BucketMin))
		}
		rep.Buckets, err = RecallBySimilarity(exact, result, o.BucketMin, o.BucketWidth, p.Bands, p.Rows)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		if o.NoiseSeeds > 0 {
			if err := addNoise(ctx, o, p, stats, corpus, exact, result, rep); err != nil {
				return nil, fmt.Errorf("eval: %w", err)
			}
		}
	}
	return rep, nil
}

// addNoise loads the corpus (unless the join already did) and adds AddBandNoise's
// figures to the report's buckets.
func addNoise(ctx context.Context, o Options, p params, stats *Stats, corpus *baseline.Corpus,
	exact []baseline.IDPair, result Clusters, rep *Report) error {
	sg, err := signing(stats, p.Bands, p.Rows)
	if err != nil {
		return err
	}
	if corpus == nil {
		if err := p.Join.Validate(); err != nil {
			return err
		}
		if corpus, err = baseline.Load(ctx, p.Join); err != nil {
			return err
		}
	}
	sets := make(map[string][]uint64, len(corpus.IDs))
	for i, id := range corpus.IDs {
		sets[id] = corpus.Sets[i]
	}
	return AddBandNoise(rep.Buckets, exact, sets, result, sg, o.NoiseSeeds, o.Workers)
}

func minSimilarity(ps []baseline.IDPair) float64 {
	m := 1.0
	for _, p := range ps {
		m = min(m, p.Similarity)
	}
	return m
}

func agreement(name string, ref, result Clusters, n int64) (*Agreement, error) {
	pc, err := Compare(ref, result, n)
	if err != nil {
		return nil, err
	}
	return &Agreement{
		Reference: name, ReferenceClusters: len(ref), ReferencePairs: pc.A, ResultPairs: pc.B, CommonPairs: pc.Both,
		Precision: pc.Precision(), Recall: pc.Recall(), F1: pc.F1(), ARI: pc.ARI(), RandIndex: pc.RandIndex(),
	}, nil
}

// corpusSize decides n, the number of documents (singletons included): -docs,
// else the input read here, else stats.json.
func corpusSize(o Options, corpusIDs []string, stats *Stats, rep *Report) (int64, error) {
	fromStats, haveStats := stats.Documents()
	switch {
	case o.Docs > 0:
		return o.Docs, nil
	case corpusIDs != nil:
		if haveStats && fromStats != int64(len(corpusIDs)) {
			rep.warn(fmt.Sprintf("the input has %d documents but stats.json counts %d", len(corpusIDs), fromStats))
		}
		return int64(len(corpusIDs)), nil
	case haveStats:
		return fromStats, nil
	}
	return 0, errors.New("eval: the number of documents is unknown: give -docs, -input, or a result with stats.json")
}

// params are the settings resolved from flags, stats.json and defaults.
type params struct {
	Threshold   float64
	Bands, Rows int
	Join        baseline.Options
}

func resolve(o Options, st *Stats) params {
	p := params{Threshold: o.Threshold, Bands: o.Bands, Rows: o.Rows}
	if p.Threshold == 0 {
		p.Threshold = 0.8
		if v, ok := st.FloatParam("threshold"); ok {
			p.Threshold = v
		}
	}
	if p.Bands == 0 {
		p.Bands, _ = st.IntParam("bands", "b")
	}
	if p.Rows == 0 {
		p.Rows, _ = st.IntParam("rows", "r")
	}
	j := baseline.Defaults()
	j.Input, j.Format, j.IDField, j.TextField, j.Workers = o.Input, o.Format, o.IDField, o.TextField, o.Workers
	j.Threshold = min(p.Threshold, o.BucketMin)
	if j.Threshold <= 0 {
		j.Threshold = p.Threshold
	}
	j.Shingle.N = o.NGram
	if j.Shingle.N == 0 {
		j.Shingle.N = shingle.DefaultN
		if v, ok := st.IntParam("ngram"); ok {
			j.Shingle.N = v
		}
	}
	kind := o.Shingle
	if kind == "" {
		kind, _ = st.StringParam("shingle")
	}
	if k, err := shingle.ParseKind(kind); err == nil {
		j.Shingle.Kind = k
	} else if kind != "" {
		j.Shingle.Kind = 255 // invalid: Validate reports it
	}
	j.StripPunct = o.StripPunct.Value
	if !o.StripPunct.IsSet {
		j.StripPunct, _ = st.BoolParam("strip_punct")
	}
	hash := o.Hash
	if hash == "" {
		hash, _ = st.StringParam("hash")
	}
	if hash != "" {
		j.Hash = minhash.HashFunc(hash)
	}
	p.Join = j
	return p
}
