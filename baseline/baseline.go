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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"

	"github.com/neardup/neardup/internal/pyrepr"
	"github.com/neardup/neardup/transforms/minhash"
	"github.com/neardup/neardup/transforms/normalize"
	"github.com/neardup/neardup/transforms/shingle"
)

// Options configure a baseline run.
type Options struct {
	Input      string  // JSONL corpus
	IDField    string  // field holding the document id
	TextField  string  // field holding the text
	Threshold  float64 // minimum exact Jaccard, in (0, 1]
	Shingle    shingle.Options
	StripPunct bool
	Hash       minhash.HashFunc
	Workers    int // 0: GOMAXPROCS
}

// Defaults returns the options the CLI starts from: the pipeline's defaults.
func Defaults() Options {
	return Options{
		IDField: "id", TextField: "text",
		Threshold: 0.8,
		Shingle:   shingle.DefaultOptions(),
		Hash:      minhash.DefaultHashFunc,
	}
}

// RegisterFlags defines the baseline's flags on fs, with o's values as defaults.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Input, "input", o.Input, "JSONL corpus to join")
	fs.StringVar(&o.IDField, "id-field", o.IDField, "JSON field holding the document id")
	fs.StringVar(&o.TextField, "text-field", o.TextField, "JSON field holding the text")
	fs.Float64Var(&o.Threshold, "threshold", o.Threshold, "minimum exact Jaccard similarity, in (0, 1]")
	fs.IntVar(&o.Shingle.N, "ngram", o.Shingle.N, "shingle length in words (or characters with -shingle char)")
	fs.TextVar(&o.Shingle.Kind, "shingle", o.Shingle.Kind, "shingle kind: word or char")
	fs.BoolVar(&o.StripPunct, "strip-punct", o.StripPunct, "replace punctuation and symbols with spaces before shingling")
	fs.Func("hash", "shingle hash function: xxhash or sha1 (default "+string(o.Hash)+")", func(s string) error {
		h, err := minhash.ParseHashFunc(s)
		o.Hash = h
		return err
	})
	fs.IntVar(&o.Workers, "workers", o.Workers, "goroutines (0: GOMAXPROCS)")
}

// Validate reports the first invalid option.
func (o *Options) Validate() error {
	if !(o.Threshold > 0 && o.Threshold <= 1) {
		return fmt.Errorf("baseline: threshold must be in (0, 1], got %v", o.Threshold)
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

// Run loads o.Input, joins it, writes the pairs to out as JSONL (see WritePairs)
// and a one-line summary to log.
func Run(o Options, out, log io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	f, err := os.Open(o.Input)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	defer f.Close()
	c, err := Load(f, o)
	if err != nil {
		return fmt.Errorf("baseline: %s: %w", o.Input, err)
	}
	pairs := c.Pairs(o.Threshold, o.Workers)
	bw := bufio.NewWriterSize(out, 1<<20)
	if err := WritePairs(bw, pairs); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("baseline: write pairs: %w", err)
	}
	_, err = fmt.Fprintf(log, "baseline: %d documents (%d records rejected), %d pairs with Jaccard ≥ %v\n",
		len(c.IDs), c.Rejected, len(pairs), o.Threshold)
	return err
}

// Load reads a JSONL corpus and shingles it as o says. Lines that are not JSON
// objects with a string or number id and a string text are counted as rejected
// and skipped, as neardup rejects them; a repeated id is an error, since pairs
// are reported by id.
func Load(r io.Reader, o Options) (*Corpus, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	c := &Corpus{}
	seen := map[string]int{}
	no := normalize.Options{StripPunct: o.StripPunct}
	sum := o.Hash.Sum64

	// Lines are read in chunks; each chunk is parsed, normalized and shingled in
	// parallel, then its records are taken in input order.
	const chunk = 4096
	type rec struct {
		line int
		raw  []byte
		id   string
		set  []uint64
		ok   bool
	}
	recs := make([]rec, 0, chunk)
	flush := func() error {
		parallel(len(recs), o.Workers, func(i int) {
			p := &recs[i]
			var text string
			p.id, text, p.ok = parseRecord(p.raw, o.IDField, o.TextField)
			if p.ok {
				p.set = shingle.Hashes(normalize.Text(text, no), o.Shingle, sum)
			}
		})
		for _, p := range recs {
			switch {
			case !p.ok:
				c.Rejected++
			case seen[p.id] > 0:
				return fmt.Errorf("line %d: id %q repeats line %d", p.line, p.id, seen[p.id])
			default:
				seen[p.id] = p.line
				c.IDs = append(c.IDs, p.id)
				c.Sets = append(c.Sets, p.set)
			}
		}
		recs = recs[:0]
		return nil
	}
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			recs = append(recs, rec{line: line, raw: b})
			if len(recs) == chunk {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read line %d: %w", line, err)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return c, nil
}

func parseRecord(b []byte, idField, textField string) (id, text string, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return "", "", false
	}
	rawID, okID := m[idField]
	rawText, okText := m[textField]
	if !okID || !okText || json.Unmarshal(rawText, &text) != nil {
		return "", "", false
	}
	if json.Unmarshal(rawID, &id) != nil {
		var n json.Number
		if json.Unmarshal(rawID, &n) != nil {
			return "", "", false
		}
		id = n.String()
	}
	return id, text, true
}

// Pairs joins the corpus at threshold t and returns the pairs by id, A < B,
// sorted by (A, B).
func (c *Corpus) Pairs(t float64, workers int) []IDPair {
	ps := Join(c.Sets, t, workers)
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
