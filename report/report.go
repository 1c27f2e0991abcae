package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup/containment"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/jaccard"
	"github.com/neardup/neardup/normalize"
	"github.com/neardup/neardup/plot"
	"github.com/neardup/neardup/shingleset"
)

// Options bound what the page holds; a zero field but Clusters means its default.
type Options struct {
	Name       string // the output directory as the page names it (default: the directory read)
	Clusters   int    // clusters sampled, 0 for none: the largest fifth, then a seeded random sample
	MaxMembers int    // removed members shown per sampled cluster (default 10)
	MaxRunes   int    // characters of a text shown (default 10,000); the rest is cut, and said so
	// MaxBytes caps the page (default 8 MiB): once the documents shown would pass it, the
	// remaining pairs are listed without their texts.
	MaxBytes int
	// KeptTexts, when set, is a JSONL file holding at least every kept record the page
	// can show (the dedup run's sink.ReportTexts); it is read instead of the kept output,
	// which holds nearly the whole corpus.
	KeptTexts string
}

// Defaults of Options.
const (
	DefaultClusters   = 50 // --report-clusters
	DefaultMaxMembers = 10
	DefaultMaxRunes   = 10_000
	DefaultMaxBytes   = 8 << 20
	topClusters       = 20        // rows of the largest-clusters table
	maxInputsShown    = 20        // input files listed
	fixedReserve      = 256 << 10 // bytes kept for everything but the documents
	collapseRunes     = 600       // texts longer than this start collapsed
)

func (o Options) withDefaults() Options {
	if o.MaxMembers <= 0 {
		o.MaxMembers = DefaultMaxMembers
	}
	if o.MaxRunes <= 0 {
		o.MaxRunes = DefaultMaxRunes
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// Write builds the page of the run whose outputs are in dir and writes it to
// dir/report.html (local or gs://), under a temporary name renamed when complete.
func Write(ctx context.Context, dir string, o Options) error {
	page, err := Build(ctx, dir, o)
	if err != nil {
		return err
	}
	path := files.Join(dir, HTMLFile)
	tmp := files.Join(dir, "."+HTMLFile+".tmp")
	w, err := files.Create(ctx, tmp)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	if _, err := w.Write(page); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err := files.Rename(ctx, tmp, path); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, path, err)
	}
	return nil
}

