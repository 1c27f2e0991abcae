// Package gen writes deterministic synthetic corpora with planted near-duplicates,
// and the truth file listing them, so that neardup's recall and precision can be
// measured on data whose answer is known.
//
// A corpus is N documents: originals drawn from Zipf-distributed vocabularies
// (mostly English-looking, a share Russian-looking and Chinese-looking), and a
// fraction of near-duplicates derived from them (or from each other) by word
// inserts, deletions and substitutions, truncation, boilerplate headers and
// footers, and case, whitespace and punctuation noise. Every document's text is a
// function of the seed and its own index only, so the same seed and options give
// byte-identical files however many workers generate them.
package gen

import (
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/atomicfile"
)

// Options configure a corpus. The zero value is not useful: start from Defaults.
type Options struct {
	N           int     // documents in all, duplicates included
	DupFraction float64 // share of the N documents that are planted near-duplicates
	Seed        uint64

	Output string // corpus path (JSONL: {"id": ..., "text": ...}); .zst or .gz compresses it
	Truth  string // truth clusters path; "" puts it beside Output as NAME.truth.jsonl

	MinWords, MaxWords, MeanWords int     // length of originals, in words
	VocabSize                     int     // words per language
	ZipfS                         float64 // Zipf exponent of word frequencies
	CyrillicFraction              float64 // share of originals in Russian-looking text
	CJKFraction                   float64 // share of originals in Chinese-looking text (no spaces)

	// Per-word edit rates of a duplicate, each scaled by an intensity drawn
	// uniformly from [0, 2) per duplicate, so the mean rate is the given one.
	InsertRate, DeleteRate, SubstituteRate float64
	// Per-duplicate probabilities.
	BoilerplateRate float64 // header and/or footer added
	TruncateRate    float64 // last 5–25% of the words cut off
	NoiseRate       float64 // case, whitespace or punctuation noise
	// PartialRate is the share of duplicates that are partial copies instead: an
	// excerpt of 30–90% of the source's words, wrapped in fresh text of up to as many
	// words again (see excerpt).
	PartialRate float64

	Workers int // generating goroutines; 0 means GOMAXPROCS (output does not depend on it)
}

// Defaults returns the options the CLI starts from.
func Defaults() Options {
	return Options{
		N: 10000, DupFraction: 0.1, Seed: 1,
		Output:   "corpus.jsonl",
		MinWords: 50, MaxWords: 400, MeanWords: 200,
		VocabSize: 30000, ZipfS: 1.0,
		CyrillicFraction: 0.1, CJKFraction: 0.05,
		InsertRate: 0.005, DeleteRate: 0.005, SubstituteRate: 0.005,
		BoilerplateRate: 0.3, TruncateRate: 0.1, NoiseRate: 0.3,
	}
}

// RegisterFlags defines the generator's flags on fs, with o's values as defaults.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.N, "n", o.N, "number of documents, planted duplicates included")
	fs.Float64Var(&o.DupFraction, "dup-fraction", o.DupFraction, "share of documents that are planted near-duplicates, in [0, 1)")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "random seed; the same seed and flags give byte-identical files")
	fs.StringVar(&o.Output, "output", o.Output, "corpus path (JSONL; a .jsonl.zst or .jsonl.gz name compresses it)")
	fs.StringVar(&o.Truth, "truth", o.Truth, "planted clusters path (default: beside -output, NAME.truth.jsonl)")
	fs.IntVar(&o.MinWords, "min-words", o.MinWords, "shortest original, in words")
	fs.IntVar(&o.MaxWords, "max-words", o.MaxWords, "longest original, in words")
	fs.IntVar(&o.MeanWords, "mean-words", o.MeanWords, "mean original length, in words")
	fs.IntVar(&o.VocabSize, "vocab", o.VocabSize, "vocabulary size per language")
	fs.Float64Var(&o.ZipfS, "zipf", o.ZipfS, "Zipf exponent of word frequencies")
	fs.Float64Var(&o.CyrillicFraction, "cyrillic", o.CyrillicFraction, "share of originals in Cyrillic script")
	fs.Float64Var(&o.CJKFraction, "cjk", o.CJKFraction, "share of originals in CJK script (written without spaces)")
	fs.Float64Var(&o.InsertRate, "insert-rate", o.InsertRate, "mean per-word probability of inserting a word in a duplicate")
	fs.Float64Var(&o.DeleteRate, "delete-rate", o.DeleteRate, "mean per-word probability of deleting a word in a duplicate")
	fs.Float64Var(&o.SubstituteRate, "substitute-rate", o.SubstituteRate, "mean per-word probability of substituting a word in a duplicate")
	fs.Float64Var(&o.BoilerplateRate, "boilerplate-rate", o.BoilerplateRate, "probability that a duplicate gets a boilerplate header and/or footer")
	fs.Float64Var(&o.TruncateRate, "truncate-rate", o.TruncateRate, "probability that a duplicate is truncated")
	fs.Float64Var(&o.NoiseRate, "noise-rate", o.NoiseRate, "probability that a duplicate gets case/whitespace/punctuation noise")
	fs.Float64Var(&o.PartialRate, "partial-rate", o.PartialRate, "probability that a duplicate is a partial copy: an excerpt of 30-90% of its source wrapped in fresh text (for --measure containment)")
	fs.IntVar(&o.Workers, "workers", o.Workers, "generating goroutines (0: GOMAXPROCS); does not change the output")
}

