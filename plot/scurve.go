// Package plot draws the LSH S-curve beside measured recall and similarity histograms
// as a self-contained SVG, for neardup eval and report.html.
package plot

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/neardup/neardup/lsh"
)

// Plot geometry, in SVG user units.
const (
	svgW, svgH                         = 760, 500
	marginL, marginR, marginT, marginB = 80, 70, 70, 70
	plotW, plotH                       = svgW - marginL - marginR, svgH - marginT - marginB
)

// SCurve is the chart of the LSH S-curve 1-(1-s^r)^b against what was measured:
// recall steps per similarity bucket (neardup eval) and/or histograms of pair
// similarities (the dedup report), the threshold marked. Title, Subtitle and YLabel
// have defaults; Bands or Rows 0 leaves the curve out.
type SCurve struct {
	Title, Subtitle string
	XLabel, YLabel  string
	Bands, Rows     int
	Threshold       float64
	Steps           []Step      // measured recall, drawn as steps on the 0–1 axis
	Histograms      []Histogram // drawn as bars against a count axis on the right
}

// Step is the recall measured over pairs of similarity in [Lo, Hi): Found of Pairs,
// and the S-curve's prediction when known.
type Step struct {
	Lo, Hi       float64
	Pairs, Found int64
	Recall       float64
	Predicted    *float64
}

// Histogram counts pairs per similarity bin: Counts[i] covers [Lo+i·Width, Lo+(i+1)·Width).
type Histogram struct {
	Label  string
	Color  string
	Lo     float64
	Width  float64
	Counts []int64
}

// xMin is a round value below the buckets, the non-empty bins and the threshold, so the
// S-curve's rise is visible.
func (c *SCurve) xMin() float64 {
	xmin := c.Threshold - 0.3
	if len(c.Steps) > 0 {
		xmin = min(xmin, c.Steps[0].Lo)
	}
	for _, h := range c.Histograms {
		for i, n := range h.Counts {
			if n > 0 {
				xmin = min(xmin, h.Lo+float64(i)*h.Width)
				break
			}
		}
	}
	return max(0, math.Floor(xmin*10+1e-9)/10)
}

// Write writes the chart as a self-contained SVG document (also valid inline in HTML).
func (c *SCurve) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	haveCurve := c.Bands > 0 && c.Rows > 0
	xmin := c.xMin()
	x := func(s float64) float64 { return marginL + (s-xmin)/(1-xmin)*plotW }
	y := func(v float64) float64 { return marginT + (1-v)*plotH }

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">`+"\n",
		svgW, svgH, svgW, svgH)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	title := orDefault(c.Title, "LSH S-curve by Jaccard similarity")
	fmt.Fprintf(bw, `<text x="%d" y="28" text-anchor="middle" font-size="17" font-weight="bold">%s</text>`+"\n", svgW/2, esc(title))
	fmt.Fprintf(bw, `<text x="%d" y="48" text-anchor="middle" fill="#444">%s</text>`+"\n", svgW/2, esc(c.Subtitle))

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
	fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n",
		marginL+plotW/2, svgH-22, esc(orDefault(c.XLabel, "exact Jaccard similarity of the pair (shingle sets)")))
	fmt.Fprintf(bw, `<text transform="translate(24 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n",
		marginT+plotH/2, esc(orDefault(c.YLabel, "probability of becoming a candidate")))

	c.writeHistograms(bw, x, xmin)

	// Threshold.
	if c.Threshold > xmin && c.Threshold <= 1 {
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888" stroke-dasharray="5 4"/>`+"\n",
			x(c.Threshold), marginT, x(c.Threshold), marginT+plotH)
		fmt.Fprintf(bw, `<text x="%.1f" y="%d" text-anchor="end" fill="#666" font-size="12">threshold %v</text>`+"\n",
			x(c.Threshold)-4, marginT+plotH-8, c.Threshold)
	}

	// The S-curve.
	if haveCurve {
		var pts strings.Builder
		const n = 200
		for i := 0; i <= n; i++ {
			s := xmin + (1-xmin)*float64(i)/n
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(s), y(lsh.Detection(s, c.Bands, c.Rows)))
		}
		fmt.Fprintf(bw, `<polyline points="%s" fill="none" stroke="#1f77b4" stroke-width="2"/>`+"\n", strings.TrimSpace(pts.String()))
	}

	// Measured recall: a step over each bucket and a dot at its midpoint.
	for _, b := range c.Steps {
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

	c.writeLegend(bw, haveCurve)
	fmt.Fprintln(bw, `</svg>`)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("eval: write svg: %w", err)
	}
	return nil
}

