// Package report writes report.html, one self-contained page (inline CSS, JS and SVG; no
// network) to look at a dedup run: its parameters and counts, the LSH S-curve against the
// similarities verification measured, cluster sizes, a deterministic sample of clusters
// with each removed document beside the kept one, and the pairs nearest the threshold.
// It reads only the output directory, so `neardup report OUT` can rebuild the page of
// any finished run.
package report

// File names in the output directory.
const (
	HTMLFile         = "report.html"
	StatsFile        = "stats.json"
	ClustersFile     = "clusters.jsonl"
	RemovedFile      = "removed.jsonl"
	SimilaritiesFile = "similarities.json"
)

// Similarities is similarities.json, written by the pipeline's verification stage:
// the similarity histograms of the verified pairs and of the false candidates, and the
// pairs closest to the threshold on either side.
type Similarities struct {
	// Basis is what the similarities are: "exact" Jaccard of the shingle sets, or the
	// MinHash "estimate" (--verify estimate|none).
	Basis    string  `json:"basis"`
	BinWidth float64 `json:"bin_width"`
	// Verified and FalseCandidates count the pairs per bin; exact duplicates, joined
	// before LSH, are not among them.
	Verified        []int64    `json:"verified_pairs"`
	FalseCandidates []int64    `json:"false_candidates"`
	LowestVerified  []NearPair `json:"lowest_verified"`
	HighestRejected []NearPair `json:"highest_rejected"`
}

// NearPair is a candidate pair and its similarity.
type NearPair struct {
	A          string  `json:"a"`
	B          string  `json:"b"`
	Similarity float64 `json:"similarity"`
}

// measureContainment is stats.json's measure under dedup --measure containment.
const measureContainment = "containment"

// stats is the part of stats.json the report shows.
type stats struct {
	Parameters struct {
		Threshold   float64 `json:"threshold"`
		Bands       int     `json:"b"`
		Rows        int     `json:"r"`
		NGram       int     `json:"ngram"`
		Shingle     string  `json:"shingle"`
		StripPunct  bool    `json:"strip_punct"`
		Hash        string  `json:"hash"`
		Seed        int64   `json:"seed"`
		Verify      string  `json:"verify"`
		Measure     string  `json:"measure"` // "" (Jaccard) or measureContainment
		MaxShingles int     `json:"max_shingles"`
		IDField     string  `json:"id_field"`
		TextField   string  `json:"text_field"`
		// MaxRecordBytes is the record size limit the inputs were read with.
		MaxRecordBytes int64 `json:"max_record_bytes"`
	} `json:"parameters"`
	RawParameters       map[string]any     `json:"-"`
	Inputs              []string           `json:"inputs"`
	Counts              map[string]int64   `json:"counts"`
	ConnectedComponents map[string]any     `json:"connected_components"`
	LargestCluster      int64              `json:"largest_cluster"`
	ClusterSizes        map[string]int64   `json:"cluster_sizes"`
	Warnings            []string           `json:"warnings"`
	Detection           map[string]float64 `json:"detection_probability"`
	Timings             map[string]float64 `json:"timings"`
}
