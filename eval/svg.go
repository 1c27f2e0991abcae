package eval

import (
	"fmt"
	"io"

	"github.com/neardup/neardup/plot"
)

// WriteSVG draws measured recall per similarity bucket (steps with a dot at each
// midpoint, hover for counts) against the LSH S-curve 1-(1-s^r)^b, with the
// threshold marked: a self-contained SVG document.
func WriteSVG(w io.Writer, r *Report) error {
	p := r.Parameters
	sub := fmt.Sprintf("threshold %v", p.Threshold)
	if p.Bands > 0 && p.Rows > 0 {
		sub = fmt.Sprintf("LSH b=%d bands × r=%d rows, %s", p.Bands, p.Rows, sub)
	}
	sub += fmt.Sprintf(", %d documents", r.Documents)
	steps := make([]plot.Step, len(r.Buckets))
	for i, b := range r.Buckets {
		steps[i] = plot.Step{Lo: b.Lo, Hi: b.Hi, Pairs: b.Pairs, Found: b.Found, Recall: b.Recall, Predicted: b.Predicted}
	}
	return (&plot.SCurve{
		Title:     "Recall of exact pairs by Jaccard similarity",
		Subtitle:  sub,
		YLabel:    "recall: share of exact pairs found in one cluster",
		Bands:     p.Bands,
		Rows:      p.Rows,
		Threshold: p.Threshold,
		Steps:     steps,
	}).Write(w)
}
