package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/neardup/neardup/internal/pyrepr"
	"github.com/neardup/neardup/pipeline"
)

// containmentGroup is one size-class distance of the containment banding, with its
// S-curve at the group's worst size ratio.
type containmentGroup struct {
	Distance     int                `json:"class_distance"`
	MaxRatio     float64            `json:"max_size_ratio"`
	JaccardFloor float64            `json:"jaccard_floor"`
	Bands        int                `json:"bands"`
	Rows         int                `json:"rows"`
	Detection    map[string]float64 `json:"detection"`
}

// sampleClass is the sampling's predicted recall for the pairs whose smaller set is of
// one size class: the least over the class's sizes, at every ratio sampled.
type sampleClass struct {
	Class     int                `json:"class"`
	MinSize   int                `json:"min_size"`
	MaxSize   int                `json:"max_size"`
	Detection map[string]float64 `json:"detection"`
}

// sampleClasses are the classes params shows; larger ones are at the bound.
const sampleClasses = 21

// containmentSims are the containments the S-curve is shown at.
var containmentSims = []float64{0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1}

// containmentParams shows the banding of --measure containment: per size-class distance
// its (b, r) and the probability that a pair at each containment shares a bucket when
// the larger set is the group's worst ratio times the smaller (at smaller ratios it is
// higher).
func containmentParams(w io.Writer, threshold float64, numPerm int, asJSON bool) error {
	s, err := pipeline.ChooseContainment(threshold, numPerm)
	if err != nil {
		return usageError{err}
	}
	groups := make([]containmentGroup, len(s.Groups))
	for i, g := range s.Groups {
		groups[i] = containmentGroup{Distance: g.Distance, MaxRatio: g.MaxRatio, JaccardFloor: g.Floor, Bands: g.Bands, Rows: g.Rows,
			Detection: map[string]float64{}}
		for _, c := range containmentSims {
			groups[i].Detection[strconv.FormatFloat(c, 'f', -1, 64)] = s.Detection(c, g.MaxRatio, g.Distance)
		}
	}
	p := s.Sample
	classes := make([]sampleClass, sampleClasses)
	bound := map[string]float64{}
	for k := range classes {
		classes[k] = sampleClass{Class: k, MinSize: 1 << k, MaxSize: 1<<(k+1) - 1, Detection: map[string]float64{}}
		for _, c := range containmentSims {
			classes[k].Detection[strconv.FormatFloat(c, 'f', -1, 64)] = p.ClassDetection(c, k)
			bound[strconv.FormatFloat(c, 'f', -1, 64)] = p.Bound(c)
		}
	}
	sampleKeys := int(math.Ceil(p.Rate * p.MaxRatio))
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		type sample struct {
			FromDistance int                `json:"from_class_distance"`
			MaxRatio     float64            `json:"max_size_ratio"`
			Rate         float64            `json:"rate"`
			Keys         int                `json:"keys_per_document"`
			Bound        map[string]float64 `json:"detection_bound"`
			Classes      []sampleClass      `json:"classes"`
		}
		return enc.Encode(struct {
			Measure string             `json:"measure"`
			Keys    int                `json:"keys_per_document"`
			Groups  []containmentGroup `json:"groups"`
			Sample  sample             `json:"sample"`
		}{string(pipeline.MeasureContainment), s.Keys(), groups, sample{p.FromDistance, p.MaxRatio, p.Rate, sampleKeys, bound, classes}})
	}
	last := s.Groups[len(s.Groups)-1]
	fmt.Fprintf(w, "containment threshold %s, num_perm %d: documents in size classes of powers of two; a pair whose classes are d apart\n",
		pyrepr.Float(threshold), numPerm)
	fmt.Fprintf(w, "is banded for the Jaccard it has at containment t and its worst size ratio 2^(d+1), J = t/(ratio+1-t).\n")
	fmt.Fprintf(w, "A pair whose larger set is under %s times the smaller is always in a group; at %s times or more it never is,\n",
		pyrepr.Float(last.MaxRatio/2), pyrepr.Float(last.MaxRatio))
	fmt.Fprintf(w, "and one %d or more classes apart is sampled (below) up to a size ratio of %s.\n", p.FromDistance, pyrepr.Float(p.MaxRatio))
	fmt.Fprintf(w, "%d band keys per document (Jaccard mode at this threshold: %d).\n", s.Keys(), jaccardBands(threshold, numPerm))
	fmt.Fprintf(w, "%-3s %-10s %-9s %-6s %-5s  P(candidate) at containment, worst ratio of the group\n", "d", "ratio <", "J floor", "bands", "rows")
	fmt.Fprintf(w, "%32s", "")
	for _, c := range containmentSims {
		fmt.Fprintf(w, "  %-6s", strconv.FormatFloat(c, 'f', -1, 64))
	}
	fmt.Fprintln(w)
	for _, g := range s.Groups {
		fmt.Fprintf(w, "%-3d %-10s %-9.4f %-6d %-5d   ", g.Distance, pyrepr.Float(g.MaxRatio), g.Floor, g.Bands, g.Rows)
		for _, c := range containmentSims {
			fmt.Fprintf(w, "  %.4f", s.Detection(c, g.MaxRatio, g.Distance))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nSampled, classes %d or more apart: a set of n shingles keys those hashed under %.4g/n of the smallest set\n", p.FromDistance, p.Rate)
	fmt.Fprintf(w, "it may be contained in, n/%s (about %d keys per document, every shingle of a smaller one); a pair meets\n", pyrepr.Float(p.MaxRatio), sampleKeys)
	fmt.Fprintf(w, "when it shares one under the smaller set's: P = 1-(1-%.4g/n)^(c*n) >= 1-exp(-%.4g*c), whatever the ratio.\n", p.Rate, p.Rate)
	fmt.Fprintf(w, "%-6s %-16s P(candidate) at containment, least over the class\n", "class", "sizes")
	fmt.Fprintf(w, "%23s", "")
	for _, c := range containmentSims {
		fmt.Fprintf(w, "  %-6s", strconv.FormatFloat(c, 'f', -1, 64))
	}
	fmt.Fprintln(w)
	for _, k := range classes {
		fmt.Fprintf(w, "%-6d %-16s", k.Class, fmt.Sprintf("%d-%d", k.MinSize, k.MaxSize))
		for _, c := range containmentSims {
			fmt.Fprintf(w, "  %.4f", k.Detection[strconv.FormatFloat(c, 'f', -1, 64)])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-6s %-16s", "any", "")
	for _, c := range containmentSims {
		fmt.Fprintf(w, "  %.4f", p.Bound(c))
	}
	fmt.Fprintln(w)
	return nil
}

// jaccardBands is the number of bands of dedup's default Jaccard banding, for scale.
func jaccardBands(threshold float64, numPerm int) int {
	p, err := pipeline.ChooseLSH(pipeline.LSHRecall, threshold, numPerm)
	if err != nil {
		return 0
	}
	return p.Bands
}
