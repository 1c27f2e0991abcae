package sink

import (
	"strconv"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/pyrepr"
)

// appendString appends s as a JSON string, escaping like encoding/json but without its
// HTML escaping (<, >, & stay readable). Invalid UTF-8 becomes \ufffd: JSON text must be
// valid Unicode.
func appendString(dst []byte, s []byte) []byte {
	const hexdig = "0123456789abcdef"
	dst = append(dst, '"')
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
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendKey(dst []byte, key string, first bool) []byte {
	if first {
		dst = append(dst, '{')
	} else {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// removedLine renders one removed.jsonl line. record is embedded raw when it is JSON
// (the original JSONL record) and as a string otherwise (a text line).
func removedLine(dst []byte, e entry, file string, rec []byte, recIsJSON bool) []byte {
	dst = appendKey(dst, "id", true)
	dst = appendString(dst, []byte(e.ID))
	dst = appendKey(dst, "cluster", false)
	dst = appendString(dst, []byte(e.Cluster))
	if e.Index != "" {
		dst = appendKey(dst, "index", false)
		dst = appendString(dst, []byte(e.Index))
	}
	dst = appendKey(dst, "similarity", false)
	dst = append(dst, pyrepr.Float(e.Similarity)...)
	dst = appendKey(dst, "file", false)
	dst = appendString(dst, []byte(file))
	dst = appendKey(dst, "line", false)
	dst = strconv.AppendInt(dst, e.Line, 10)
	dst = appendKey(dst, "record", false)
	if recIsJSON {
		dst = append(dst, rec...)
	} else {
		dst = appendString(dst, rec)
	}
	return append(dst, '}', '\n')
}

// rejectedLine renders one rejected.jsonl line. A nil rec (a file that could not be
// opened) has no "record" key.
func rejectedLine(dst []byte, file string, line int64, reason string, rec []byte) []byte {
	dst = appendKey(dst, "file", true)
	dst = appendString(dst, []byte(file))
	dst = appendKey(dst, "line", false)
	dst = strconv.AppendInt(dst, line, 10)
	dst = appendKey(dst, "reason", false)
	dst = appendString(dst, []byte(reason))
	if rec != nil {
		truncated := false
		if len(rec) > MaxRejectedRecord {
			cut := MaxRejectedRecord
			// Back up to a rune start so the cut does not invent a replacement character.
			for k := 0; k < utf8.UTFMax && cut > 0 && !utf8.RuneStart(rec[cut]); k++ {
				cut--
			}
			rec, truncated = rec[:cut], true
		}
		dst = appendKey(dst, "record", false)
		dst = appendString(dst, rec)
		if truncated {
			dst = appendKey(dst, "truncated", false)
			dst = append(dst, "true"...)
		}
	}
	return append(dst, '}', '\n')
}
