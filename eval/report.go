package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Report is the outcome of an evaluation (the JSON layout of -json).
type Report struct {
	Documents  int64          `json:"documents"` // corpus size, singletons included
	Parameters ReportParams   `json:"parameters"`
	Result     ClusterSummary `json:"result"`
	VsTruth    *Agreement     `json:"vs_truth,omitempty"`
	VsExact    *Agreement     `json:"vs_exact,omitempty"`
	Exact      *ExactSummary  `json:"exact,omitempty"`
	Buckets    []Bucket       `json:"recall_by_similarity,omitempty"`
	Warnings   []string       `json:"warnings,omitempty"`
}

// ReportParams are the settings the evaluation used.
type ReportParams struct {
	Threshold  float64 `json:"threshold"`
	Bands      int     `json:"bands,omitempty"`
	Rows       int     `json:"rows,omitempty"`
	NGram      int     `json:"ngram"`
	Shingle    string  `json:"shingle"`
	StripPunct bool    `json:"strip_punct"`
}

// ClusterSummary describes the judged clustering.
type ClusterSummary struct {
	Clusters  int   `json:"clusters"`  // of size ≥ 2
	Documents int64 `json:"documents"` // in those clusters
	Pairs     int64 `json:"pairs"`     // co-clustered pairs
}

// Agreement compares the result with a reference clustering, pair by pair.
type Agreement struct {
	Reference         string  `json:"reference"`
	ReferenceClusters int     `json:"reference_clusters"`
	ReferencePairs    int64   `json:"reference_pairs"`
	ResultPairs       int64   `json:"result_pairs"`
	CommonPairs       int64   `json:"common_pairs"`
	Precision         float64 `json:"precision"`
	Recall            float64 `json:"recall"`
	F1                float64 `json:"f1"`
	ARI               float64 `json:"ari"`
	RandIndex         float64 `json:"rand_index"`
}

// ExactSummary describes the exact pairs used.
type ExactSummary struct {
	Threshold     float64 `json:"threshold"`                // pairs at or above it make the components
	JoinThreshold float64 `json:"join_threshold,omitempty"` // the join's threshold, when computed here
	AllPairs      int64   `json:"all_pairs"`                // pairs read or joined
	Pairs         int64   `json:"pairs"`                    // pairs ≥ Threshold
	PairsFound    int64   `json:"pairs_found"`              // of those, co-clustered in the result
	PairRecall    float64 `json:"pair_recall"`
	Components    int     `json:"components"` // connected components (size ≥ 2) of the pairs ≥ Threshold
}

func (r *Report) warn(s string) { r.Warnings = append(r.Warnings, s) }

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("eval: write report: %w", err)
	}
	return nil
}

// WriteText writes the report as readable tables.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := r.Parameters
	fmt.Fprintf(bw, "corpus: %d documents; threshold %v", r.Documents, p.Threshold)
	if p.Bands > 0 && p.Rows > 0 {
		fmt.Fprintf(bw, ", LSH b=%d r=%d", p.Bands, p.Rows)
	}
	fmt.Fprintf(bw, "\nresult: %d clusters holding %d documents, %d co-clustered pairs\n",
		r.Result.Clusters, r.Result.Documents, r.Result.Pairs)
	if r.Exact != nil {
		e := r.Exact
		src := "from the exact pairs file"
		if e.JoinThreshold > 0 {
			src = fmt.Sprintf("joined here at ≥ %v on %s %d-grams", e.JoinThreshold, p.Shingle, p.NGram)
		}
		fmt.Fprintf(bw, "exact:  %d pairs with Jaccard ≥ %v (%s) in %d components; %d of them (%.4f) co-clustered in the result\n",
			e.Pairs, e.Threshold, src, e.Components, e.PairsFound, e.PairRecall)
	}

	if r.VsTruth != nil || r.VsExact != nil {
		fmt.Fprintln(bw, "\nco-clustered pairs (singletons included in the ARI):")
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "reference\treference pairs\tresult pairs\tcommon\tprecision\trecall\tF1\tARI\t")
		for _, a := range []*Agreement{r.VsTruth, r.VsExact} {
			if a != nil {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t\n",
					a.Reference, a.ReferencePairs, a.ResultPairs, a.CommonPairs, a.Precision, a.Recall, a.F1, a.ARI)
			}
		}
		tw.Flush()
	}

	if len(r.Buckets) > 0 {
		fmt.Fprintln(bw, "\nexact pairs by similarity, found = both documents in one result cluster:")
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "similarity\tpairs\tfound\trecall\tS-curve\tshared a bucket\tof them lost\tshared share over seeds: 5%–95% (seeds lower than the run's)\t")
		for _, b := range r.Buckets {
			pred := "-"
			if b.Predicted != nil {
				pred = fmt.Sprintf("%.4f", *b.Predicted)
			}
			rec := "-"
			if b.Pairs > 0 {
				rec = fmt.Sprintf("%.4f", b.Recall)
			}
			banded, lost, noise := "-", "-", "-"
			if b.Banded != nil {
				banded, lost = fmt.Sprint(*b.Banded), fmt.Sprint(*b.BandedLost)
			}
			if b.Noise != nil {
				noise = fmt.Sprintf("%.4f–%.4f (%d of %d lower)", b.Noise.P5, b.Noise.P95, b.Noise.Below, b.Noise.Seeds)
			}
			fmt.Fprintf(tw, "%.2f–%.2f\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", b.Lo, b.Hi, b.Pairs, b.Found, rec, pred, banded, lost, noise)
		}
		tw.Flush()
		fmt.Fprintln(bw, "(S-curve: 1-(1-s^r)^b averaged over the bucket's pairs, the chance that LSH proposes such a pair;")
		fmt.Fprintln(bw, " pairs below the threshold can still be found through a chain of verified pairs.")
		fmt.Fprintln(bw, " With -noise-seeds: pairs that shared a bucket under the run's seed, those of them not co-clustered,")
		fmt.Fprintln(bw, " and the spread of the shared share over seeds: copies and families make pairs fail together.)")
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(bw, "warning: %s\n", s)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("eval: write report: %w", err)
	}
	return nil
}
