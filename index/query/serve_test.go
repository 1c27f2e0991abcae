package query

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// serve runs s's real http.Server on a loopback port until the test ends, and returns
// its address.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := s.HTTPServer()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// slowPost sends a request announcing a body of size bytes, sends first bytes of it at
// once, then one byte every gap until the server answers or closes, or until stop; it
// returns the status line ("" when the connection closed without one).
func slowPost(addr string, size, first int, gap time.Duration, stop time.Time) string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", size)
	line := `{"text":"` + strings.Repeat("y", max(0, first-12)) + `"}` + "\n"
	c.Write([]byte(line[:min(len(line), size)]))
	status := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(c).ReadString('\n')
		status <- strings.TrimSpace(l)
	}()
	t := time.NewTicker(gap)
	defer t.Stop()
	for {
		select {
		case l := <-status:
			return l
		case <-t.C:
			if time.Now().After(stop) {
				return "still open"
			}
			c.Write([]byte("y"))
		}
	}
}

// Slow request bodies are bounded in time (BodyTimeout: 408, the connection closed) and
// in memory (MaxInflight over all requests: 503), and the server answers normally once
// they are gone. Against the real http.Server on loopback, with a bounded count of
// clients and a bounded duration.
func TestSlowBodiesBounded(t *testing.T) {
	dir := t.TempDir()
	build(t, dir, 32, corpus(rand.New(rand.NewPCG(1, 1)), "a", 20, nil))
	s, err := NewServer(context.Background(), dir)
	require.NoError(t, err)
	s.BodyTimeout, s.MaxInflight = time.Second, 1<<20
	addr := serve(t, s)
	stop := time.Now().Add(15 * time.Second)

	// 40 clients announce 16 MB each and send 64 KiB, then a byte every 100 ms: the first
	// 16 fit in the 1 MiB budget and time out, the others are refused as busy.
	var wg sync.WaitGroup
	statuses := make([]string, 40)
	start := time.Now()
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = slowPost(addr, 16<<20, 64<<10, 100*time.Millisecond, stop)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	count := map[string]int{}
	for _, st := range statuses {
		count[st]++
	}
	require.True(t, count["HTTP/1.1 408 Request Timeout"]+count["HTTP/1.1 503 Service Unavailable"] == len(statuses) &&
		count["HTTP/1.1 503 Service Unavailable"] != 0 && count["HTTP/1.1 408 Request Timeout"] != 0, "answers to slow bodies: %v", count)
	require.LessOrEqual(t, took, 10*time.Second, "slow bodies held their connections with a body timeout of 1s")
	require.Zero(t, s.inflight.Load(), "bytes of bodies counted in flight after every request ended")
	// The server still answers.
	resp, err := http.Post("http://"+addr+"/query", "application/x-ndjson", strings.NewReader(`{"id":"q","text":"one two three four five six"}`+"\n"))
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.True(t, resp.StatusCode == 200 && strings.HasPrefix(string(b), `{"id":"q","near":[`), "after slow bodies: %d %s", resp.StatusCode, b)
}

// get returns a request's status and body.
func get(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// An index removed while served makes the server unhealthy (healthz and queries 503,
// naming why) instead of answering from the deleted generation; an index built again in
// its place, at a generation no newer, is picked up and answered from.
func TestServeNoticesRemovedIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	a := corpus(rng, "a", 100, nil)
	b := corpus(rng, "b", 100, nil)
	qs := corpus(rng, "q", 20, append(a, b...))
	dir := t.TempDir()
	build(t, dir, 32, a)
	wantA := expected(t, dir, qs)
	s, err := NewServer(context.Background(), dir)
	require.NoError(t, err)
	addr := serve(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx, 20*time.Millisecond)
	code, got := get(t, "POST", "http://"+addr+"/query", body(qs))
	require.True(t, code == 200 && got == wantA, "before: %d %s", code, got)
	// until polls healthz until its status is code, for at most 5 s.
	until := func(code int) string {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; {
			c, got := get(t, "GET", "http://"+addr+"/healthz", "")
			if c == code {
				return got
			}
			require.False(t, time.Now().After(deadline), "healthz still %d %s, want %d", c, got, code)
			time.Sleep(20 * time.Millisecond)
		}
	}
	require.NoError(t, os.RemoveAll(dir))
	why := until(503)
	require.True(t, strings.Contains(why, "generation 1 of "+dir+" is no longer the index's") && strings.Contains(why, "no manifest.json"),
		"healthz when the index is gone: %s", why)
	code, got = get(t, "POST", "http://"+addr+"/query", body(qs))
	require.True(t, code == 503 && got == why, "query when the index is gone: %d %s", code, got)
	// Another index, also at generation 1, in the same place.
	build(t, dir, 32, b)
	wantB := expected(t, dir, qs)
	require.NotEqual(t, wantA, wantB, "the two indexes answer alike: the test shows nothing")
	require.Equal(t, "ok generation 1 documents 100\n", until(200), "healthz")
	code, got = get(t, "POST", "http://"+addr+"/query", body(qs))
	require.True(t, code == 200 && got == wantB, "after the index was rebuilt: %d %s\nwant %s", code, got, wantB)
}
