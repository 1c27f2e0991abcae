package sink

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/neardup/neardup/internal/pyrepr"
)

// rowJSON renders Parquet rows of one schema as JSON objects for removed.jsonl and
// rejected.jsonl: every top-level column in schema order; structs as objects, LIST as
// arrays, MAP as objects (non-string keys written as their JSON text); strings as strings,
// other binary as base64; dates, times and timestamps as ISO 8601 strings; decimals as
// exact numbers; NaN and infinities, which JSON lacks, as "NaN", "Infinity", "-Infinity".
type rowJSON struct {
	fields []*jnode
	nLeaf  int
	cols   [][]parquet.Value // the current row's values, per leaf column
	pos    []int
}

// jnode is a schema node with what the Dremel assembly of one row needs.
type jnode struct {
	name               string
	leaf               parquet.Node // the node itself, for leaves
	kind               int
	first, end         int // leaf column range
	def, rep           int // max definition and repetition level at this node
	optional, repeated bool
	children           []*jnode
}

const (
	jLeaf = iota
	jGroup
	jList
	jMap
)

func newRowJSON(schema *parquet.Schema) *rowJSON {
	r := &rowJSON{}
	leaf := 0
	for _, f := range schema.Fields() {
		r.fields = append(r.fields, buildJNode(f, &leaf, 0, 0))
	}
	r.nLeaf = leaf
	r.cols = make([][]parquet.Value, leaf)
	r.pos = make([]int, leaf)
	return r
}

func buildJNode(n parquet.Field, leaf *int, def, rep int) *jnode {
	j := &jnode{name: n.Name(), optional: n.Optional(), repeated: n.Repeated(), first: *leaf, def: def, rep: rep}
	if j.optional || j.repeated {
		j.def++
	}
	if j.repeated {
		j.rep++
	}
	if n.Leaf() {
		j.kind, j.leaf = jLeaf, n
		*leaf++
		j.end = *leaf
		return j
	}
	j.kind = jGroup
	switch logicalOf(n).(type) {
	case *format.ListType:
		j.kind = jList
	case *format.MapType:
		j.kind = jMap
	}
	for _, c := range n.Fields() {
		j.children = append(j.children, buildJNode(c, leaf, j.def, j.rep))
	}
	// A LIST or MAP not shaped as the spec says (one repeated child; a MAP's with a key
	// and a value) is written as the plain group it is.
	if len(j.children) != 1 || !j.children[0].repeated ||
		(j.kind == jMap && (j.children[0].kind != jGroup || len(j.children[0].children) != 2)) {
		j.kind = jGroup
	}
	j.end = *leaf
	return j
}

func logicalOf(n parquet.Node) format.LogicalTypeValue {
	if lt := n.Type().LogicalType(); lt != nil {
		return lt.Value
	}
	return nil
}

// appendRow appends row as one JSON object.
func (r *rowJSON) appendRow(dst []byte, row parquet.Row) ([]byte, error) {
	for i := range r.cols {
		r.cols[i], r.pos[i] = r.cols[i][:0], 0
	}
	for _, v := range row {
		c := v.Column()
		if c < 0 || c >= r.nLeaf {
			return dst, fmt.Errorf("row value for column %d, outside the schema's %d columns", c, r.nLeaf)
		}
		r.cols[c] = append(r.cols[c], v)
	}
	for i, c := range r.cols {
		if len(c) == 0 {
			return dst, fmt.Errorf("row has no value for column %d", i)
		}
	}
	dst = r.object(dst, r.fields)
	for i, c := range r.cols {
		if r.pos[i] != len(c) {
			return dst, fmt.Errorf("row values of column %d do not fit the schema", i)
		}
	}
	return dst, nil
}

func (r *rowJSON) object(dst []byte, fields []*jnode) []byte {
	if len(fields) == 0 {
		return append(dst, '{', '}')
	}
	for i, f := range fields {
		dst = appendKey(dst, f.name, i == 0)
		dst = r.field(dst, f)
	}
	return append(dst, '}')
}

// peek is the next value of leaf column c; a zero Value (definition level 0) once the
// column is used up, which ends any list and nulls any optional field, and is caught as
// a shape error at the end of the row.
func (r *rowJSON) peek(c int) parquet.Value {
	if r.pos[c] < len(r.cols[c]) {
		return r.cols[c][r.pos[c]]
	}
	return parquet.Value{}
}

// skip consumes the single value every leaf under n holds when n is null or empty.
func (r *rowJSON) skip(n *jnode) {
	for c := n.first; c < n.end; c++ {
		r.pos[c]++
	}
}

// field writes one occurrence of n in its parent: an array for a repeated field (without
// a LIST annotation), null for an absent optional one, else its value.
func (r *rowJSON) field(dst []byte, n *jnode) []byte {
	switch {
	case n.repeated:
		return r.repeated(dst, n, func(dst []byte) []byte { return r.value(dst, n) })
	case n.optional && r.peek(n.first).DefinitionLevel() < n.def:
		r.skip(n)
		return append(dst, "null"...)
	}
	return r.value(dst, n)
}

// repeated writes the elements of repeated node n as an array, each with elem.
func (r *rowJSON) repeated(dst []byte, n *jnode, elem func([]byte) []byte) []byte {
	if r.peek(n.first).DefinitionLevel() < n.def {
		r.skip(n)
		return append(dst, '[', ']')
	}
	dst = append(dst, '[')
	for i := 0; ; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = elem(dst)
		// A next value at this node's repetition level starts another element; a lower
		// one belongs to an enclosing list or the next row.
		if r.pos[n.first] >= len(r.cols[n.first]) || r.peek(n.first).RepetitionLevel() != n.rep {
			break
		}
	}
	return append(dst, ']')
}

