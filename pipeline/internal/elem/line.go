package elem

import "github.com/neardup/neardup/internal/wire"

// SortedLine is a line of a file written in key order (output.WriteSorted), and the key
// that orders it.
type SortedLine struct{ Key, Line string }

// LineBatch carries SortedLines between stages: one element per line would cost the
// runner an element each.
type LineBatch struct{ Items []SortedLine }

func init() {
	wire.RegisterCoder(encodeLines, decodeLines)
}

func encodeLines(b LineBatch) []byte {
	size := 0
	for _, l := range b.Items {
		size += len(l.Key) + len(l.Line) + 4
	}
	return wire.EncodeAll(b.Items, size, func(e *encoder, l SortedLine) {
		e.Str(l.Key)
		e.Str(l.Line)
	})
}

func decodeLines(b []byte) (LineBatch, error) {
	items, err := wire.DecodeAll(b, func(d *decoder) SortedLine { return SortedLine{Key: d.Str(), Line: d.Str()} })
	return LineBatch{items}, err
}
