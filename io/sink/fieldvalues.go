package sink

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/parquetfile"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/io/textfile"
	"github.com/neardup/neardup/record"
)

// errDone ends a re-read once every wanted line was seen.
var errDone = errors.New("done")

// FieldValues re-reads one input file and returns the top-level field name of the
// records at the given lines (rows), as removed.jsonl shows the record: a JSONL record's
// own field; a Parquet row's column with dates and timestamps as ISO 8601 strings and
// decimals as exact numbers. Text input has no fields: its values are all missing. A
// wanted line the file no longer has is an error (the file changed during the run).
// limit is the record size limit the file was read with.
func FieldValues(ctx context.Context, file, format, name string, lines []int64, limit int64) (map[int64]record.FieldValue, error) {
	want := map[int64]bool{}
	var last int64
	for _, l := range lines {
		want[l] = true
		last = max(last, l)
	}
	out := make(map[int64]record.FieldValue, len(want))
	ff, err := source.FileFormat(file, format)
	if err != nil {
		return nil, err
	}
	switch ff {
	case source.FormatText:
		for l := range want {
			out[l] = record.FieldValue{}
		}
		return out, nil
	case source.FormatParquet:
		err = parquetFieldValues(ctx, file, name, want, last, out)
	default:
		err = jsonlFieldValues(ctx, file, name, want, last, out, limit)
	}
	if err != nil && !errors.Is(err, errDone) {
		return nil, fmt.Errorf("re-read %s for field %q: %w", file, name, err)
	}
	if len(out) != len(want) {
		return nil, fmt.Errorf("re-read %s for field %q: %d of the wanted lines are no longer there (the file changed during the run?)", file, name, len(want)-len(out))
	}
	return out, nil
}

func jsonlFieldValues(ctx context.Context, file, name string, want map[int64]bool, last int64, out map[int64]record.FieldValue, limit int64) error {
	rc, err := files.Open(ctx, file)
	if err != nil {
		return err
	}
	defer rc.Close()
	lr := source.Lines(rc, limit)
	for {
		line, n, err := lr.Next()
		var long *textfile.LongLineError
		switch {
		case errors.As(err, &long):
			// Rejected when it was read: never a wanted line.
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		case want[n]:
			out[n] = record.FieldOf(textfile.Record(line, n), name)
		}
		if n >= last {
			return errDone
		}
	}
}

func parquetFieldValues(ctx context.Context, file, name string, want map[int64]bool, last int64, out map[int64]record.FieldValue) error {
	f, err := parquetfile.Open(ctx, file)
	if err != nil {
		return err
	}
	defer f.Close()
	js := newRowJSON(f.Schema())
	var buf []byte
	return f.ForEachRow(func(n int64, row parquet.Row) error {
		if want[n] {
			var err error
			if buf, err = js.appendRow(buf[:0], row); err != nil {
				return fmt.Errorf("row %d: %w", n, err)
			}
			out[n] = record.FieldOf(buf, name)
		}
		if n >= last {
			return errDone
		}
		return nil
	}, nil)
}