// value writes a present n (its own optional/repeated marks already handled).
func (r *rowJSON) value(dst []byte, n *jnode) []byte {
	switch n.kind {
	case jLeaf:
		v := r.peek(n.first)
		r.pos[n.first]++
		return appendScalar(dst, n.leaf, v)
	case jList:
		rep := n.children[0]
		if rep.kind == jGroup && len(rep.children) == 1 {
			// The standard three levels: list → repeated group → element.
			return r.repeated(dst, rep, func(dst []byte) []byte { return r.field(dst, rep.children[0]) })
		}
		return r.repeated(dst, rep, func(dst []byte) []byte { return r.value(dst, rep) })
	case jMap:
		kv := n.children[0]
		key, val := kv.children[0], kv.children[1]
		if r.peek(kv.first).DefinitionLevel() < kv.def {
			r.skip(kv)
			return append(dst, '{', '}')
		}
		var kb []byte
		for i := 0; ; i++ {
			kb = r.field(kb[:0], key)
			if len(kb) == 0 || kb[0] != '"' {
				kb = appendString(nil, kb)
			}
			if i == 0 {
				dst = append(dst, '{')
			} else {
				dst = append(dst, ',')
			}
			dst = append(append(dst, kb...), ':')
			dst = r.field(dst, val)
			if r.pos[kv.first] >= len(r.cols[kv.first]) || r.peek(kv.first).RepetitionLevel() != kv.rep {
				break
			}
		}
		return append(dst, '}')
	}
	return r.object(dst, n.children)
}

// appendScalar writes one leaf value.
func appendScalar(dst []byte, n parquet.Node, v parquet.Value) []byte {
	if v.IsNull() {
		return append(dst, "null"...)
	}
	switch lt := logicalOf(n).(type) {
	case *format.StringType, *format.EnumType, *format.JsonType:
		return appendString(dst, v.ByteArray())
	case *format.IntType:
		if !lt.IsSigned {
			if v.Kind() == parquet.Int32 {
				return strconv.AppendUint(dst, uint64(v.Uint32()), 10)
			}
			return strconv.AppendUint(dst, v.Uint64(), 10)
		}
	case *format.DateType:
		t := time.Unix(int64(v.Int32())*86400, 0).UTC()
		return appendString(dst, t.AppendFormat(nil, "2006-01-02"))
	case *format.TimestampType:
		t := time.Unix(0, 0).Add(time.Duration(v.Int64()) * unit(lt.Unit)).UTC()
		layout := "2006-01-02T15:04:05.999999999"
		if lt.IsAdjustedToUTC {
			layout += "Z07:00"
		}
		return appendString(dst, t.AppendFormat(nil, layout))
	case *format.TimeType:
		var d int64
		if v.Kind() == parquet.Int32 {
			d = int64(v.Int32())
		} else {
			d = v.Int64()
		}
		t := time.Unix(0, 0).Add(time.Duration(d) * unit(lt.Unit)).UTC()
		return appendString(dst, t.AppendFormat(nil, "15:04:05.999999999"))
	case *format.DecimalType:
		return appendDecimal(dst, v, int(lt.Scale))
	case *format.UUIDType:
		if b := v.ByteArray(); len(b) == 16 {
			h := hex.EncodeToString(b)
			return appendString(dst, []byte(h[:8]+"-"+h[8:12]+"-"+h[12:16]+"-"+h[16:20]+"-"+h[20:]))
		}
	}
	switch v.Kind() {
	case parquet.Boolean:
		return strconv.AppendBool(dst, v.Boolean())
	case parquet.Int32:
		return strconv.AppendInt(dst, int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.AppendInt(dst, v.Int64(), 10)
	case parquet.Int96:
		// The legacy Impala/Spark timestamp: nanoseconds of the day, then the Julian day.
		i := v.Int96()
		nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
		days := int64(i[2]) - 2440588 // the Julian day of 1970-01-01
		t := time.Unix(days*86400, nanos).UTC()
		return appendString(dst, t.AppendFormat(nil, "2006-01-02T15:04:05.999999999"))
	case parquet.Float:
		return appendFloat(dst, float64(v.Float()), 32)
	case parquet.Double:
		return appendFloat(dst, v.Double(), 64)
	}
	return appendString(dst, base64.StdEncoding.AppendEncode(nil, v.ByteArray()))
}

func unit(u format.TimeUnit) time.Duration {
	if u.Value == nil {
		return time.Millisecond
	}
	return u.Value.Duration()
}

func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	case bits == 32:
		// The shortest decimal that reads back as the same float32 (0.1, not
		// 0.10000000149011612), then laid out as doubles are.
		f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
	}
	// As Python prints floats, like the rest of neardup's JSON: 1.0, 1e-05, 1e+16.
	return append(dst, pyrepr.Float(f)...)
}

// appendDecimal writes an unscaled integer (INT32, INT64 or big-endian two's complement
// bytes) with scale digits after the point, exactly.
func appendDecimal(dst []byte, v parquet.Value, scale int) []byte {
	var u big.Int
	switch v.Kind() {
	case parquet.Int32:
		u.SetInt64(int64(v.Int32()))
	case parquet.Int64:
		u.SetInt64(v.Int64())
	default:
		b := v.ByteArray()
		u.SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 {
			u.Sub(&u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
	}
	s := u.String()
	if scale <= 0 {
		return append(dst, s...)
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
		dst = append(dst, '-')
	}
	for len(s) <= scale {
		s = "0" + s
	}
	return append(append(append(dst, s[:len(s)-scale]...), '.'), s[len(s)-scale:]...)
}
