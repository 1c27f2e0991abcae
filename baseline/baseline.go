// Package baseline is neardup's exact reference answer: an all-pairs similarity
// join that finds every pair of documents whose shingle sets have exact Jaccard
// similarity ≥ a threshold, on the same normalized, shingled and hashed sets the
// pipeline uses (normalize.Text → shingle.Hashes). MinHash + LSH trades recall
// for speed; this package measures how much, without comparing all n² pairs
// (prefix filtering, see Join).
package baseline

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/atomicfile"
	"github.com/neardup/neardup/internal/pyrepr"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/normalize"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/shingle"
)

// Options configure a baseline run.
type Options struct {
	Input      []string // input globs, read as neardup reads them (package source)
	Format     string   // auto, jsonl or text
	IDField    string   // JSONL field holding the document id
	TextField  string   // JSONL field holding the text
	Threshold  float64  // minimum exact similarity, in (0, 1]
	Measure    string   // MeasureJaccard ("" too) or MeasureContainment
	Shingle    shingle.Options
	StripPunct bool
	Hash       minhash.HashFunc
	Workers    int    // 0: GOMAXPROCS
	Output     string // pairs file; "" writes the pairs to Run's out
}

// Defaults returns the options the CLI starts from: the pipeline's defaults.
func Defaults() Options {
	return Options{
		Format: source.FormatAuto, IDField: "id", TextField: "text",
		Threshold: 0.8, Measure: MeasureJaccard,
		Shingle: shingle.DefaultOptions(),
		Hash:    minhash.DefaultHashFunc,
	}
}

// RegisterFlags defines the baseline's flags on fs, with o's values as defaults.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	fs.Func("input", "input files or globs, comma-separated or repeated (JSONL or text, optionally .gz/.zst)", func(v string) error {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				o.Input = append(o.Input, p)
			}
		}
		return nil
	})
	fs.StringVar(&o.Format, "format", o.Format, "input format: auto (by extension), jsonl or text")
	fs.StringVar(&o.IDField, "id-field", o.IDField, "JSONL field holding the document id")
	fs.StringVar(&o.TextField, "text-field", o.TextField, "JSONL field holding the text")
	fs.Float64Var(&o.Threshold, "threshold", o.Threshold, "minimum exact similarity, in (0, 1]")
	fs.StringVar(&o.Measure, "measure", o.Measure, "jaccard, or containment (|A∩B| over the smaller set's size)")
	fs.IntVar(&o.Shingle.N, "ngram", o.Shingle.N, "shingle length in words (or characters with -shingle char)")
	fs.TextVar(&o.Shingle.Kind, "shingle", o.Shingle.Kind, "shingle kind: word or char")
	fs.BoolVar(&o.StripPunct, "strip-punct", o.StripPunct, "replace punctuation and symbols with spaces before shingling")
	fs.Func("hash", "shingle hash function: xxhash or sha1 (default "+string(o.Hash)+")", func(s string) error {
		h, err := minhash.ParseHashFunc(s)
		o.Hash = h
		return err
	})
	fs.IntVar(&o.Workers, "workers", o.Workers, "goroutines (0: GOMAXPROCS)")
	fs.StringVar(&o.Output, "output", o.Output, "pairs file (JSONL), written complete or not at all (default: standard output)")
}

// Validate reports the first invalid option.
func (o *Options) Validate() error {
	if err := jaccard.CheckThreshold(o.Threshold); err != nil {
		return fmt.Errorf("baseline: threshold %w", err)
	}
	if o.Measure != "" && o.Measure != MeasureJaccard && o.Measure != MeasureContainment {
		return fmt.Errorf("baseline: measure must be jaccard or containment, got %q", o.Measure)
	}
	if err := o.Shingle.Validate(); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	if _, err := minhash.ParseHashFunc(string(o.Hash)); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	return nil
}

// Corpus is a loaded corpus: ids and shingle-hash sets, in input order.
type Corpus struct {
	IDs      []string
	Sets     [][]uint64
	Rejected int // records skipped: invalid JSON, or no id or text
}

// IDPair is a similar pair by document id, A < B.
type IDPair struct {
	A, B       string
	Similarity float64
}

// Run loads o.Input, joins it, writes the pairs as JSONL (see WritePairs) to
// o.Output, or to out when o.Output is "", and a one-line summary to log.
func Run(o Options, out, log io.Writer) error { return RunContext(context.Background(), o, out, log) }

// RunContext is Run with a context for reading the inputs.
func RunContext(ctx context.Context, o Options, out, log io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	c, err := Load(ctx, o)
	if err != nil {
		return err
	}
	pairs := c.Pairs(o.Threshold, o.Workers)
	if o.Measure == MeasureContainment {
		pairs = c.ContainmentPairs(o.Threshold, o.Workers)
	}
	if o.Output != "" {
		err = atomicfile.Write(o.Output, func(w io.Writer) error { return WritePairs(w, pairs) })
	} else {
		bw := bufio.NewWriterSize(out, 1<<20)
		if err = WritePairs(bw, pairs); err == nil {
			err = bw.Flush()
		}
	}
	if err != nil {
		return fmt.Errorf("baseline: write pairs: %w", err)
	}
	measure := "Jaccard"
	if o.Measure == MeasureContainment {
		measure = "containment"
	}
	_, err = fmt.Fprintf(log, "baseline: %d documents (%d records rejected), %d pairs with %s ≥ %v\n",
		len(c.IDs), c.Rejected, len(pairs), measure, o.Threshold)
	return err
}

