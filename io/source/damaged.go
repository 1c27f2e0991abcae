package source

import (
	"errors"
	"fmt"

	"github.com/neardup/neardup/io/files"
)

// Damage describes a file that broke while it was read: the records before the break
// were read, the ones after it are unknown (a truncated stream does not say how many
// there were) and can be in no output.
type Damage struct {
	File string
	// Line is the line (row, for Parquet) that could not be read: LastGood+1, or 0 when
	// the file could not be opened at all.
	Line int64
	// Reason is the rejected.jsonl reason: ReadErrorPrefix or OpenErrorPrefix, the
	// error with the file's byte offset, and the last good line.
	Reason string
}

// LastGood is the last line (row) read whole.
func (d *Damage) LastGood() int64 { return max(d.Line-1, 0) }

// Error is the message of a run stopped by the damage (--on-damaged-file fail).
func (d *Damage) Error() string {
	return fmt.Sprintf("input %s is damaged: %s; replace the file, or pass --on-damaged-file skip to dedup the records before the damage and list the file in rejected.jsonl",
		d.File, d.Reason[len(ReadErrorPrefix):])
}

// damaged records the damage of file at line (0: the file could not be opened) as its
// one Rejected record. good is the number of decompressed bytes of the good lines, or -1
// when unknown (Parquet).
func (st *Stats) damaged(file string, line, good int64, err error, reject func(int64, string)) {
	d := &Damage{File: file, Line: line}
	if line == 0 {
		d.Reason = OpenErrorPrefix + err.Error()
	} else {
		unit := "line"
		var re *files.ReadError
		if good < 0 {
			unit = "row"
		}
		d.Reason = fmt.Sprintf("%s%v; last good %s %d", ReadErrorPrefix, err, unit, line-1)
		if good >= 0 && errors.As(err, &re) && files.Compression(file) != "" {
			d.Reason += fmt.Sprintf(" (%d bytes decompressed)", good)
		}
		d.Reason += "; the records after it are unknown and in no output"
	}
	st.Damaged = d
	reject(line, d.Reason)
}
