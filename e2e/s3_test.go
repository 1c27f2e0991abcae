package e2e

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/neardup/neardup/internal/objstoretest"
	"github.com/stretchr/testify/require"
)

// TestS3MatchesLocal runs dedup with its input and output on s3:// against gofakes3, an
// S3-compatible server the test serves on loopback, reached the way Beam's s3
// filesystem reaches any endpoint: through the AWS SDK's default configuration
// (AWS_ENDPOINT_URL_S3, static credentials, a region). It compares the objects written
// with a local run, byte for byte, and checks that the commit left no temporary objects.
func TestS3MatchesLocal(t *testing.T) {
	s3, env := startFakeS3(t)
	seed, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "seed.jsonl"))
	require.NoError(t, err)
	s3.put(t, "in/seed.jsonl", seed)

	const s3Input = "s3://" + s3Bucket + "/in/*.jsonl"
	flags := []string{"--ngram", "2", "--threshold", "0.8", "--quiet"}
	_, stderr := neardup(t, env, append([]string{"dedup", "--input", s3Input, "--output", "s3://" + s3Bucket + "/out"}, flags...)...)
	require.Empty(t, stderr, "stderr of a --quiet run on s3:// (the AWS SDK's own log lines included)")

	want := append([]string{"in/seed.jsonl"}, prefixed("out/", outputNames)...)
	sort.Strings(want)
	require.Equal(t, want, s3.keys(t), "objects in s3://%s after the run", s3Bucket)
	remote := s3.objects(t, "out/")

	localDir := filepath.Join(t.TempDir(), "local")
	neardup(t, nil, append([]string{"dedup", "--input", "testdata/seed.jsonl", "--output", localDir}, flags...)...)
	local := readLocalOutputs(t, localDir)
	assertSeedResult(t, local)
	const s3File = "s3://" + s3Bucket + "/in/seed.jsonl"
	for _, name := range []string{"removed.jsonl", "stats.json"} {
		require.Contains(t, string(remote[name]), strconv.Quote(s3File), "%s names its input", name)
		remote[name] = bytes.ReplaceAll(remote[name], []byte(strconv.Quote(s3File)), []byte(strconv.Quote("testdata/seed.jsonl")))
	}
	assertSameFiles(t, local, remote)
}

// s3Bucket is the bucket startFakeS3 creates.
const s3Bucket = "neardup-e2e"

// fakeS3 is gofakes3 served on loopback from the test process.
type fakeS3 struct{ backend *s3mem.Backend }

// startFakeS3 serves gofakes3 with an empty bucket s3Bucket on loopback until the test
// ends, and returns the environment that points the AWS SDK's default configuration, and
// so Beam's s3 filesystem, at it.
func startFakeS3(t *testing.T) (*fakeS3, []string) {
	t.Helper()
	backend, env := objstoretest.S3(t, s3Bucket)
	return &fakeS3{backend}, env
}

func (s *fakeS3) put(t *testing.T, key string, data []byte) {
	t.Helper()
	_, err := s.backend.PutObject(s3Bucket, key, nil, bytes.NewReader(data), int64(len(data)), nil)
	require.NoError(t, err)
}

// keys lists every object of the bucket.
func (s *fakeS3) keys(t *testing.T) []string {
	t.Helper()
	list, err := s.backend.ListBucket(s3Bucket, nil, gofakes3.ListBucketPage{})
	require.NoError(t, err)
	var keys []string
	for _, c := range list.Contents {
		keys = append(keys, c.Key)
	}
	return keys
}

// objects returns the objects under prefix, by key without the prefix.
func (s *fakeS3) objects(t *testing.T, prefix string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, k := range s.keys(t) {
		name, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		obj, err := s.backend.GetObject(s3Bucket, k, nil)
		require.NoError(t, err)
		out[name], err = io.ReadAll(obj.Contents)
		obj.Contents.Close()
		require.NoError(t, err)
	}
	return out
}
