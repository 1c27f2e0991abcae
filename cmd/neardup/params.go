package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/neardup/neardup/internal/pyrepr"
	"github.com/neardup/neardup/lsh"
	"github.com/neardup/neardup/pipeline"
)

type paramsReport struct {
	Objective     string             `json:"objective"`
	Bands         int                `json:"bands"`
	Rows          int                `json:"rows"`
	FalsePositive float64            `json:"false_positive"`
	FalseNegative float64            `json:"false_negative"`
	Detection     map[string]float64 `json:"detection"`
}

// runParams shows the (b, r) datasketch would choose and what it means: the weighted
// false-positive and false-negative areas and the detection probability 1-(1-s^r)^b.
func runParams(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("params", flag.ContinueOnError)
	threshold := fs.Float64("threshold", 0.8, "Jaccard threshold")
	numPerm := fs.Int("num-perm", 128, "MinHash permutations")
	objective := pipeline.LSHRecall
	fs.StringVar((*string)(&objective), "lsh", string(objective), "objective: recall (dedup's default) or datasketch (MinHashLSH's choice)")
	fpWeight := fs.Float64("fp-weight", 0.5, "with --lsh datasketch: weight of false positives (false negatives get 1 minus it)")
	measure := pipeline.MeasureJaccard
	fs.StringVar((*string)(&measure), "measure", string(measure), "jaccard, or containment: the size-class banding of dedup --measure containment")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch measure {
	case pipeline.MeasureJaccard:
	case pipeline.MeasureContainment:
		return containmentParams(stdout, *threshold, *numPerm, *asJSON)
	default:
		return usageError{fmt.Errorf("--measure: must be jaccard or containment, got %q", measure)}
	}
	p, err := pipeline.ChooseLSH(objective, *threshold, *numPerm)
	if objective == pipeline.LSHDatasketch {
		p, err = lsh.OptimalParams(*threshold, *numPerm, *fpWeight, 1-*fpWeight)
	}
	if err != nil {
		return usageError{err}
	}
	rep := paramsReport{Objective: string(objective), Bands: p.Bands, Rows: p.Rows, FalsePositive: p.FalsePositive, FalseNegative: p.FalseNegative,
		Detection: map[string]float64{}}
	for _, s := range pipeline.DetectionSimilarities {
		rep.Detection[strconv.FormatFloat(s, 'f', -1, 64)] = lsh.Detection(s, p.Bands, p.Rows)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(stdout, "threshold %s, num_perm %d, objective %s: b=%d bands of r=%d rows (%d of %d permutations used)\n",
		pyrepr.Float(*threshold), *numPerm, objective, p.Bands, p.Rows, p.Bands*p.Rows, *numPerm)
	fmt.Fprintf(stdout, "false positive area %s, false negative area %s\n", pyrepr.Float(p.FalsePositive), pyrepr.Float(p.FalseNegative))
	fmt.Fprintln(stdout, "similarity  P(candidate)")
	for _, s := range pipeline.DetectionSimilarities {
		fmt.Fprintf(stdout, "%-10s  %.6f\n", strconv.FormatFloat(s, 'f', -1, 64), lsh.Detection(s, p.Bands, p.Rows))
	}
	return nil
}
