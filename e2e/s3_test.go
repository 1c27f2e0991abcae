package e2e

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"
)

// TestS3MatchesLocal runs dedup with its input and output on s3:// against gofakes3, an
// S3-compatible server the test serves on loopback, reached the way Beam's s3
// filesystem reaches any endpoint: through the AWS SDK's default configuration
// (AWS_ENDPOINT_URL_S3, static credentials, a region). It compares the objects written
// with a local run, byte for byte, and checks that the commit left no temporary objects.
func TestS3MatchesLocal(t *testing.T) {
	backend, env := fakeS3(t)
	const bucket = s3Bucket
	const s3Input = "s3://" + bucket + "/in/*.jsonl"
	flags := []string{"--ngram", "2", "--threshold", "0.8", "--quiet"}
	neardup(t, env, append([]string{"dedup", "--input", s3Input, "--output", "s3://" + bucket + "/out"}, flags...)...)

	list, err := backend.ListBucket(bucket, nil, gofakes3.ListBucketPage{})
	require.NoError(t, err)
	var keys []string
	for _, c := range list.Contents {
		keys = append(keys, c.Key)
	}
	want := append([]string{"in/seed.jsonl"}, prefixed("out/", outputNames)...)
	sort.Strings(want)
	require.Equal(t, want, keys, "objects in s3://%s after the run", bucket)
	remote := map[string][]byte{}
	for _, name := range outputNames {
		obj, err := backend.GetObject(bucket, "out/"+name, nil)
		require.NoError(t, err)
		remote[name], err = io.ReadAll(obj.Contents)
		obj.Contents.Close()
		require.NoError(t, err)
	}

	localDir := filepath.Join(t.TempDir(), "local")
	neardup(t, nil, append([]string{"dedup", "--input", "testdata/seed.jsonl", "--output", localDir}, flags...)...)
	local := readLocalOutputs(t, localDir)
	assertSeedResult(t, local)
	const s3File = "s3://" + bucket + "/in/seed.jsonl"
	for _, name := range []string{"removed.jsonl", "stats.json"} {
		require.Contains(t, string(remote[name]), strconv.Quote(s3File), "%s names its input", name)
		remote[name] = bytes.ReplaceAll(remote[name], []byte(strconv.Quote(s3File)), []byte(strconv.Quote("testdata/seed.jsonl")))
	}
	assertSameOutputs(t, local, remote)
}

// s3Bucket is the bucket fakeS3 creates, holding in/seed.jsonl.
const s3Bucket = "neardup-e2e"

// fakeS3 serves gofakes3 on loopback with s3Bucket and in/seed.jsonl in it, and returns
// the backend and the environment that points neardup at it.
func fakeS3(t *testing.T) (*s3mem.Backend, []string) {
	t.Helper()
	backend := s3mem.New()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: gofakes3.New(backend).Server(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	require.NoError(t, backend.CreateBucket(s3Bucket))
	seed, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "seed.jsonl"))
	require.NoError(t, err)
	_, err = backend.PutObject(s3Bucket, "in/seed.jsonl", nil, bytes.NewReader(seed), int64(len(seed)), nil)
	require.NoError(t, err)
	return backend, []string{
		"AWS_ENDPOINT_URL_S3=http://" + ln.Addr().String(), // an IP address: path-style requests
		"AWS_ACCESS_KEY_ID=neardup", "AWS_SECRET_ACCESS_KEY=neardup", "AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE=" + filepath.Join(t.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(t.TempDir(), "none"),
		"AWS_EC2_METADATA_DISABLED=true",
	}
}
