package wire

import (
	"encoding/binary"
	"unsafe"
)

// Front writes s front-coded against the string the encoder's previous Front wrote
// (none at first): a uvarint of the length of what s does not share with it, doubled,
// plus one when the length of what it shares follows (a uvarint, written when two bytes
// or more), then the bytes not shared. Ids that follow each other in a batch often
// share their start (a path, a URL's host, a running number's leading digits). With
// nothing shared it takes as many bytes as Str, for strings shorter than 64 bytes, so an
// encoder made for one item (a spilled run's Append) costs what Str did, and any Decoder
// reads what it wrote.
func (e *Encoder) Front(s string) {
	shared := commonStart(e.front, s)
	if shared < 2 { // one shared byte would cost the byte it saves
		shared = 0
	}
	rest := uint64(len(s) - shared)
	if shared == 0 {
		e.Uvarint(rest << 1)
	} else {
		e.Uvarint(rest<<1 | 1)
		e.Uvarint(uint64(shared))
	}
	e.B = append(e.B, s[shared:]...)
	e.front = s
}

// commonStart is the length of the longest common prefix of a and b.
func commonStart(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(a[i:]), 8)) ==
		binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(b[i:]), 8)) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// Front reads what Encoder.Front wrote, against the string the decoder's previous
// Front read. A string that shares nothing is read as Str reads it; one that shares its
// start is joined in an arena the decoder's later joined strings share, so a batch of
// ids costs a few allocations, not one per id.
func (d *Decoder) Front() string {
	h := d.Uvarint()
	rest, shared := h>>1, uint64(0)
	if h&1 == 1 {
		shared = d.Uvarint()
	}
	switch {
	case d.Err != nil:
		return ""
	case shared > uint64(len(d.front)) || rest > uint64(len(d.B)):
		d.Fail("front-coded string")
		return ""
	}
	var s string
	switch {
	case shared == 0:
		s = d.take(int(rest))
	case rest == 0:
		s = d.front[:shared]
	default:
		s = d.join(d.front[:shared], d.B[:rest])
		d.B = d.B[rest:]
	}
	d.front = s
	return s
}

// join returns a+b in the arena. The arena's bytes are never written again once a
// string holds them: a string that does not fit starts a new arena, twice the last one
// up to a bound, so a batch's joined strings take a few allocations and waste at most
// about what they use.
func (d *Decoder) join(a string, b []byte) string {
	n := len(a) + len(b)
	if cap(d.arena)-len(d.arena) < n {
		d.arena = make([]byte, 0, max(n, min(2*cap(d.arena), 1<<20), 64))
	}
	start := len(d.arena)
	d.arena = append(d.arena, a...)
	d.arena = append(d.arena, b...)
	return unsafe.String(&d.arena[start], n)
}
