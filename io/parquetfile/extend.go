package parquetfile

import (
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Column is a top-level column to add to a schema.
type Column struct {
	Name string
	Node parquet.Node // a leaf: parquet.String(), parquet.Optional(parquet.Leaf(parquet.DoubleType)), …
}

// droppedMetadata are footer keys that describe the columns (Arrow's schema, Hugging
// Face's features): they would not list the added columns, and readers trust them over
// the Parquet schema, so a file with added columns leaves them out.
var droppedMetadata = []string{"ARROW:schema", "huggingface"}

// NewExtendedWriter writes rows shaped like like's with extra leaf columns after its
// own, keeping every original column as it is. It returns the leaf column index of the
// first added column: a row written is a row of like with one value per added column
// appended, at that index and on. A name like already has is an error.
func NewExtendedWriter(out io.Writer, like *File, extra []Column) (*Writer, int, error) {
	schema := like.Schema()
	fields := slices.Clone(schema.Fields())
	for _, c := range extra {
		for _, f := range fields {
			if f.Name() == c.Name {
				return nil, 0, fmt.Errorf("%s already has a column %q", like.path, c.Name)
			}
		}
		fields = append(fields, namedField{c.Node, c.Name})
	}
	var kv []format.KeyValue
	for _, m := range like.KeyValueMetadata() {
		if !slices.Contains(droppedMetadata, m.Key) {
			kv = append(kv, m)
		}
	}
	extended := parquet.NewSchema(schema.Name(), extendedRoot{schema, fields})
	w := parquet.NewWriter(out, writerOptions(extended, kv)...)
	return &Writer{w: w, one: make([]parquet.Row, 1)}, len(schema.Columns()), nil
}

// extendedRoot is a schema's root with more fields, in the given order (a parquet.Group
// would sort them by name).
type extendedRoot struct {
	parquet.Node
	fields []parquet.Field
}

func (r extendedRoot) Fields() []parquet.Field { return r.fields }

type namedField struct {
	parquet.Node
	name string
}

func (f namedField) Name() string { return f.name }

// Value is never called: rows are written as parquet.Row, not from Go values.
func (f namedField) Value(reflect.Value) reflect.Value { return reflect.Value{} }
