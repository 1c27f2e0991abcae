package sink

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/neardup/neardup/io/source"
)

// Pieces: the sink writes its outputs in the pieces the inputs were read in
// (source.ReadStages), so that a large file is re-read and written by many workers and
// a sharded output's parts are bounded by the read ranges, not by the input files. A
// piece is a byte range of a split (uncompressed JSONL or text) file, or a whole file:
// compressed and Parquet files are written whole. Pieces are numbered in input order,
// by file name and then range, and the outputs join them in that order.

// pieces maps the outcomes of input lines to the pieces they are written in.
type pieces struct {
	files []string                  // the inputs, sorted
	split map[string][]source.Range // the ranges of each split file, by Index
	// splitFiles are the split files, sorted, and extra[i] the pieces of the split files
	// before splitFiles[i] beyond one per file (extra[len(splitFiles)]: of all of them).
	splitFiles []string
	extra      []int
	total      int
	keys       map[string][]string // the grouping keys of each split file's pieces
}

// newPieces builds the table from the sorted inputs and their numbered read ranges.
func newPieces(files []string, ranges func(*source.Range) bool) *pieces {
	t := &pieces{files: files, split: map[string][]source.Range{}, keys: map[string][]string{}}
	var r source.Range
	for ranges(&r) {
		if !r.Whole() && !r.RowGroups {
			t.split[r.File] = append(t.split[r.File], r)
		}
	}
	t.total = len(files)
	for f, rs := range t.split {
		slices.SortFunc(rs, func(a, b source.Range) int { return cmp.Compare(a.Index, b.Index) })
		t.splitFiles = append(t.splitFiles, f)
		keys := make([]string, len(rs))
		for i, r := range rs {
			keys[i] = pieceKey(r)
		}
		t.keys[f] = keys
	}
	slices.Sort(t.splitFiles)
	n := 0
	for _, f := range t.splitFiles {
		t.extra = append(t.extra, n)
		n += len(t.split[f]) - 1
	}
	t.extra = append(t.extra, n)
	t.total += n
	return t
}

// pieceKey names a piece: its file's name, and for a range of a split file the range's
// index after a NUL, which no path holds.
func pieceKey(r source.Range) string {
	if r.Whole() {
		return r.File
	}
	return r.File + "\x00" + strconv.Itoa(r.Index)
}

// key is the grouping key of the piece holding line of file: the file name for a file
// written whole, else the name and the range's index. A split file's line belongs to the
// last range, not after damage, that starts at or before it: a damaged range also holds
// the rejection where its file broke, and the ranges after it hold nothing.
func (t *pieces) key(file string, line int64) string {
	rs := t.split[file]
	if len(rs) == 0 {
		return file
	}
	i := sort.Search(len(rs), func(i int) bool { return rs[i].First > line }) - 1
	for i > 0 && rs[i].AfterDamage {
		i--
	}
	return t.keys[file][max(i, 0)]
}

// piece returns the input file of a grouping key, its read range (whole for a file
// written whole), and the piece's number in input order (-1 when the file is not an
// input).
func (t *pieces) piece(key string) (file string, r source.Range, seq int) {
	file, idx, split := strings.Cut(key, "\x00")
	r = source.Range{File: file, End: -1}
	i, ok := slices.BinarySearch(t.files, file)
	if !ok {
		return file, r, -1
	}
	j, _ := slices.BinarySearch(t.splitFiles, file)
	seq = i + t.extra[j]
	if !split {
		return file, r, seq
	}
	n, err := strconv.Atoi(idx)
	rs := t.split[file]
	if err != nil || n < 0 || n >= len(rs) || rs[n].Index != n {
		return file, r, -1
	}
	return file, rs[n], seq + n
}
