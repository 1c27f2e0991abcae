package elem

// SortedLine is a line of a file written in key order (output.WriteSorted), and the key
// that orders it.
type SortedLine struct{ Key, Line string }

// LineBatch carries SortedLines between stages: one element per line would cost the
// runner an element each.
type LineBatch = Batch[SortedLine]

var lineCodec = Codec[SortedLine]{
	Put: func(e *encoder, l SortedLine) {
		e.Str(l.Key)
		e.Str(l.Line)
	},
	Get:  func(d *decoder) SortedLine { return SortedLine{Key: d.Str(), Line: d.Str()} },
	Size: func(l SortedLine) int { return len(l.Key) + len(l.Line) + 4 },
}

func init() { RegisterBatch(lineCodec) }