// Load reads o.Input exactly as neardup's reader does (package source: same
// records, same generated ids for records without one, same rejections) and
// shingles every document as o says. A file that cannot be opened or read to its
// end is an error here, not a rejected record: a reference answer on part of the
// input would mislead. A repeated id is an error too, since pairs are reported by id.
func Load(ctx context.Context, o Options) (*Corpus, error) {
	if len(o.Input) == 0 {
		return nil, errors.New("baseline: no input")
	}
	cfg := source.Config{Patterns: o.Input, Format: o.Format, IDField: o.IDField, TextField: o.TextField}
	list, err := source.Files(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	b := newBuilder(o)
	for _, file := range list {
		var fail error
		source.ReadFile(ctx, file, cfg, func(d record.Doc) {
			if fail == nil {
				fail = b.add(d.ID, d.Text)
			}
		}, func(r record.Rejected) {
			if strings.HasPrefix(r.Reason, source.OpenErrorPrefix) || strings.HasPrefix(r.Reason, source.ReadErrorPrefix) {
				fail = cmp.Or(fail, fmt.Errorf("baseline: %s: %s", file, r.Reason))
			}
			b.c.Rejected++
		})
		if fail != nil {
			return nil, fail
		}
	}
	return b.finish(), nil
}

// FromTexts shingles documents given as ids and texts (parallel slices).
func FromTexts(ids, texts []string, o Options) (*Corpus, error) {
	b := newBuilder(o)
	for i := range ids {
		if err := b.add(ids[i], texts[i]); err != nil {
			return nil, err
		}
	}
	return b.finish(), nil
}

// builder collects documents and normalizes and shingles them in parallel, a
// chunk at a time, keeping input order.
type builder struct {
	o     Options
	c     *Corpus
	seen  map[string]bool
	texts []string
}

const buildChunk = 4096

func newBuilder(o Options) *builder {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return &builder{o: o, c: &Corpus{}, seen: map[string]bool{}}
}

func (b *builder) add(id, text string) error {
	if b.seen[id] {
		return fmt.Errorf("baseline: id %q occurs twice; pairs are reported by id", id)
	}
	b.seen[id] = true
	b.c.IDs = append(b.c.IDs, id)
	b.texts = append(b.texts, text)
	if len(b.texts) == buildChunk {
		b.flush()
	}
	return nil
}

func (b *builder) flush() {
	base := len(b.c.Sets)
	b.c.Sets = append(b.c.Sets, make([][]uint64, len(b.texts))...)
	no := normalize.Options{StripPunct: b.o.StripPunct}
	sum := b.o.Hash.Sum64
	parallel(len(b.texts), b.o.Workers, func(i int) {
		b.c.Sets[base+i] = shingle.Hashes(normalize.Text(b.texts[i], no), b.o.Shingle, sum)
	})
	b.texts = b.texts[:0]
}

func (b *builder) finish() *Corpus {
	b.flush()
	return b.c
}

// Pairs joins the corpus at threshold t and returns the pairs by id, A < B,
// sorted by (A, B).
func (c *Corpus) Pairs(t float64, workers int) []IDPair { return c.byID(Join(c.Sets, t, workers)) }

// ContainmentPairs joins the corpus by containment at threshold t (ContainmentJoin) and
// returns the pairs by id, A < B, sorted by (A, B).
func (c *Corpus) ContainmentPairs(t float64, workers int) []IDPair {
	return c.byID(ContainmentJoin(c.Sets, t, workers))
}

func (c *Corpus) byID(ps []Pair) []IDPair {
	out := make([]IDPair, len(ps))
	for i, p := range ps {
		a, b := c.IDs[p.A], c.IDs[p.B]
		if b < a {
			a, b = b, a
		}
		out[i] = IDPair{a, b, p.Sim}
	}
	SortPairs(out)
	return out
}

// SortPairs sorts pairs by (A, B).
func SortPairs(ps []IDPair) {
	slices.SortFunc(ps, func(p, q IDPair) int { return cmp.Or(cmp.Compare(p.A, q.A), cmp.Compare(p.B, q.B)) })
}

// WritePairs writes one JSON object per pair: {"a": id, "b": id, "similarity": s},
// with s printed as Python's repr prints it, like neardup's other reports.
func WritePairs(w io.Writer, ps []IDPair) error {
	var buf []byte
	for _, p := range ps {
		buf = append(buf[:0], `{"a": `...)
		buf = strconv.AppendQuote(buf, p.A)
		buf = append(buf, `, "b": `...)
		buf = strconv.AppendQuote(buf, p.B)
		buf = append(buf, `, "similarity": `...)
		buf = append(buf, pyrepr.Float(p.Similarity)...)
		buf = append(buf, "}\n"...)
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("baseline: write pairs: %w", err)
		}
	}
	return nil
}

// ReadPairs reads what WritePairs writes (any JSON layout of the same fields),
// ordering each pair so that A < B.
func ReadPairs(r io.Reader) ([]IDPair, error) {
	var out []IDPair
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var p struct {
				A, B       *string
				Similarity *float64
			}
			if err := json.Unmarshal(b, &p); err != nil {
				return nil, fmt.Errorf("baseline: pairs line %d: %w", line, err)
			}
			if p.A == nil || p.B == nil || p.Similarity == nil {
				return nil, fmt.Errorf("baseline: pairs line %d: want fields a, b and similarity", line)
			}
			a, b := *p.A, *p.B
			if b < a {
				a, b = b, a
			}
			out = append(out, IDPair{a, b, *p.Similarity})
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("baseline: read pairs line %d: %w", line, err)
		}
	}
}
