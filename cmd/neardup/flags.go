package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/neardup/neardup/internal/memlimit"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/pipeline"
	"github.com/neardup/neardup/shingle"
)

// methodFlags registers the flags that decide what "similar" means — shared by dedup,
// compare and sign so the three always agree on defaults and spelling.
func methodFlags(fs *flag.FlagSet, cfg *pipeline.Config) {
	fs.IntVar(&cfg.Shingle.N, "ngram", cfg.Shingle.N, "shingle size: words per word n-gram, runes per char n-gram")
	fs.Func("shingle", "shingle kind: word or char (char for CJK/Thai or code) (default word)", func(v string) error {
		k, err := shingle.ParseKind(v)
		cfg.Shingle.Kind = k
		return err
	})
	fs.IntVar(&cfg.MaxShingles, "max-shingles", cfg.MaxShingles, "index rows (neardup index, --update-index) keep at most this many shingle hashes, the smallest; dedup signs and verifies every document on its whole set (exact) and counts those above it as capped_documents; against an index (--against, query) a document above it is compared by this sample, an estimate; 0: no cap")
	fs.BoolVar(&cfg.Normalize.StripPunct, "strip-punct", cfg.Normalize.StripPunct, "strip punctuation before shingling")
	fs.Float64Var(&cfg.Threshold, "threshold", cfg.Threshold, "exact similarity (Jaccard, or containment under --measure containment) at or above which a pair is a duplicate")
	fs.IntVar(&cfg.NumPerm, "num-perm", cfg.NumPerm, "MinHash permutations")
	fs.Func("scheme", "MinHash scheme: affine32, affine64 or legacy (datasketch 2.0's) (default affine32)", func(v string) error {
		s, err := minhash.ParseScheme(v)
		cfg.Scheme = s
		return err
	})
	fs.Func("hash", "shingle hash: xxhash (fast) or sha1 (datasketch-identical signatures) (default xxhash)", func(v string) error {
		h, err := minhash.ParseHashFunc(v)
		cfg.Hash = h
		return err
	})
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "permutation seed (numpy RandomState seed, as datasketch)")
}

// lshFlags registers how the LSH bands and rows are chosen (dedup and index).
func lshFlags(fs *flag.FlagSet, cfg *pipeline.Config) {
	fs.StringVar((*string)(&cfg.LSH), "lsh", string(cfg.LSH), "how LSH bands/rows are chosen: recall (similarity threshold+0.05 found with probability 0.99) or datasketch (its 0.5·FP+0.5·FN optimum)")
	fs.IntVar(&cfg.Bands, "bands", 0, "LSH bands (default: chosen by --lsh from --threshold and --num-perm)")
	fs.IntVar(&cfg.Rows, "rows", 0, "LSH rows per band (with --bands)")
}

// recordFlags registers the record size limit (dedup and index). The returned function,
// called once the flags are parsed, sets cfg.MaxRecordBytes or returns the usage error
// naming the flag and the value.
func recordFlags(fs *flag.FlagSet, cfg *pipeline.Config) func() error {
	v := fs.String("max-record-bytes", "", fmt.Sprintf("longest record (line, or Parquet text) read, e.g. 16MB; a longer one is rejected, read past without being held (default %dMiB, at most %dGiB)",
		source.DefaultMaxRecordBytes>>20, pipeline.MaxRecordLimit>>30))
	return func() error {
		if *v == "" {
			return nil
		}
		n, err := memlimit.Parse(*v)
		switch {
		case err != nil || n < 1:
			return usageError{fmt.Errorf("--max-record-bytes %q: not a size; want one such as 16MB, 1500KiB or 1048576 (bytes), from 1 byte to %d GiB", *v, pipeline.MaxRecordLimit>>30)}
		case n > pipeline.MaxRecordLimit:
			return usageError{fmt.Errorf("--max-record-bytes %q: %d bytes is over the largest limit, %d GiB", *v, n, pipeline.MaxRecordLimit>>30)}
		}
		cfg.MaxRecordBytes = n
		return nil
	}
}

// fileFlags registers the field flags and usage of the verbs that read one JSONL file.
func fileFlags(fs *flag.FlagSet, verb string) (idField, textField *string) {
	idField = fs.String("id-field", "id", "JSON field holding the document id")
	textField = fs.String("text-field", "text", "JSON field holding the text")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: neardup %s [flags] FILE.jsonl\n", verb)
		fs.PrintDefaults()
	}
	return idField, textField
}

// inputFlag collects repeated --input values.
type inputFlag []string

func (f *inputFlag) String() string { return strings.Join(*f, ",") }
func (f *inputFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// parseFlags parses args and turns flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return usageError{err}
	}
	return nil
}

func oneFile(fs *flag.FlagSet) (string, error) {
	if fs.NArg() != 1 {
		return "", usageError{fmt.Errorf("want exactly one input file, got %d", fs.NArg())}
	}
	return fs.Arg(0), nil
}
