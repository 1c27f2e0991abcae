package files

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"
)

const testBucket = "neardup-files"

// fakeS3 serves an empty bucket on loopback and points the AWS SDK at it; it returns the
// bucket's s3:// root.
func fakeS3(t *testing.T) string {
	backend := s3mem.New()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: gofakes3.New(backend).Server(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	require.NoError(t, backend.CreateBucket(testBucket))
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_S3": "http://" + ln.Addr().String(), "AWS_ACCESS_KEY_ID": "neardup", "AWS_SECRET_ACCESS_KEY": "neardup",
		"AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"), "AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
	return "s3://" + testBucket
}

// fakeGCS serves an empty bucket on loopback and points the GCS client at it; it returns
// the bucket's gs:// root and a count of the compose requests the server received.
func fakeGCS(t *testing.T) (string, *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	gcs, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", NoListener: true, PublicHost: addr})
	require.NoError(t, err)
	gcs.CreateBucket(testBucket)
	composes := new(atomic.Int64)
	handler := gcs.HTTPHandler()
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/compose") {
			composes.Add(1)
		}
		handler.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close(); gcs.Stop() })
	t.Setenv("STORAGE_EMULATOR_HOST", addr)
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
