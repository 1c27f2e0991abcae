// Package record defines the values that flow between neardup's readers, the dedup
// pipeline and its writers. Readers turn input records into Docs or Rejected; the pipeline
// turns every Doc into exactly one Decision; writers re-read the inputs and route each
// record by its Decision, so record bytes are never shuffled and kept output stays
// byte-identical to the input.
package record

// Doc is one readable input record.
type Doc struct {
	ID   string // the record's id field, or a stable generated id (see GeneratedID)
	File string // the input file the record came from, as the user named it
	Line int64  // 1-based line (JSONL, text) or row (Parquet) number within File
	Text string // the text field, not yet normalized
	// Shingles are the stored shingle hashes of a document read from an index (it has no
	// Text); nil for input records.
	Shingles []uint64
}

// Rejected is an input record that could not be used, with where it was and why.
type Rejected struct {
	File   string
	Line   int64
	Reason string // e.g. `invalid JSON: unexpected end of input`, `field "text": missing`
}

// Decisions is a batch of Decisions: the pipeline moves them in batches, since a runner's
// cost is per element, whatever its size.
type Decisions struct{ Items []Decision }

// Decision is the fate of one Doc: kept, or removed as a duplicate of Cluster.
type Decision struct {
	File        string
	Line        int64
	ID          string
	Removed     bool
	Cluster     string  // the id of the member the Doc's cluster keeps (removed.jsonl's __cluster__); ID itself for singletons
	Similarity  float64 // removed docs: the highest exact Jaccard to a verified neighbour; 0 when kept
	ClusterSize int64   // members of the Doc's cluster; 1 for singletons
	Index       string  // removed docs whose Cluster is an indexed document: that index (--against)
	// Shown marks a Doc whose text report.html may show: a member of a cluster, or one end
	// of a pair near the threshold. The sink copies such kept records where the report
	// reads them (sink.ReportTexts), so the report never scans the whole kept output.
	Shown bool
}
