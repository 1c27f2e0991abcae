package query

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func body(docs []Doc) string {
	var b strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&b, "{\"id\":%q,\"text\":%q}\n", d.ID, d.Text)
	}
	return b.String()
}

// expected is the answer of the index at dir to docs, as the server writes it.
func expected(t *testing.T, dir string, docs []Doc) string {
	t.Helper()
	e, err := Open(context.Background(), dir)
	require.NoError(t, err)
	defer e.Close()
	var out []byte
	for _, d := range docs {
		ms, err := e.Near(d.Text)
		require.NoError(t, err)
		out = AppendResult(out, d, ms, nil)
	}
	return string(out)
}

// TestGenerationSwapUnderLoad queries the server from several goroutines while the
// index gains a generation, is reloaded, compacted and reloaded again: every request
// succeeds and every answer is exactly one generation's answer, the one its header
// names.
func TestGenerationSwapUnderLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	a := corpus(rng, "a", 400, nil)
	b := corpus(rng, "b", 60, a) // under a quarter of a: a second segment
	qs := corpus(rng, "q", 40, append(a, b...))
	dir, ref := t.TempDir(), t.TempDir()
	m1 := build(t, dir, 32, a)
	want := map[string]string{"1": expected(t, dir, qs)}
	build(t, ref, 32, a, b) // the answers of generations 2 and 3
	want["2"] = expected(t, ref, qs)
	require.NotEqual(t, want["1"], want["2"], "the second batch changes no answer: the test would not see a mixed one")
	s, err := NewServer(context.Background(), dir)
	require.NoError(t, err)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	defer func() { stop.Store(true); wg.Wait() }()
	var requests, failures atomic.Int64
	seen := sync.Map{}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				resp, err := http.Post(srv.URL+"/query", "application/x-ndjson", strings.NewReader(body(qs)))
				if !assert.NoError(t, err) {
					failures.Add(1)
					return
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				requests.Add(1)
				gen := resp.Header.Get("X-Neardup-Generation")
				seen.Store(gen, true)
				w := want[gen]
				if gen == "3" {
					w = want["2"] // compaction changes no answer
				}
				if !assert.True(t, resp.StatusCode == 200 && string(got) == w,
					"generation %q: status %d, answer equal to its generation's: %v", gen, resp.StatusCode, string(got) == w) {
					failures.Add(1)
					return
				}
			}
		}()
	}
	wait := func(n int64) {
		for start := requests.Load(); requests.Load() < start+n && failures.Load() == 0; {
		}
	}
	wait(20)
	m2, err := AddDocs(context.Background(), dir, m1, b)
	require.NoError(t, err)
	require.Len(t, m2.Segments, 2, "segments")
	ok, err := s.Reload(context.Background())
	require.True(t, ok && err == nil, "reload: %v %v", ok, err)
	wait(20)
	_, err = index.Compact(context.Background(), dir, m2)
	require.NoError(t, err)
	ok, err = s.Reload(context.Background())
	require.True(t, ok && err == nil, "reload: %v %v", ok, err)
	wait(20)
	stop.Store(true)
	wg.Wait()
	for _, g := range []string{"1", "2", "3"} {
		_, ok := seen.Load(g)
		assert.True(t, ok, "no request answered from generation %s", g)
	}
	require.Equal(t, 3, s.Generation(), "serving generation")
}

func TestBadRequests(t *testing.T) {
	dir := t.TempDir()
	build(t, dir, 32, corpus(rand.New(rand.NewPCG(1, 1)), "a", 20, nil))
	s, err := NewServer(context.Background(), dir)
	require.NoError(t, err)
	s.MaxBody, s.MaxDocs = 1000, 3
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for _, c := range []struct {
		method, body string
		code         int
		msg          string
	}{
		{"GET", "", 405, "POST JSONL documents to /query"},
		{"POST", "", 400, "empty body"},
		{"POST", "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":", 400, "body:2: not a JSON object"},
		{"POST", `{"id":"a","body":"x"}`, 400, `body:1: field \"text\": missing or not a string`},
		{"POST", strings.Repeat(`{"text":"x"}`+"\n", 4), 413, "over 3 documents in one request"},
		{"POST", `{"text":"` + strings.Repeat("x", 2000) + `"}`, 413, "body over 1000 bytes"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+"/query", strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.True(t, resp.StatusCode == c.code && bytes.Contains(got, []byte(c.msg)),
			"%s %.30q: %d %s, want %d with %q", c.method, c.body, resp.StatusCode, got, c.code, c.msg)
	}
	resp, err := http.Get(srv.URL + "/healthz")
	require.NoError(t, err)
	got, _ := io.ReadAll(resp.Body)
	require.True(t, resp.StatusCode == 200 && string(got) == "ok generation 1 documents 20\n", "healthz: %d %q", resp.StatusCode, got)
}

// TestDamagedSegmentNamed: a damaged segment fails the query naming the file, and a
// truncated one fails opening the index.
func TestDamagedSegmentNamed(t *testing.T) {
	dir := t.TempDir()
	docs := corpus(rand.New(rand.NewPCG(2, 2)), "a", 200, nil)
	m := build(t, dir, 32, docs)
	path := filepath.Join(dir, m.Segments[0].Path)
	orig, _ := os.ReadFile(path)
	b := bytes.Clone(orig)
	for i := 100; i < 5000; i++ { // records of the first documents
		b[i] ^= 0xff
	}
	os.WriteFile(path, b, 0o644)
	e, err := Open(context.Background(), dir)
	require.NoError(t, err)
	var qerr error
	for _, d := range docs[:20] {
		if _, qerr = e.Near(d.Text); qerr != nil {
			break
		}
	}
	e.Close()
	require.ErrorContains(t, qerr, "segment file "+path+" is damaged: document ")
	os.WriteFile(path, orig[:len(orig)-1], 0o644)
	_, err = Open(context.Background(), dir)
	require.ErrorContains(t, err, "segment file "+path+" is damaged", "truncated")
	var info bytes.Buffer
	mm, _ := index.ReadManifest(context.Background(), dir)
	verr := mm.Verify(context.Background(), dir)
	mm.WriteInfo(&info, dir, verr)
	require.Error(t, verr)
	require.Contains(t, info.String(), "segment file "+m.Segments[0].Path+" is damaged", "info")
}
