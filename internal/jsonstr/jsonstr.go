// Package jsonstr is neardup's one JSON string encoder, shared by every writer that
// builds JSON lines by hand (the sink's removed/rejected lines and Parquet rows, the
// synthetic-corpus generator) so that they all escape alike: like encoding/json, but
// without its HTML escaping (<, >, & stay readable), and with invalid UTF-8 replaced by
// \ufffd, since JSON text must be valid Unicode.
package jsonstr

import "unicode/utf8"

// Append appends s as a quoted JSON string.
func Append(dst, s []byte) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}

// AppendEscaped appends the escaped contents of s, without the quotes.
func AppendEscaped(dst, s []byte) []byte {
	const hexdig = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexdig[c>>4], hexdig[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript readers; encoding/json
		// escapes them too.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexdig[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// AppendValid appends s with every byte that is not part of a valid UTF-8 sequence
// replaced by U+FFFD, one per byte, as Append escapes them and as encoding/json decodes
// them: for copying JSON text read from input (valid JSON but for its encoding) into
// an output.
func AppendValid(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i++
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}
