package elem

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// RuneCount is a document's Length: utf8.RuneCountInString (an invalid byte counts as one rune), eight bytes
// at a time: an ASCII prefix is skipped, and past it, in valid UTF-8, which is what the
// sources hand on (they replace invalid bytes), the runes are the bytes that do not
// continue one (10xxxxxx), counted a word at a time rather than decoding each rune.
func RuneCount(s string) int64 {
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8)) }
	i := 0
	for i+8 <= len(s) && word(i)&0x8080808080808080 == 0 {
		i += 8
	}
	if !utf8.ValidString(s[i:]) {
		return int64(i + utf8.RuneCountInString(s[i:]))
	}
	n := int64(len(s))
	for ; i+8 <= len(s); i += 8 {
		x := word(i)
		n -= int64(bits.OnesCount64(x &^ (x << 1) & 0x8080808080808080)) // bytes 10xxxxxx
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			n--
		}
	}
	return n
}
