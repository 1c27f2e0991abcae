package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
	"github.com/neardup/neardup/io/textfile"
)

// damagedFile is an input that broke mid-way under --on-damaged-file skip: its records up
// to LastGoodLine are in the outputs, the ones after it are unknown.
type damagedFile struct {
	File         string `json:"file"`
	LastGoodLine int64  `json:"last_good_line"`
	Reason       string `json:"reason"`
}

// addDamaged lists the damaged files in stats.json, with a warning, from their lines in
// the run's rejected.jsonl (the counter says how many there are, not which).
func (st *Stats) addDamaged(ctx context.Context, rejectedPath string) error {
	if st.Counts["damaged_files"] == 0 {
		return nil
	}
	r, err := files.Open(ctx, rejectedPath)
	if err != nil {
		return err
	}
	defer r.Close()
	marker := []byte(`"reason":"` + source.ReadErrorPrefix)
	lr := textfile.NewReader(r)
	for {
		line, _, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if !bytes.Contains(line, marker) {
			continue
		}
		var rej struct {
			File   string `json:"file"`
			Line   int64  `json:"line"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal(line, &rej); err != nil {
			return fmt.Errorf("%s: %w", rejectedPath, err)
		}
		st.DamagedFiles = append(st.DamagedFiles, damagedFile{File: rej.File, LastGoodLine: max(rej.Line-1, 0), Reason: rej.Reason})
	}
	st.RecordsAfterDamage = "unknown"
	var where []string
	for _, d := range st.DamagedFiles {
		where = append(where, fmt.Sprintf("%s after line %d", d.File, d.LastGoodLine))
	}
	st.Warnings = append(st.Warnings, fmt.Sprintf(
		"%d damaged input file(s) skipped from the damage on (--on-damaged-file skip): %s; the records after the damage are unknown and in no output (see rejected.jsonl)",
		len(st.DamagedFiles), strings.Join(where, ", ")))
	return nil
}
