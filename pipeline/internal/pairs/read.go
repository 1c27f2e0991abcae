package pairs

import (
	"context"

	"github.com/neardup/neardup/internal/wire"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/pipeline/internal/elem"
	"github.com/neardup/neardup/record"
)

// ReadRequest asks for one end (Node) of a candidate pair (U, V) from its input line.
type ReadRequest struct {
	Line       int64
	U, V, Node string
}

// readBatch is a batch of read requests, keyed by the file they read.
type readBatch = elem.Batch[ReadRequest]

// readRequests codes read requests, for the runner and for spilled runs alike.
var readRequests = elem.Codec[ReadRequest]{
	Put: func(e *wire.Encoder, r ReadRequest) {
		e.Varint(r.Line)
		e.Str(r.U)
		e.Str(r.V)
		e.Str(r.Node)
	},
	Get: func(d *wire.Decoder) ReadRequest {
		return ReadRequest{Line: d.Varint(), U: d.Str(), V: d.Str(), Node: d.Str()}
	},
	Size:   func(ReadRequest) int { return 48 },
	Spills: true,
}

func init() { elem.RegisterBatch(readRequests) }

// read streams the Docs of an input file (under their internal ids), or the requested
// rows of an index shard file.
func (f *rereadFn) read(ctx context.Context, file string, reqs []ReadRequest, doc func(record.Doc)) error {
	ord, ok := f.Renamed[file]
	if ok && ord >= 0 {
		rows := make([]int64, len(reqs))
		for i, r := range reqs {
			rows[i] = r.Line
		}
		return elem.ReadIndexed(ctx, file, ord, rows, doc)
	}
	lines := make([]int64, 0, len(reqs))
	for _, r := range reqs {
		if len(lines) == 0 || lines[len(lines)-1] != r.Line {
			lines = append(lines, r.Line)
		}
	}
	if ok {
		source.ReadLines(ctx, file, f.Source, lines, func(d record.Doc) {
			d.ID = elem.PreferredPrefix + d.ID
			doc(d)
		})
		return nil
	}
	source.ReadLines(ctx, file, f.Source, lines, doc)
	return nil
}
