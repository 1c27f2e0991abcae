package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup/internal/pyrepr"
	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/pipeline"
)

// runCompare prints one line per pair, "A B EXACT DECISION" (with --estimate,
// "A B EXACT ESTIMATE DECISION"), floats as Python's repr prints them, so the output can
// be diffed against the seed article's reference program.
func runCompare(args []string, stdout, _ io.Writer) error {
	cfg := pipeline.DefaultConfig()
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	methodFlags(fs, &cfg)
	pairs := fs.String("pairs", "", "comma-separated pairs A:B,C:D (default: every pair, in input order)")
	estimate := fs.Bool("estimate", false, "also print the MinHash estimate after the exact value")
	idField, textField := fileFlags(fs, "compare")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	path, err := oneFile(fs)
	if err != nil {
		return err
	}
	if err := cfg.Shingle.Validate(); err != nil {
		return usageError{fmt.Errorf("--ngram: %w", err)}
	}
	if err := jaccard.CheckThreshold(cfg.Threshold); err != nil {
		return usageError{fmt.Errorf("--threshold: %w", err)}
	}
	docs, err := loadDocs(context.Background(), path, *idField, *textField)
	if err != nil {
		return err
	}
	if err := shingleDocs(docs, &cfg); err != nil {
		return err
	}
	byID := make(map[string]int, len(docs))
	for i, d := range docs {
		byID[d.id] = i
	}
	todo, err := pairList(*pairs, docs, byID)
	if err != nil {
		return usageError{err}
	}
	signer, err := newSigner(&cfg)
	if *estimate && err != nil {
		return usageError{err}
	}
	for _, p := range todo {
		a, b := docs[p[0]], docs[p[1]]
		exact := jaccard.Similarity(a.hashes, b.hashes)
		cols := []string{a.id, b.id, pyrepr.Float(exact)}
		if *estimate {
			est, err := signer.Sign(a.hashes).Jaccard(signer.Sign(b.hashes))
			if err != nil {
				return err
			}
			cols = append(cols, pyrepr.Float(est))
		}
		decision := "KEEP"
		if exact >= cfg.Threshold {
			decision = "REMOVE"
		}
		fmt.Fprintln(stdout, strings.Join(append(cols, decision), " "))
	}
	return nil
}

// pairList resolves --pairs to document indexes; empty means all pairs in input order.
func pairList(spec string, docs []doc, byID map[string]int) ([][2]int, error) {
	var out [][2]int
	if spec == "" {
		for i := range docs {
			for j := i + 1; j < len(docs); j++ {
				out = append(out, [2]int{i, j})
			}
		}
		return out, nil
	}
	for _, p := range strings.Split(spec, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok {
			return nil, fmt.Errorf("--pairs: %q is not A:B", p)
		}
		ia, okA := byID[a]
		ib, okB := byID[b]
		switch {
		case !okA:
			return nil, fmt.Errorf("--pairs: no document with id %q", a)
		case !okB:
			return nil, fmt.Errorf("--pairs: no document with id %q", b)
		}
		out = append(out, [2]int{ia, ib})
	}
	return out, nil
}
