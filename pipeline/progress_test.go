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
	elem.Progress.Read.Store(1234)
	elem.Progress.Stage.Store("lsh")
	var out lockedBuffer
	stop := make(chan struct{})
	done := reportProgress(&out, 5*time.Millisecond, "", stop)
	assert.Eventually(t, func() bool { return strings.Contains(out.String(), "\n") }, time.Second, 5*time.Millisecond)
	close(stop)
	<-done
	line := strings.SplitN(out.String(), "\n", 2)[0]
	assert.Contains(t, line, "1234 documents read")
	assert.Contains(t, line, "stage lsh")
	assert.NotContains(t, out.String(), "\r", "not a terminal: whole lines, no carriage returns")
}

// On an engine the counts of this process stay at zero: the line must not show them.
func TestProgressLineOnAnEngineShowsNoCounts(t *testing.T) {
	elem.Progress.Read.Store(0)
	var out lockedBuffer
	stop := make(chan struct{})
	done := reportProgress(&out, 5*time.Millisecond, "flink", stop)
	assert.Eventually(t, func() bool { return strings.Contains(out.String(), "\n") }, time.Second, 5*time.Millisecond)
	close(stop)
	<-done
	line := strings.SplitN(out.String(), "\n", 2)[0]
	assert.Contains(t, line, "running on flink")
	assert.Contains(t, line, "report no counts until the job ends")
	assert.NotContains(t, line, "documents read")
}
