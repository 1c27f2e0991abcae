// Package output writes the files the dedup pipeline writes itself, besides the
// records (io/sink): clusters.jsonl in id order and similarities.json. It imports elem,
// no stage.
package output

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"

	"github.com/neardup/neardup/io/files"
)

// Names of the outputs the pipeline writes itself; the record outputs are named by sink.
const (
	ClustersFile = "clusters.jsonl"
	StatsFile    = "stats.json"
)

// WriteJSON writes v, indented, to path.
func WriteJSON(ctx context.Context, path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return files.WriteFile(ctx, path, func(w *bufio.Writer) {
		w.Write(b)
		w.WriteByte('\n')
	})
}
