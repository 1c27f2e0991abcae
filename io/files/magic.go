package files

import (
	"bufio"
	"bytes"
	"fmt"
)

// magics are the first bytes of the formats a compressed input may really be in.
var magics = []struct {
	name  string
	magic []byte
}{
	{"gzip", []byte{0x1f, 0x8b}},
	{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}},
	{"xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0}},
	{"bzip2", []byte("BZh")},
	{"zip", []byte("PK\x03\x04")},
	{"Parquet", []byte("PAR1")},
}

// sniff names the format br's first bytes announce, or "" for none of magics.
func sniff(br *bufio.Reader) string {
	head, _ := br.Peek(8)
	for _, m := range magics {
		if bytes.HasPrefix(head, m.magic) {
			return m.name
		}
	}
	return ""
}

// checkMagic fails when a file named as codec (its extension) starts like another
// format, so that the error says what the file looks like instead of only that the
// stream is damaged.
func checkMagic(br *bufio.Reader, codec string) error {
	if got := sniff(br); got != "" && got != codec {
		return fmt.Errorf("the file starts like %s data, not %s: is it misnamed? (its extension says %s)", got, codec, codec)
	}
	return nil
}
