package index

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pyarrowVersion is the pyarrow the Parquet test reads shards with, installed with pip
// into a virtual environment under the user's cache directory (outside the work tree)
// on first use.
const pyarrowVersion = "18.1.0"

func pyarrowPython(t *testing.T) string {
	t.Helper()
	if os.Getenv("NEARDUP_SKIP_PYARROW") != "" {
		t.Skip("NEARDUP_SKIP_PYARROW is set")
	}
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	env := filepath.Join(cache, "neardup", "pyarrow-"+pyarrowVersion)
	py := filepath.Join(env, "bin", "python")
	if exec.Command(py, "-c", "import pyarrow").Run() == nil {
		return py
	}
	for _, args := range [][]string{{"python3", "-m", "venv", env}, {filepath.Join(env, "bin", "pip"), "install", "-q", "pyarrow==" + pyarrowVersion}} {
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		require.NoError(t, err, "installing pyarrow %s (set NEARDUP_SKIP_PYARROW=1 to skip offline):\n%s", pyarrowVersion, out)
	}
	return py
}

// TestShardSchemaReadByPyarrow: pyarrow reads a format 1 shard with the schema Row
// documents (id string, shingles list of uint64) and the same rows.
func TestShardSchemaReadByPyarrow(t *testing.T) {
	py := pyarrowPython(t)
	dir := t.TempDir()
	rows := testRows(3000, "d")
	require.NoError(t, SortRows(rows))
	e, err := WriteShard(context.Background(), dir, "shard.parquet", 0, rows)
	require.NoError(t, err)
	script := `
import json, sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(json.dumps({"schema": [[f.name, str(f.type), f.nullable] for f in t.schema],
                  "row_groups": pq.ParquetFile(sys.argv[1]).num_row_groups,
                  "rows": t.to_pylist()}))
`
	out, err := exec.Command(py, "-c", script, filepath.Join(dir, e.Path)).Output()
	require.NoError(t, err, "pyarrow")
	var got struct {
		Schema    [][]any `json:"schema"`
		RowGroups int     `json:"row_groups"`
		Rows      []Row   `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	want := [][]any{{"id", "string", false}, {"shingles", "list<element: uint64 not null>", false}}
	b, _ := json.Marshal(got.Schema)
	assert.Equal(t, mustJSON(want), string(b), "schema")
	assert.Equal(t, (len(rows)+RowGroupRows-1)/RowGroupRows, got.RowGroups, "row groups")
	assert.True(t, slices.EqualFunc(got.Rows, rows, func(a, b Row) bool { return a.ID == b.ID && slices.Equal(a.Shingles, b.Shingles) }),
		"pyarrow read other rows (%d, want %d)", len(got.Rows), len(rows))
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
