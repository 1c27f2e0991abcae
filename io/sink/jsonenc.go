package sink

import (
	"github.com/neardup/neardup/internal/jsonstr"
	"strconv"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/pyrepr"
)

// appendString appends s as a JSON string (jsonstr.Append): escaped like encoding/json
// without its HTML escaping, invalid UTF-8 as \ufffd.
func appendString(dst []byte, s []byte) []byte { return jsonstr.Append(dst, s) }

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
// (the original JSONL record, invalid UTF-8 in it replaced by U+FFFD so the line stays
// valid JSON) and as a string otherwise (a text line).
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
		dst = jsonstr.AppendValid(dst, rec)
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
