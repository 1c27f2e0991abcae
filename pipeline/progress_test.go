package pipeline

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/pipeline/internal/elem"

	"github.com/stretchr/testify/assert"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestProgressLineNamesDocumentsAndStage(t *testing.T) {
	elem.Progress.Stage.Store("lsh")
	var out lockedBuffer
	stop := make(chan struct{})
	done := reportProgress(&out, 5*time.Millisecond, 0, "", stop)
	// The line counts from the run's start: what was read before is not this run's.
	elem.Progress.Read.Add(1234)
	assert.Eventually(t, func() bool { return strings.Contains(out.String(), "\n") }, time.Second, 5*time.Millisecond)
	close(stop)
	<-done
	line := strings.SplitN(out.String(), "\n", 2)[0]
	assert.Regexp(t, `^neardup: 1234 documents read \(\d+/s\)`, line)
	assert.Contains(t, line, "stage lsh")
	assert.NotContains(t, out.String(), "\r", "not a terminal: whole lines, no carriage returns")
}

// TestProgressLineGivesRateAndTimeLeft: documents per second over the elapsed time and,
// with the input size known, the reading stage's share read and time left at that pace.
func TestProgressLineGivesRateAndTimeLeft(t *testing.T) {
	line := progressLine(500, 400, 250, 1000, "shingle+minhash", 10*time.Second)
	assert.Contains(t, line, "500 documents read (50/s)")
	assert.Contains(t, line, "reading 25%, about 30s left")
	assert.Contains(t, progressLine(900, 900, 1000, 1000, "lsh", 40*time.Second), "reading done")
	assert.NotContains(t, progressLine(900, 900, 1000, 0, "lsh", 40*time.Second), "reading", "no input size, no estimate")
}

// On an engine the counts of this process stay at zero: the line must not show them.
func TestProgressLineOnAnEngineShowsNoCounts(t *testing.T) {
	elem.Progress.Read.Store(0)
	var out lockedBuffer
	stop := make(chan struct{})
	done := reportProgress(&out, 5*time.Millisecond, 0, "flink", stop)
	assert.Eventually(t, func() bool { return strings.Contains(out.String(), "\n") }, time.Second, 5*time.Millisecond)
	close(stop)
	<-done
	line := strings.SplitN(out.String(), "\n", 2)[0]
	assert.Contains(t, line, "running on flink")
	assert.Contains(t, line, "report no counts until the job ends")
	assert.NotContains(t, line, "documents read")
}
