package sink

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type jsonItem struct {
	K string  `parquet:"k"`
	V []int32 `parquet:"v,list"`
}

type jsonInner struct {
	Lang string  `parquet:"lang"`
	Note *string `parquet:"note,optional"`
}

type jsonRow struct {
	S     string           `parquet:"s"`
	Null  *string          `parquet:"null,optional"`
	I32   int32            `parquet:"i32"`
	U64   uint64           `parquet:"u64"`
	F32   float32          `parquet:"f32"`
	F64   float64          `parquet:"f64"`
	B     bool             `parquet:"b"`
	Bin   []byte           `parquet:"bin"`
	Tags  []string         `parquet:"tags,list"`
	Opt   []*int64         `parquet:"opt,list" parquet-element:",optional"`
	Inner *jsonInner       `parquet:"inner,optional"`
	Items []jsonItem       `parquet:"items,list"`
	M     map[string]int64 `parquet:"m"`
	TS    int64            `parquet:"ts,timestamp(millisecond)"`
	Day   int32            `parquet:"day,date"`
	Dec   int64            `parquet:"dec,decimal(2:10)"`
	Rep   []int32          `parquet:"rep"`
}

func rowsOf[T any](t *testing.T, rows []T) (*parquet.Schema, []parquet.Row) {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	_, err := w.Write(rows)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	var out []parquet.Row
	for _, rg := range f.RowGroups() {
		rs := rg.Rows()
		b := make([]parquet.Row, 16)
		for {
			n, err := rs.ReadRows(b)
			for _, r := range b[:n] {
				out = append(out, r.Clone())
			}
			if err != nil {
				break
			}
		}
		rs.Close()
	}
	require.Len(t, out, len(rows))
	return f.Schema(), out
}

func TestRowJSON(t *testing.T) {
	note := "n"
	one, three := int64(1), int64(3)
	schema, rows := rowsOf(t, []jsonRow{
		{
			S: "héllo \"q\"", I32: -7, U64: math.MaxUint64, F32: 0.1, F64: 2.5, B: true, Bin: []byte{0, 0xff},
			Tags: []string{"a", "b"}, Opt: []*int64{&one, nil, &three}, Inner: &jsonInner{Lang: "en", Note: &note},
			Items: []jsonItem{{K: "x", V: []int32{1, 2}}, {K: "y"}}, M: map[string]int64{"k": 5},
			TS: 1700000000123, Day: 19000, Dec: -12345, Rep: []int32{4, 5},
		},
		{
			S: "", F64: math.NaN(), Inner: &jsonInner{Lang: "fr"}, TS: 0, Day: 0, Dec: 5,
		},
		{
			F64: math.Inf(-1), F32: 1e20,
		},
	})
	enc := newRowJSON(schema)
	want := []string{
		`{"s":"héllo \"q\"","null":null,"i32":-7,"u64":18446744073709551615,"f32":0.1,"f64":2.5,"b":true,"bin":"AP8=",` +
			`"tags":["a","b"],"opt":[1,null,3],"inner":{"lang":"en","note":"n"},"items":[{"k":"x","v":[1,2]},{"k":"y","v":[]}],` +
			`"m":{"k":5},"ts":"2023-11-14T22:13:20.123Z","day":"2022-01-08","dec":-123.45,"rep":[4,5]}`,
		`{"s":"","null":null,"i32":0,"u64":0,"f32":0.0,"f64":"NaN","b":false,"bin":"",` +
			`"tags":[],"opt":[],"inner":{"lang":"fr","note":null},"items":[],` +
			`"m":{},"ts":"1970-01-01T00:00:00Z","day":"1970-01-01","dec":0.05,"rep":[]}`,
		`{"s":"","null":null,"i32":0,"u64":0,"f32":1e+20,"f64":"-Infinity","b":false,"bin":"",` +
			`"tags":[],"opt":[],"inner":null,"items":[],` +
			`"m":{},"ts":"1970-01-01T00:00:00Z","day":"1970-01-01","dec":0.00,"rep":[]}`,
	}
	for i, row := range rows {
		got, err := enc.appendRow(nil, row)
		require.NoError(t, err, "row %d", i)
		assert.True(t, json.Valid(got), "row %d: %s", i, got)
		assert.Equal(t, want[i], string(got), "row %d", i)
	}
}

func TestRowJSONRefusesRowsOfAnotherSchema(t *testing.T) {
	type small struct {
		A int64 `parquet:"a"`
	}
	type big struct {
		A int64 `parquet:"a"`
		B int64 `parquet:"b"`
	}
	schema, _ := rowsOf(t, []big{{1, 2}})
	_, rows := rowsOf(t, []small{{1}})
	_, err := newRowJSON(schema).appendRow(nil, rows[0])
	require.Error(t, err)
}
