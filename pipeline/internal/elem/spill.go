package elem

import (
	"fmt"

	"github.com/neardup/neardup/internal/spill"
)

// Spiller sends a bundle's encoded batches to a spill file by partition when Dir is set;
// it is part of a DoFn and starts a new file in each bundle.
type Spiller struct {
	Dir  string
	Kind string // what it spills, for SpilledHook

	w   *spill.Writer
	err error   // the first error, returned by close
	enc encoder // SpillItems' encoder
}

// add appends one encoded batch to partition p.
func (s *Spiller) Add(p int, rec []byte) {
	if s.Writer() {
		s.err = s.w.Append(p, rec)
	}
}

// extend appends what add appends to partition p's open record (spill.Writer.Extend).
func (s *Spiller) Extend(p int, add func([]byte) []byte) {
	if s.Writer() {
		s.err = s.w.Extend(p, add)
	}
}

// writer reports whether the bundle's writer is there to use, making it on first use.
func (s *Spiller) Writer() bool {
	if s.err == nil && s.w == nil {
		s.w, s.err = spill.NewWriter(s.Dir)
	}
	return s.err == nil
}

// close ends the bundle's file and passes each partition's reference to its records,
// in partition order, to emit.
func (s *Spiller) Close(emit func(p int, ref string)) error {
	w, err := s.w, s.err
	s.w, s.err = nil, nil
	if err != nil || w == nil {
		return err
	}
	refs, err := w.Close()
	if err != nil {
		return err
	}
	for _, p := range SortedKeys(refs) {
		if SpilledHook != nil {
			SpilledHook(s.Kind, refs[p])
		}
		emit(p, refs[p])
	}
	return nil
}

// SpilledHook, when set (by tests), is told every spill reference a bundle made.
var SpilledHook func(kind, ref string)

// SendOrSpill emits batch b of partition p, or appends its encoding to p's spilled
// records when s spills.
func SendOrSpill[B any](s *Spiller, p int, b B, encode func(B) []byte, emit func(int, B)) {
	if s.Dir == "" {
		emit(p, b)
		return
	}
	s.Add(p, encode(b))
}

// SpilledBytes is the size of the records refs point at.
func SpilledBytes(refs []string) int {
	n := int64(0)
	for _, r := range refs {
		n += spill.Size(r)
	}
	return int(n)
}

// Unspill passes every batch spilled at refs to fn, decoded.
func Unspill[B any](refs []string, decode func([]byte) (B, error), fn func(B)) error {
	return EachSpilled(refs, func(rec []byte) error {
		b, err := decode(rec)
		if err == nil {
			fn(b)
		}
		return err
	})
}

// EachSpilled calls fn with every record spilled at refs, in order; an error names the
// file.
func EachSpilled(refs []string, fn func(rec []byte) error) error {
	for _, ref := range refs {
		err := spill.Read(ref, func(rec []byte) error {
			if err := fn(rec); err != nil {
				return fmt.Errorf("read spilled batch %s: %w", spill.File(ref), err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ReleaseSpilled frees the disk space of the records refs point at (spill.Release): the
// only reader of a kind calls it once it has read them, so that a run's disk use does
// not grow with each stage that spills.
func ReleaseSpilled(refs []string) { spill.Release(refs...) }

// SpillItems appends items to partition p's open record of s, one at a time so that
// records end at the spill's record size (spill.Writer.Extend), each coded by c.Append.
func SpillItems[T any](s *Spiller, c Codec[T], p int, items ...T) {
	for _, it := range items {
		s.Extend(p, func(run []byte) []byte { return c.Append(&s.enc, run, it) })
	}
}