// Validate reports the first invalid option.
func (o *Options) Validate() error {
	rate := func(name string, v float64) error {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("gen: %s must be in [0, 1], got %v", name, v)
		}
		return nil
	}
	switch {
	case o.N < 0:
		return fmt.Errorf("gen: n must be ≥ 0, got %d", o.N)
	case !(o.DupFraction >= 0 && o.DupFraction < 1):
		return fmt.Errorf("gen: dup-fraction must be in [0, 1), got %v", o.DupFraction)
	case o.MinWords < 1 || o.MaxWords < o.MinWords:
		return fmt.Errorf("gen: need 1 ≤ min-words ≤ max-words, got %d and %d", o.MinWords, o.MaxWords)
	case 3*o.MeanWords < 2*o.MinWords+o.MaxWords || 3*o.MeanWords > o.MinWords+2*o.MaxWords:
		return fmt.Errorf("gen: mean-words %d cannot be reached between %d and %d (need (2·min+max)/3 ≤ mean ≤ (min+2·max)/3)",
			o.MeanWords, o.MinWords, o.MaxWords)
	case o.VocabSize < len(latinTop):
		return fmt.Errorf("gen: vocab must be ≥ %d, got %d", len(latinTop), o.VocabSize)
	case !(o.ZipfS > 0):
		return fmt.Errorf("gen: zipf exponent must be > 0, got %v", o.ZipfS)
	case o.CyrillicFraction+o.CJKFraction > 1:
		return fmt.Errorf("gen: cyrillic + cjk shares exceed 1 (%v + %v)", o.CyrillicFraction, o.CJKFraction)
	}
	for _, r := range []struct {
		n string
		v float64
	}{{"cyrillic", o.CyrillicFraction}, {"cjk", o.CJKFraction}, {"insert-rate", o.InsertRate},
		{"delete-rate", o.DeleteRate}, {"substitute-rate", o.SubstituteRate}, {"boilerplate-rate", o.BoilerplateRate},
		{"truncate-rate", o.TruncateRate}, {"noise-rate", o.NoiseRate}, {"partial-rate", o.PartialRate}} {
		if err := rate(r.n, r.v); err != nil {
			return err
		}
	}
	if 2*(o.InsertRate+o.DeleteRate+o.SubstituteRate) > 1 {
		return fmt.Errorf("gen: insert+delete+substitute rates must be ≤ 0.5 (they are doubled at the highest intensity)")
	}
	return nil
}

// TruthPath is where the truth file goes: o.Truth, or beside o.Output.
func (o *Options) TruthPath() string {
	if o.Truth != "" {
		return o.Truth
	}
	base := strings.TrimSuffix(strings.TrimSuffix(o.Output, ".zst"), ".gz")
	return strings.TrimSuffix(base, ".jsonl") + ".truth.jsonl"
}

// compressed wraps w in the codec o.Output's extension names; closing it flushes
// the codec, not w.
func (o *Options) compressed(w io.Writer) (io.WriteCloser, error) {
	switch {
	case strings.HasSuffix(o.Output, ".zst"):
		return zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	case strings.HasSuffix(o.Output, ".gz"):
		return gzip.NewWriter(w), nil
	}
	return nopCloser{w}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Summary describes a generated corpus.
type Summary struct {
	Documents  int // all documents
	Originals  int // documents not derived from another
	Duplicates int // planted near-duplicates
	Clusters   int // truth clusters (an original and its duplicates)
	Bytes      int64
}

// Run writes the corpus to o.Output and the truth to o.TruthPath(), each under a
// temporary name renamed when complete, and prints a summary to log.
func Run(o Options, log io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	var s Summary
	err := atomicfile.Write(o.Output, func(file io.Writer) error {
		docs, err := o.compressed(file)
		if err != nil {
			return err
		}
		err = atomicfile.Write(o.TruthPath(), func(truth io.Writer) error {
			var err error
			s, err = Generate(o, docs, truth)
			return err
		})
		if cerr := docs.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(log, "gen: wrote %d documents (%d originals, %d planted duplicates in %d clusters, %d bytes) to %s; truth in %s\n",
		s.Documents, s.Originals, s.Duplicates, s.Clusters, s.Bytes, o.Output, o.TruthPath())
	return err
}

// Seed-stream salts: every document uses PCG(seed, index); the plan and the
// vocabularies use streams no index reaches.
const (
	planStream  = 1<<63 | 1
	vocabStream = 1<<63 | 16
)

// generator holds what every worker reads: options, vocabularies, the plan.
type generator struct {
	opts   Options
	vocabs [numLangs]*vocab
	plan   *plan
	width  int // digits in an id
}

func newGenerator(o Options) *generator {
	g := &generator{opts: o}
	for l := range numLangs {
		g.vocabs[l] = newVocab(l, o.VocabSize, o.ZipfS, rand.New(rand.NewPCG(o.Seed, vocabStream+uint64(l))))
	}
	g.plan = newPlan(o)
	g.width = max(7, len(fmt.Sprint(o.N)))
	return g
}

// Generate writes the corpus to docs and the truth clusters to truth.
func Generate(o Options, docs, truth io.Writer) (Summary, error) {
	if err := o.Validate(); err != nil {
		return Summary{}, err
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	g := newGenerator(o)
	p := g.plan
	s := Summary{Documents: o.N, Originals: p.bases, Duplicates: o.N - p.bases, Clusters: len(p.clusters)}
	n, err := g.writeDocs(docs)
	s.Bytes = n
	if err != nil {
		return s, err
	}
	if err := g.writeTruth(truth); err != nil {
		return s, err
	}
	return s, nil
}
