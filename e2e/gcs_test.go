package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGCSEmulatorMatchesLocal runs dedup with its input and output on gs:// against
// fake-gcs-server (a separate process on loopback, reached through STORAGE_EMULATOR_HOST
// exactly as cloud.google.com/go/storage and therefore Beam's gs:// filesystem do) and
// compares the objects it wrote with a local run.
func TestGCSEmulatorMatchesLocal(t *testing.T) {
	bin := binaries(t)
	gcs := startServer(t, "fake-gcs-server", filepath.Join(bin, "fake-gcs-server"), func(port int) []string {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		return []string{"-scheme", "http", "-host", "127.0.0.1", "-port", strconv.Itoa(port),
			"-public-host", addr, "-backend", "memory", "-log-level", "warn"}
	})
	api := &gcsAPI{t: t, base: "http://" + gcs.addr, client: &http.Client{Timeout: 30 * time.Second}}

	const bucket = "neardup-e2e"
	api.createBucket(bucket)
	seed, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "seed.jsonl"))
	require.NoError(t, err)
	api.upload(bucket, "seed.jsonl", seed)

	const gsInput = "gs://" + bucket + "/seed.jsonl"
	flags := []string{"--ngram", "2", "--threshold", "0.8", "--quiet"}
	neardup(t, []string{"STORAGE_EMULATOR_HOST=" + gcs.addr},
		append([]string{"dedup", "--input", gsInput, "--output", "gs://" + bucket + "/out"}, flags...)...)

	// Exactly the committed outputs and the input: no .neardup-tmp-* objects are left.
	want := append([]string{"seed.jsonl"}, prefixed("out/", outputNames)...)
	sort.Strings(want)
	require.Equal(t, want, api.list(bucket, ""), "objects in gs://%s after the run", bucket)
	remote := map[string][]byte{}
	for _, name := range outputNames {
		remote[name] = api.download(bucket, "out/"+name)
	}

	localDir := filepath.Join(t.TempDir(), "local")
	neardup(t, nil, append([]string{"dedup", "--input", "testdata/seed.jsonl", "--output", localDir}, flags...)...)
	local := readLocalOutputs(t, localDir)
	assertSeedResult(t, local)

	// removed.jsonl and stats.json name the input file; everything else must be the
	// same bytes. Replacing the JSON string (quotes included) also checks that the gs://
	// run names its input exactly as given.
	for _, name := range []string{"removed.jsonl", "stats.json"} {
		require.Contains(t, string(remote[name]), strconv.Quote(gsInput), "%s names its input", name)
		remote[name] = bytes.ReplaceAll(remote[name], []byte(strconv.Quote(gsInput)), []byte(strconv.Quote("testdata/seed.jsonl")))
	}
	assertSameFiles(t, local, remote)
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// gcsAPI is the little of the GCS JSON API the test needs, over plain HTTP: the emulator
// is the system under test's peer, so the test talks to it without the client library
// neardup itself uses.
type gcsAPI struct {
	t      *testing.T
	base   string
	client *http.Client
}

func (g *gcsAPI) do(method, u, contentType string, body []byte) []byte {
	g.t.Helper()
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	require.NoError(g.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := g.client.Do(req)
	require.NoError(g.t, err, "%s %s", method, u)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(g.t, err, "%s %s: read body", method, u)
	require.True(g.t, resp.StatusCode >= 200 && resp.StatusCode < 300, "%s %s: %s: %s", method, u, resp.Status, b)
	return b
}

func (g *gcsAPI) createBucket(name string) {
	g.t.Helper()
	body, err := json.Marshal(map[string]string{"name": name})
	require.NoError(g.t, err)
	g.do(http.MethodPost, g.base+"/storage/v1/b", "application/json", body)
}

func (g *gcsAPI) upload(bucket, object string, data []byte) {
	g.t.Helper()
	u := fmt.Sprintf("%s/upload/storage/v1/b/%s/o?uploadType=media&name=%s", g.base, url.PathEscape(bucket), url.QueryEscape(object))
	g.do(http.MethodPost, u, "application/octet-stream", data)
}

func (g *gcsAPI) download(bucket, object string) []byte {
	g.t.Helper()
	u := fmt.Sprintf("%s/storage/v1/b/%s/o/%s?alt=media", g.base, url.PathEscape(bucket), url.PathEscape(object))
	return g.do(http.MethodGet, u, "", nil)
}

// list returns the sorted names of the objects under prefix, following pagination.
func (g *gcsAPI) list(bucket, prefix string) []string {
	g.t.Helper()
	var names []string
	token := ""
	for {
		q := url.Values{"prefix": {prefix}}
		if token != "" {
			q.Set("pageToken", token)
		}
		var page struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
			NextPageToken string `json:"nextPageToken"`
		}
		b := g.do(http.MethodGet, fmt.Sprintf("%s/storage/v1/b/%s/o?%s", g.base, url.PathEscape(bucket), q.Encode()), "", nil)
		require.NoError(g.t, json.Unmarshal(b, &page), "list gs://%s: %s", bucket, b)
		for _, it := range page.Items {
			names = append(names, it.Name)
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	sort.Strings(names)
	assert.False(g.t, containsTemp(names), "temporary objects left: %v", names)
	return names
}

func containsTemp(names []string) bool {
	for _, n := range names {
		if strings.Contains(n, ".neardup-tmp-") {
			return true
		}
	}
	return false
}
