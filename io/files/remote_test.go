package files

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/internal/objstoretest"
	"github.com/stretchr/testify/require"
)

const testBucket = "neardup-files"

func fakeS3(t *testing.T) string {
	_, env := objstoretest.S3(t, testBucket)
	objstoretest.Setenv(t, env)
	return "s3://" + testBucket
}

func fakeGCS(t *testing.T) (string, *atomic.Int64) {
	_, env, composes := objstoretest.GCS(t, testBucket)
	objstoretest.Setenv(t, env)
	return "gs://" + testBucket, composes
}

func put(t *testing.T, path, content string) {
	t.Helper()
	w, err := Create(context.Background(), path)
	require.NoError(t, err)
	_, err = w.Write([]byte(content))
	require.NoError(t, err)
	require.NoError(t, w.Close())
}

// Object stores have no directories: a "directory" is a prefix, and what is under it
// may sit at any depth. Tree, SubdirsWithPrefix and RemoveAll must see every level.
func TestRemoteTreesAtAnyDepth(t *testing.T) {
	gcs := func(t *testing.T) string { root, _ := fakeGCS(t); return root }
	for name, root := range map[string]func(*testing.T) string{"s3": fakeS3, "gcs": gcs} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := Join(root(t), "out")
			tmp := Join(dir, ".neardup-tmp-1")
			want := []string{"a", "clusters/part-00000-of-00002.jsonl", "clusters/runs/0/run-1", "x/y/z/w/deep"}
			for _, rel := range want {
				put(t, Join(tmp, rel), rel)
			}
			put(t, Join(dir, "kept.jsonl"), "kept")

			got, err := Tree(ctx, tmp)
			require.NoError(t, err)
			require.Equal(t, want, got)
			subs, err := SubdirsWithPrefix(ctx, dir, ".neardup-tmp-")
			require.NoError(t, err)
			require.Equal(t, []string{tmp}, subs)

			require.NoError(t, RemoveAll(ctx, tmp))
			got, err = Tree(ctx, tmp)
			require.NoError(t, err)
			require.Empty(t, got, "RemoveAll leaves nothing under the prefix")
			got, err = Tree(ctx, dir)
			require.NoError(t, err)
			require.Equal(t, []string{"kept.jsonl"}, got, "RemoveAll removes nothing beside the prefix")
		})
	}
}

// On gs://, Concat composes the parts on the server: the result is a composite object
// (only compose makes one) holding the parts in order, and the parts are gone.
func TestConcatComposesOnGCS(t *testing.T) {
	ctx := context.Background()
	root, composes := fakeGCS(t)
	dir := Join(root, "out")
	var srcs []string
	var want strings.Builder
	for i := range 2*composeLimit + 5 {
		p := Join(dir, fmt.Sprintf("parts/part-%05d", i))
		content := strings.Repeat(fmt.Sprintf("line %d\n", i), i%3+1)
		put(t, p, content)
		want.WriteString(content)
		srcs = append(srcs, p)
	}
	dst := Join(dir, "kept.jsonl")
	require.NoError(t, Concat(ctx, dst, srcs))

	r, err := Open(ctx, dst)
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	r.Close()
	require.Equal(t, want.String(), string(got))
	rel, err := Tree(ctx, dir)
	require.NoError(t, err)
	require.Equal(t, []string{"kept.jsonl"}, rel, "the parts are removed")

	require.EqualValues(t, 3, composes.Load(), "kept.jsonl was composed on the server, %d parts at a time", composeLimit)
}
