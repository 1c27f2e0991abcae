package sink

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/internal/jsonstr"
	"github.com/neardup/neardup/internal/pyrepr"
	"github.com/neardup/neardup/io/parquetfile"
	"github.com/neardup/neardup/record"
)

// Annotated outputs: --mode annotate writes every readable record, in input order, with
// its cluster fields added, instead of kept and removed.
const (
	AnnotatedJSONL   = "annotated.jsonl"
	AnnotatedParquet = "annotated.parquet"
	// DefaultAnnotatePrefix starts the added field names: __cluster__, __cluster_size__,
	// __duplicate__, __similarity__.
	DefaultAnnotatePrefix = "__"
)

// AnnotatedName is the annotated output's name for a format: annotated.parquet for
// Parquet, annotated.jsonl otherwise (a text line becomes {"id", "text", …}).
func AnnotatedName(format string) string {
	if format == "parquet" {
		return AnnotatedParquet
	}
	return AnnotatedJSONL
}

// AnnotatedFields are the names of the added fields for a prefix, in the order they are
// written: the cluster (the kept member's id, or the record's own id), the cluster's
// size, whether the record is a duplicate (would be removed), and its similarity (null
// for records that would be kept).
func AnnotatedFields(prefix string) [4]string {
	return [4]string{prefix + "cluster__", prefix + "cluster_size__", prefix + "duplicate__", prefix + "similarity__"}
}

// fromAnnotated is the entry of one Decision in annotate mode: every record carries its
// id and cluster, since every record is written with them.
func fromAnnotated(d record.Decision) entry {
	return entry{Line: d.Line, Kind: kindAnnotated, ID: d.ID, Cluster: d.Cluster, Similarity: d.Similarity,
		Size: max(d.ClusterSize, 1), Duplicate: d.Removed}
}

// appendAnnotations appends the added fields, each preceded by a comma, to a JSON object
// being written.
func appendAnnotations(dst []byte, e entry, names [4]string) []byte {
	dst = appendKey(dst, names[0], false)
	dst = appendString(dst, []byte(e.Cluster))
	dst = appendKey(dst, names[1], false)
	dst = strconv.AppendInt(dst, e.Size, 10)
	dst = appendKey(dst, names[2], false)
	dst = strconv.AppendBool(dst, e.Duplicate)
	dst = appendKey(dst, names[3], false)
	if e.Duplicate {
		return append(dst, pyrepr.Float(e.Similarity)...)
	}
	return append(dst, "null"...)
}

// annotatedJSON writes a JSONL record with the added fields inserted before its closing
// brace; every other byte of the record, its line ending included, is kept, but for
// invalid UTF-8, replaced by U+FFFD so the line is valid JSON. A record
// that already has one of the field names is an error: the output would hold the key
// twice.
func annotatedJSON(dst, rec, end []byte, e entry, names [4]string) ([]byte, error) {
	body := bytes.TrimRight(rec, " \t\r")
	if len(body) == 0 || body[len(body)-1] != '}' {
		return dst, fmt.Errorf("line %d: not a JSON object", e.Line)
	}
	if name, ok := hasKey(body, names); ok {
		return dst, fmt.Errorf("line %d: the record already has a field %q; choose another --annotate-prefix", e.Line, name)
	}
	inner := bytes.TrimRight(body[:len(body)-1], " \t\r\n")
	dst = jsonstr.AppendValid(dst, body[:len(body)-1])
	ann := appendAnnotations(nil, e, names)
	if len(inner) > 0 && inner[len(inner)-1] == '{' {
		ann = ann[1:] // an empty object: no comma before the first field
	}
	dst = append(dst, ann...)
	dst = append(dst, '}')
	dst = append(dst, rec[len(body):]...)
	if len(end) == 0 {
		end = []byte{'\n'}
	}
	return append(dst, end...), nil
}

// annotatedText writes a plain-text line as {"id", "text", …added fields}.
func annotatedText(dst, rec []byte, e entry, names [4]string) []byte {
	dst = appendKey(dst, "id", true)
	dst = appendString(dst, []byte(e.ID))
	dst = appendKey(dst, "text", false)
	dst = appendString(dst, rec)
	dst = appendAnnotations(dst, e, names)
	return append(dst, '}', '\n')
}

// hasKey reports whether the object has one of the names as a top-level key. Records
// that do not even mention the prefix are passed without parsing.
func hasKey(obj []byte, names [4]string) (string, bool) {
	mentioned := false
	for _, n := range names {
		if bytes.Contains(obj, []byte(n)) {
			mentioned = true
		}
	}
	if !mentioned {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return "", false
	}
	for _, n := range names {
		if _, ok := m[n]; ok {
			return n, true
		}
	}
	return "", false
}

// countAnnotated counts an annotated record as kept or removed, as the dedup mode would
// have written it, so the accounting check holds in both modes.
func countAnnotated(pt *part, e entry) {
	if e.Duplicate {
		pt.NRemoved++
	} else {
		pt.NKept++
	}
}

// annotatedRows writes Parquet rows with the cluster columns added: a required string,
// int64 and boolean, and an optional double (null for records that would be kept).
type annotatedRows struct {
	w     *parquetfile.Writer
	first int
	buf   parquet.Row
}

func newAnnotatedRows(out io.Writer, f *parquetfile.File, prefix string) (*annotatedRows, error) {
	names := AnnotatedFields(prefix)
	w, first, err := parquetfile.NewExtendedWriter(out, f, []parquetfile.Column{
		{Name: names[0], Node: parquet.String()},
		{Name: names[1], Node: parquet.Int(64)},
		{Name: names[2], Node: parquet.Leaf(parquet.BooleanType)},
		{Name: names[3], Node: parquet.Optional(parquet.Leaf(parquet.DoubleType))},
	})
	if err != nil {
		return nil, fmt.Errorf("%w; choose another --annotate-prefix", err)
	}
	return &annotatedRows{w: w, first: first}, nil
}

func (a *annotatedRows) write(row parquet.Row, e entry) error {
	if a == nil {
		return fmt.Errorf("an annotated outcome outside annotate mode (internal error)")
	}
	n := a.first
	a.buf = append(a.buf[:0], row...)
	a.buf = append(a.buf,
		parquet.ByteArrayValue([]byte(e.Cluster)).Level(0, 0, n),
		parquet.Int64Value(e.Size).Level(0, 0, n+1),
		parquet.BooleanValue(e.Duplicate).Level(0, 0, n+2))
	if e.Duplicate {
		a.buf = append(a.buf, parquet.DoubleValue(e.Similarity).Level(0, 1, n+3))
	} else {
		a.buf = append(a.buf, parquet.Value{}.Level(0, 0, n+3))
	}
	return a.w.Write(a.buf)
}