// Build returns the page of the run whose outputs are in dir. It reads stats.json,
// similarities.json (optional: runs before it existed have no histograms),
// clusters.jsonl, removed.jsonl and the kept file (or Options.KeptTexts in its place),
// each streamed once.
func Build(ctx context.Context, dir string, o Options) ([]byte, error) {
	o = o.withDefaults()
	var st stats
	if err := readJSONFile(ctx, files.Join(dir, StatsFile), &st); err != nil {
		return nil, fmt.Errorf("report: %w (is %s the --output of a finished neardup dedup?)", err, dir)
	}
	var raw struct {
		Parameters map[string]json.RawMessage `json:"parameters"`
	}
	if err := readJSONFile(ctx, files.Join(dir, StatsFile), &raw); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var sims *Similarities
	if r, err := files.Open(ctx, files.Join(dir, SimilaritiesFile)); err == nil {
		r.Close()
		sims = &Similarities{}
		if err := readJSONFile(ctx, files.Join(dir, SimilaritiesFile), sims); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	sample, largest, nClusters, err := sampleClusters(ctx, files.Join(dir, ClustersFile), max(0, o.Clusters), topClusters, o.MaxMembers, st.Parameters.Seed)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	want := map[string]bool{}
	for _, c := range sample {
		for _, m := range c.Members {
			want[m] = true
		}
	}
	if sims != nil {
		for _, p := range slices.Concat(sims.LowestVerified, sims.HighestRejected) {
			want[p.A], want[p.B] = true, true
		}
	}
	p := st.Parameters
	sh, err := shingleset.Config{Kind: orDefault(p.Shingle, "word"), N: p.NGram, StripPunct: p.StripPunct,
		Hash: orDefault(p.Hash, "xxhash"), MaxShingles: p.MaxShingles}.Full().Shingler() // the page's similarities are exact: whole sets
	if err != nil {
		return nil, fmt.Errorf("report: shingle parameters in %s: %w", StatsFile, err)
	}
	docs, err := loadTexts(ctx, dir, o.KeptTexts, &st, want, o.MaxRunes, sh)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	docs.containment = p.Measure == measureContainment
	docs.key = func(w string) string { return normalize.Text(w, normalize.Options{StripPunct: p.StripPunct}) }

	pg := page{Dir: orDefault(o.Name, dir), Measure: "Jaccard", Stats: &st, Options: o, ClustersTotal: nClusters, Largest: largest, Sims: sims}
	if p.Measure == measureContainment {
		pg.Measure = "containment"
	}
	pg.fill(raw.Parameters)
	budget := &budget{left: o.MaxBytes - fixedReserve}
	for _, c := range sample {
		pc := pageCluster{cluster: c}
		for _, m := range c.Members[1:] {
			pr := docs.pair(c.Kept, m, budget)
			if rd, ok := docs.removed[m]; ok {
				pr.Note = fmt.Sprintf("similarity to its verified neighbour %s", fmtSim(rd.Similarity))
			}
			pc.Pairs = append(pc.Pairs, pr)
		}
		pg.Clusters = append(pg.Clusters, pc)
	}
	if sims != nil {
		for _, np := range sims.LowestVerified {
			pg.Lowest = append(pg.Lowest, nearRow{np, docs.pair(np.A, np.B, budget)})
		}
		for _, np := range sims.HighestRejected {
			pg.Highest = append(pg.Highest, nearRow{np, docs.pair(np.A, np.B, budget)})
		}
	}
	pg.Omitted = budget.omitted
	var out bytes.Buffer
	if err := pageTemplate.Execute(&out, &pg); err != nil {
		return nil, fmt.Errorf("report: render: %w", err)
	}
	if out.Len() > o.MaxBytes {
		return nil, fmt.Errorf("report: the page came to %d bytes, over its cap of %d (internal error)", out.Len(), o.MaxBytes)
	}
	return out.Bytes(), nil
}

// budget hands out the bytes the documents may take.
type budget struct {
	left    int
	omitted int
}

// pair is the side-by-side view of two documents: a (kept, or the pair's first) on the
// left, b on the right.
type pair struct {
	A, B         string
	Left, Right  []Segment
	Diffed       bool   // word differences are marked
	Sim          string // exact Jaccard (or containment) of the two, computed here
	Note         string
	Missing      string // what could not be shown
	Long         bool   // starts collapsed
	CutA, CutB   bool
	HaveA, HaveB bool
}

func (t *texts) pair(a, b string, bud *budget) pair {
	pr := pair{A: a, B: b}
	ta, okA := t.text[a]
	tb, okB := t.text[b]
	pr.HaveA, pr.HaveB = okA, okB
	pr.CutA, pr.CutB = t.cut[a], t.cut[b]
	if okA && okB {
		if t.containment {
			pr.Sim = fmtSim(containment.Of(t.hashes[a], t.hashes[b]))
		} else {
			pr.Sim = fmtSim(jaccard.Similarity(t.hashes[a], t.hashes[b]))
		}
	}
	// Each id is shown four times; everything escaped may grow (htmlLen).
	if size := htmlLen(ta) + htmlLen(tb) + 4*(htmlLen(shownID(a))+htmlLen(shownID(b))) + 512; size > bud.left {
		bud.omitted++
		pr.Missing = "texts left out: the report's size cap was reached"
		return pr
	} else {
		bud.left -= size
	}
	switch {
	case okA && okB:
		pr.Left, pr.Right, pr.Diffed = WordDiff(ta, tb, t.key)
	case okA:
		pr.Left = []Segment{{Same, ta}}
	case okB:
		pr.Right = []Segment{{Same, tb}}
	}
	pr.Long = len([]rune(ta)) > collapseRunes || len([]rune(tb)) > collapseRunes
	return pr
}

// maxIDBytes caps an id as the page shows it: ids are the user's, and one of megabytes,
// repeated wherever its document appears, would pass the page's size cap alone.
const maxIDBytes = 200

// shownID is id as the page shows it: whole when short, else its first maxIDBytes bytes
// (cut at a character boundary) and its length.
func shownID(id string) string {
	if len(id) <= maxIDBytes {
		return id
	}
	cut := maxIDBytes
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (an id of %d bytes, cut)", id[:cut], len(id))
}

// htmlLen bounds the length of s once the page escapes it: each of <>&'" becomes an
// entity of at most five bytes.
func htmlLen(s string) int {
	return len(s) + 4*strings.Count(s, "<") + 4*strings.Count(s, ">") + 4*strings.Count(s, "&") +
		4*strings.Count(s, "'") + 4*strings.Count(s, `"`)
}

func fmtSim(s float64) string { return strconv.FormatFloat(s, 'f', 4, 64) }

// page is what the template shows.
type page struct {
	Dir           string
	Measure       string // what the shown similarities are: "Jaccard" or "containment"
	Stats         *stats
	Options       Options
	Params        []kv
	Counts        []kv
	Timings       []kv
	CC            []kv
	Inputs        []string
	MoreInputs    int
	SCurve        template.HTML
	Sizes         []sizeBar
	ClustersTotal int
	Largest       []cluster
	Clusters      []pageCluster
	Sims          *Similarities
	Lowest        []nearRow
	Highest       []nearRow
	Omitted       int
}

type kv struct{ K, V string }

type sizeBar struct {
	Label string
	N     int64
	Width int // pixels
}

type pageCluster struct {
	cluster
	Pairs []pair
}

type nearRow struct {
	NearPair
	Pair pair
}

// countOrder lists the counts in the order a reader follows the pipeline; others follow
// by name.
var countOrder = []string{
	"documents_read", "records_rejected", "kept", "removed", "clusters", "exact_duplicates",
	"candidate_pairs", "verified_pairs", "false_candidates", "estimate_filtered",
	"shared_buckets", "bucket_edges", "shingles", "empty_documents", "capped_documents",
	"invalid_utf8_replaced", "output_kept", "output_removed", "output_rejected",
}

func (pg *page) fill(params map[string]json.RawMessage) {
	st := pg.Stats
	for _, k := range sortedKeys(params) {
		pg.Params = append(pg.Params, kv{k, strings.Trim(string(params[k]), `"`)})
	}
	names := sortedKeys(st.Counts)
	slices.SortStableFunc(names, func(a, b string) int { return rank(a) - rank(b) })
	for _, k := range names {
		pg.Counts = append(pg.Counts, kv{k, strconv.FormatInt(st.Counts[k], 10)})
	}
	for _, k := range sortedKeys(st.Timings) {
		pg.Timings = append(pg.Timings, kv{k, strconv.FormatFloat(st.Timings[k], 'f', 2, 64) + " s"})
	}
	for _, k := range sortedKeys(st.ConnectedComponents) {
		pg.CC = append(pg.CC, kv{k, fmt.Sprint(st.ConnectedComponents[k])})
	}
	pg.Inputs = st.Inputs[:min(len(st.Inputs), maxInputsShown)]
	pg.MoreInputs = len(st.Inputs) - len(pg.Inputs)

	labels := sortedKeys(st.ClusterSizes)
	slices.SortFunc(labels, func(a, b string) int { return lowBound(a) - lowBound(b) })
	var top int64
	for _, n := range st.ClusterSizes {
		top = max(top, n)
	}
	for _, l := range labels {
		pg.Sizes = append(pg.Sizes, sizeBar{l, st.ClusterSizes[l], int(1 + 199*st.ClusterSizes[l]/max(top, 1))})
	}

	p := st.Parameters
	sc := plot.SCurve{
		Title:     "LSH S-curve and the similarities verification measured",
		Subtitle:  fmt.Sprintf("b=%d bands × r=%d rows, threshold %v", p.Bands, p.Rows, p.Threshold),
		Bands:     p.Bands,
		Rows:      p.Rows,
		Threshold: p.Threshold,
	}
	if s := pg.Sims; s != nil {
		if p.Measure == measureContainment {
			sc.Subtitle = fmt.Sprintf("containment threshold %v; the size-class groups' curves: neardup params --measure containment", p.Threshold)
			sc.XLabel = "containment of the smaller document in the larger"
		}
		if s.Basis == "estimate" {
			sc.XLabel = "similarity of the pair (MinHash estimate: --verify " + p.Verify + ")"
		}
		sc.Histograms = []plot.Histogram{
			{Label: "verified pairs", Color: "#2ca02c", Width: s.BinWidth, Counts: s.Verified},
			{Label: "false candidates", Color: "#d62728", Width: s.BinWidth, Counts: s.FalseCandidates},
		}
	}
	var svg bytes.Buffer
	if err := sc.Write(&svg); err == nil { // a bytes.Buffer never fails
		pg.SCurve = template.HTML(svg.String())
	}
}

func rank(name string) int {
	if i := slices.Index(countOrder, name); i >= 0 {
		return i
	}
	return len(countOrder)
}

// lowBound is the smallest size of a cluster-size bucket label ("2", "3-4", "5-8").
func lowBound(label string) int {
	n, _ := strconv.Atoi(strings.SplitN(label, "-", 2)[0])
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
