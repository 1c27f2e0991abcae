package files

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcat joins 0, 1 and several parts, on local disk (moved and appended by the
// kernel) and through the Beam filesystem (memfs: streamed), and expects the parts'
// bytes in order and every part gone.
func TestConcat(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []string{t.TempDir(), "memfs://concat-test"} {
		for _, n := range []int{0, 1, 3} {
			var srcs []string
			var want strings.Builder
			for i := range n {
				p := Join(dir, fmt.Sprintf("part-%d-%d", n, i))
				// Parts of several sizes, one larger than a copy buffer.
				content := strings.Repeat(fmt.Sprintf("line %d of part %d\n", i, i), 1+i*40000)
				w, err := Create(ctx, p)
				require.NoError(t, err)
				_, err = io.WriteString(w, content)
				require.NoError(t, err)
				require.NoError(t, w.Close())
				srcs = append(srcs, p)
				want.WriteString(content)
			}
			dst := Join(dir, fmt.Sprintf("out-%d", n))
			require.NoError(t, Concat(ctx, dst, srcs), "%s, %d parts", dir, n)
			got, err := readAll(t, dst)
			require.NoError(t, err)
			assert.Equal(t, want.Len(), len(got), "%s, %d parts", dir, n)
			assert.True(t, want.String() == string(got), "%s, %d parts: bytes in order", dir, n)
			for _, s := range srcs {
				_, err := Expand(ctx, []string{s})
				assert.Error(t, err, "%s is removed", s)
			}
		}
	}
}

// A part that cannot be read fails the join with the output's name, and the parts
// after it are left in place.
func TestConcatMissingPart(t *testing.T) {
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a"), filepath.Join(dir, "c")
	require.NoError(t, os.WriteFile(a, []byte("a\n"), 0o644))
	require.NoError(t, os.WriteFile(c, []byte("c\n"), 0o644))
	err := Concat(context.Background(), filepath.Join(dir, "out"), []string{a, filepath.Join(dir, "b"), c})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "concatenate "+filepath.Join(dir, "out"))
	_, err = os.Stat(c)
	assert.NoError(t, err)
}
