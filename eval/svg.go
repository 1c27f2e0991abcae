package eval

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/neardup/neardup/transforms/lsh"
)

// Plot geometry, in SVG user units.
const (
	svgW, svgH                         = 760, 500
	marginL, marginR, marginT, marginB = 80, 30, 70, 70
	plotW, plotH                       = svgW - marginL - marginR, svgH - marginT - marginB
)

// WriteSVG draws measured recall per similarity bucket (steps with a dot at each
// midpoint, hover for counts) against the LSH S-curve 1-(1-s^r)^b, with the
// threshold marked: a self-contained SVG document.
func WriteSVG(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	p := r.Parameters
	haveCurve := p.Bands > 0 && p.Rows > 0

	// x from a round value below both the buckets and the threshold, so the
	// S-curve's rise is visible, to 1.
	xmin := p.Threshold - 0.3
	if len(r.Buckets) > 0 {
		xmin = min(xmin, r.Buckets[0].Lo)
	}
	xmin = max(0, math.Floor(xmin*10+1e-9)/10)
	x := func(s float64) float64 { return marginL + (s-xmin)/(1-xmin)*plotW }
	y := func(v float64) float64 { return marginT + (1-v)*plotH }

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">`+"\n",
		svgW, svgH, svgW, svgH)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	title := "Recall of exact pairs by Jaccard similarity"
	fmt.Fprintf(bw, `<text x="%d" y="28" text-anchor="middle" font-size="17" font-weight="bold">%s</text>`+"\n", svgW/2, esc(title))
	sub := fmt.Sprintf("threshold %v", p.Threshold)
	if haveCurve {
		sub = fmt.Sprintf("LSH b=%d bands × r=%d rows, %s", p.Bands, p.Rows, sub)
	}
	sub += fmt.Sprintf(", %d documents", r.Documents)
	fmt.Fprintf(bw, `<text x="%d" y="48" text-anchor="middle" fill="#444">%s</text>`+"\n", svgW/2, esc(sub))

	// Grid, ticks and tick labels.
	for i := 0; i <= 10; i++ {
		v := float64(i) / 10
		fmt.Fprintf(bw, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>`+"\n", marginL, y(v), marginL+plotW, y(v))
		fmt.Fprintf(bw, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%.1f</text>`+"\n", marginL-8, y(v), v)
	}
	step := 0.05
	if 1-xmin > 0.5 {
		step = 0.1
	}
	for s := xmin; s <= 1+1e-9; s += step {
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e4e4e4"/>`+"\n", x(s), marginT, x(s), marginT+plotH)
		fmt.Fprintf(bw, `<text x="%.1f" y="%d" text-anchor="middle">%.2f</text>`+"\n", x(s), marginT+plotH+20, s)
	}
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>`+"\n", marginL, marginT, plotW, plotH)
	// Axis labels.
	fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="middle">exact Jaccard similarity of the pair (shingle sets)</text>`+"\n",
		marginL+plotW/2, svgH-22)
	fmt.Fprintf(bw, `<text transform="translate(24 %d) rotate(-90)" text-anchor="middle">recall: share of exact pairs found in one cluster</text>`+"\n",
		marginT+plotH/2)

	// Threshold.
	if p.Threshold > xmin && p.Threshold <= 1 {
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888" stroke-dasharray="5 4"/>`+"\n",
			x(p.Threshold), marginT, x(p.Threshold), marginT+plotH)
		fmt.Fprintf(bw, `<text x="%.1f" y="%d" text-anchor="end" fill="#666" font-size="12">threshold %v</text>`+"\n",
			x(p.Threshold)-4, marginT+plotH-8, p.Threshold)
	}

	// The S-curve.
	if haveCurve {
		var pts strings.Builder
		const n = 200
		for i := 0; i <= n; i++ {
			s := xmin + (1-xmin)*float64(i)/n
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(s), y(lsh.Detection(s, p.Bands, p.Rows)))
		}
		fmt.Fprintf(bw, `<polyline points="%s" fill="none" stroke="#1f77b4" stroke-width="2"/>`+"\n", strings.TrimSpace(pts.String()))
	}

	// Measured recall: a step over each bucket and a dot at its midpoint.
	for _, b := range r.Buckets {
		if b.Pairs == 0 {
			continue
		}
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ff7f0e" stroke-width="2.5"/>`+"\n",
			x(b.Lo), y(b.Recall), x(b.Hi), y(b.Recall))
		tip := fmt.Sprintf("%.2f–%.2f: %d of %d pairs found (%.4f)", b.Lo, b.Hi, b.Found, b.Pairs, b.Recall)
		if b.Predicted != nil {
			tip += fmt.Sprintf("; S-curve %.4f", *b.Predicted)
		}
		fmt.Fprintf(bw, `<circle cx="%.1f" cy="%.1f" r="4.5" fill="#ff7f0e"><title>%s</title></circle>`+"\n",
			x((b.Lo+b.Hi)/2), y(b.Recall), esc(tip))
	}

	// Legend.
	lx, ly := marginL+14, marginT+18
	legendH := 28
	if haveCurve {
		legendH = 48
	}
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="250" height="%d" fill="white" stroke="#bbb"/>`+"\n", lx-8, ly-14, legendH)
	fmt.Fprintf(bw, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ff7f0e" stroke-width="2.5"/><circle cx="%d" cy="%d" r="4.5" fill="#ff7f0e"/>`+"\n",
		lx, ly, lx+24, ly, lx+12, ly)
	fmt.Fprintf(bw, `<text x="%d" y="%d" dominant-baseline="middle">measured recall per bucket</text>`+"\n", lx+32, ly)
	if haveCurve {
		ly += 20
		fmt.Fprintf(bw, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#1f77b4" stroke-width="2"/>`+"\n", lx, ly, lx+24, ly)
		fmt.Fprintf(bw, `<text x="%d" y="%d" dominant-baseline="middle">S-curve 1-(1-s^r)^b</text>`+"\n", lx+32, ly)
	}
	fmt.Fprintln(bw, `</svg>`)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("eval: write svg: %w", err)
	}
	return nil
}

// esc escapes text for SVG content.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}