// writeHistograms draws the histograms as translucent bars on one count scale (the right
// axis), so their sizes compare; hover a bar for its count.
func (c *SCurve) writeHistograms(bw *bufio.Writer, x func(float64) float64, xmin float64) {
	var top int64
	for _, h := range c.Histograms {
		for _, n := range h.Counts {
			top = max(top, n)
		}
	}
	if top == 0 {
		return
	}
	scale := niceCeil(top)
	yc := func(n float64) float64 { return marginT + plotH - n/float64(scale)*plotH }
	for i := 0; i <= 4; i++ {
		v := float64(scale) * float64(i) / 4
		fmt.Fprintf(bw, `<text x="%d" y="%.1f" dominant-baseline="middle" fill="#555">%s</text>`+"\n", marginL+plotW+6, yc(v), countLabel(v))
	}
	fmt.Fprintf(bw, `<text transform="translate(%d %d) rotate(90)" text-anchor="middle" fill="#555">pairs per bin</text>`+"\n",
		svgW-12, marginT+plotH/2)
	for _, h := range c.Histograms {
		for i, n := range h.Counts {
			lo, hi := h.Lo+float64(i)*h.Width, h.Lo+float64(i+1)*h.Width
			if n == 0 || hi <= xmin+1e-9 {
				continue
			}
			lo = max(lo, xmin)
			fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.55"><title>%s %.2f–%.2f: %d</title></rect>`+"\n",
				x(lo), yc(float64(n)), max(1, x(hi)-x(lo)-0.5), float64(n)/float64(scale)*plotH, h.Color, esc(h.Label), lo, hi, n)
		}
	}
}

func (c *SCurve) writeLegend(bw *bufio.Writer, haveCurve bool) {
	type entry struct{ kind, color, label string }
	var es []entry
	if len(c.Steps) > 0 {
		es = append(es, entry{"dot", "#ff7f0e", "measured recall per bucket"})
	}
	if haveCurve {
		es = append(es, entry{"line", "#1f77b4", "S-curve 1-(1-s^r)^b"})
	}
	for _, h := range c.Histograms {
		es = append(es, entry{"bar", h.Color, h.Label})
	}
	if len(es) == 0 {
		return
	}
	lx, ly := marginL+14, marginT+18
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="290" height="%d" fill="white" stroke="#bbb"/>`+"\n", lx-8, ly-14, 8+20*len(es))
	for _, e := range es {
		switch e.kind {
		case "dot":
			fmt.Fprintf(bw, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.5"/><circle cx="%d" cy="%d" r="4.5" fill="%s"/>`+"\n",
				lx, ly, lx+24, ly, e.color, lx+12, ly, e.color)
		case "line":
			fmt.Fprintf(bw, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", lx, ly, lx+24, ly, e.color)
		default:
			fmt.Fprintf(bw, `<rect x="%d" y="%d" width="24" height="10" fill="%s" fill-opacity="0.55"/>`+"\n", lx, ly-5, e.color)
		}
		fmt.Fprintf(bw, `<text x="%d" y="%d" dominant-baseline="middle">%s</text>`+"\n", lx+32, ly, esc(e.label))
		ly += 20
	}
}

// niceCeil rounds n up to 1, 2, 4, 5 or 8 times a power of ten, so the four tick labels stay short.
func niceCeil(n int64) int64 {
	p := int64(1)
	for {
		for _, m := range []int64{1, 2, 4, 5, 8, 10} {
			if m*p >= n {
				return m * p
			}
		}
		p *= 10
	}
}

func countLabel(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// esc escapes text for SVG content.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}
