package elem

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/record"
	"github.com/neardup/neardup/shingleset"
)

// Deduplicating against an index (--against) and preferring inputs (--prefer) reuse the
// whole pipeline: indexed documents enter it as Docs that carry their stored shingle
// hashes, and they and the documents of preferred inputs take part under internal ids
// that sort before every input id. Since every stage picks the smallest id (the exact-
// duplicate representative, a bucket's hub, a cluster's label), these documents win
// their clusters with no stage knowing about them; the keep policy only has to keep the
// kept one in the best class and never remove an indexed document, and the decision
// gives indexed documents no Decision (they are not input records) and turns internal
// ids back into the users' ids.

// Id classes, in the order they win a cluster.
const (
	ClassIndexed = iota
	ClassPreferred
	ClassInput
)

const (
	indexedPrefix   = "\x00i"
	PreferredPrefix = "\x00p\x00"
)

// IndexedID is the internal id of document id of the ord-th --against index.
func IndexedID(ord int, id string) string { return fmt.Sprintf("%s%03d\x00%s", indexedPrefix, ord, id) }

// IDClass is the class of an internal id: ClassIndexed, ClassPreferred or ClassInput.
func IDClass(id string) int {
	switch {
	case strings.HasPrefix(id, indexedPrefix):
		return ClassIndexed
	case strings.HasPrefix(id, PreferredPrefix):
		return ClassPreferred
	}
	return ClassInput
}

// BothIndexed reports whether both ends of a pair are indexed documents. Such a pair is
// never an edge: a run answers for its input documents, and an index's documents are
// linked only through them, whatever the index's format (a format 2 lookup never forms
// the pair at all).
func BothIndexed(u, v string) bool { return IDClass(u) == ClassIndexed && IDClass(v) == ClassIndexed }

// IndexOf is the ordinal of an indexed id's index, or -1.
func IndexOf(id string) int {
	if !strings.HasPrefix(id, indexedPrefix) || len(id) < len(indexedPrefix)+4 {
		return -1
	}
	n, err := strconv.Atoi(id[len(indexedPrefix) : len(indexedPrefix)+3])
	if err != nil {
		return -1
	}
	return n
}

// ExternalID is the id the user gave a document.
func ExternalID(id string) string {
	switch IDClass(id) {
	case ClassIndexed:
		return id[len(indexedPrefix)+4:]
	case ClassPreferred:
		return id[len(PreferredPrefix):]
	}
	return id
}

// DocHashes is sh.Hashes for a Doc: an indexed document brings its stored hashes (already
// capped when the index was built with the same --max-shingles).
func DocHashes(sh *shingleset.Shingler, d record.Doc) ([]uint64, bool) {
	if IDClass(d.ID) == ClassIndexed {
		return d.Shingles, false
	}
	return sh.Hashes(d.Text)
}

// DocSet is DocHashes in no particular order, in scratch's memory (see Shingler.Set).
func DocSet(sh *shingleset.Shingler, scratch *shingleset.Scratch, d record.Doc) ([]uint64, bool) {
	if IDClass(d.ID) == ClassIndexed {
		return d.Shingles, false
	}
	return sh.Set(d.Text, scratch)
}

// ReadIndexed reads the requested rows (sorted) of a shard file of index ord as Docs.
func ReadIndexed(ctx context.Context, file string, ord int, rows []int64, doc func(record.Doc)) error {
	rows = slices.Compact(slices.Clone(rows))
	return index.ReadSelected(ctx, file, rows, func(num int64, r index.Row) error {
		doc(record.Doc{ID: IndexedID(ord, r.ID), File: file, Line: num, Shingles: r.Shingles})
		return nil
	})
}
