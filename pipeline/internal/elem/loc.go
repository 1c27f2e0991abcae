package elem

import (
	"fmt"
	"slices"

	"github.com/neardup/neardup/internal/wire"
)

// IDLoc is where a document came from.
type IDLoc struct {
	ID   string
	File string
	Line int64
}

// LocBatch is a batch of locations, gathered by id partition, or (Spilled) references
// to local files that hold them (internal/spill), each record an encoded batch: every
// document has a location, so through the runner they are held in its memory with the
// corpus (LocItems reads both).
type LocBatch = Batch[IDLoc]

// LocItems returns b's locations, those in its spill files after its items; with spill
// files, in a slice of its own.
func LocItems(b LocBatch) ([]IDLoc, error) {
	if len(b.Spilled) == 0 {
		return b.Items, nil
	}
	items := slices.Clone(b.Items)
	err := Unspill(b.Spilled, locCoder{}.Decode, func(s LocBatch) { items = append(items, s.Items...) })
	return items, err
}

// LocSize is about the bytes a location takes in a batch, its file's name counted
// whole (Split).
func LocSize(l IDLoc) int { return len(l.ID) + len(l.File) + 16 }

// SpillLocs is the encoding of a batch of locations in a spill file (LocItems).
func SpillLocs(items []IDLoc) []byte { return locCoder{}.Encode(LocBatch{Items: items}) }

// locCoder writes each file name once per batch, then the locations with their file's
// number in that table, then the spill references: a batch's locations come from a few
// files, and a path is most of a location's bytes (and of what Prism holds for the
// locations in memory).
type locCoder struct{}

func init() { RegisterBatch[IDLoc](locCoder{}) }

func (locCoder) Encode(b LocBatch) []byte {
	num := map[string]uint64{}
	var files []string
	for _, l := range b.Items {
		if _, ok := num[l.File]; !ok {
			num[l.File] = uint64(len(files))
			files = append(files, l.File)
		}
	}
	e := encoder{B: make([]byte, 0, 24*len(b.Items)+64*len(files)+8)}
	e.Uvarint(uint64(len(files)))
	for _, f := range files {
		e.Str(f)
	}
	e.Uvarint(uint64(len(b.Items)))
	for _, l := range b.Items {
		e.Front(l.ID)
		e.Uvarint(num[l.File])
		e.Varint(l.Line)
	}
	putRefs(&e, b.Spilled)
	return e.B
}

func (locCoder) Decode(b []byte) (LocBatch, error) {
	d := decoder{B: b}
	var files []string
	for i, n := uint64(0), d.Uvarint(); i < n && d.Err == nil; i++ {
		files = append(files, d.Str())
	}
	items := wire.DecodeItems(&d, func(d *decoder) IDLoc {
		l := IDLoc{ID: d.Front()}
		if f := d.Uvarint(); f < uint64(len(files)) {
			l.File = files[f]
		} else if d.Err == nil {
			d.Err = fmt.Errorf("decode locations: file %d of %d", f, len(files))
		}
		l.Line = d.Varint()
		return l
	})
	return LocBatch{Items: items, Spilled: getRefs(&d)}, d.End()
}
