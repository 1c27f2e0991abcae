package source

import (
	"context"
	"errors"
	"fmt"

	"github.com/neardup/neardup/io/parquetfile"
	"github.com/neardup/neardup/io/textfile"
	"github.com/neardup/neardup/record"
)

// readParquet reads one Parquet file's id and text columns into Docs, one per row, with
// the 1-based row number as the Line. A null text rejects its row; a file that cannot be
// opened, or whose schema has no usable text (or id) column, is rejected whole at Line 0.
func readParquet(ctx context.Context, file string, cfg Config, st *Stats, doc func(record.Doc), reject func(int64, string)) {
	f, err := parquetfile.Open(ctx, file)
	if err != nil {
		st.damaged(file, 0, -1, err, reject)
		return
	}
	defer f.Close()
	cols, err := parquetfile.FindColumns(f.Schema(), cfg.IDField, cfg.TextField)
	if err != nil {
		reject(0, err.Error())
		return
	}
	nullText := fmt.Sprintf("field %q: null", cfg.TextField)
	err = f.ReadDocs(cols, func(row int64, id string, text []byte, textNull bool) {
		if textNull {
			reject(row, nullText)
			return
		}
		d := record.Doc{ID: id, File: file, Line: row}
		var bad bool
		d.Text, bad = textfile.Text(text)
		st.emit(d, bad, doc)
	})
	var rerr *parquetfile.RowError
	switch {
	case errors.As(err, &rerr):
		st.damaged(file, rerr.Row, -1, rerr.Err, reject)
	case err != nil:
		// ReadDocs reports every read failure as a RowError; anything else is a bug, but it
		// must still not lose the file silently.
		st.damaged(file, 0, -1, err, reject)
	}
}
