package sdkboot

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestFlinkJobFromOptions(t *testing.T) {
	opts := func(master, name string) *structpb.Struct {
		s, err := structpb.NewStruct(map[string]any{"beam:option:flink_master:v1": master, "beam:option:job_name:v1": name})
		assert.NoError(t, err)
		return s
	}
	rest, name, ok := flinkJob(opts("127.0.0.1:8081", "job-1"))
	assert.True(t, ok)
	assert.Equal(t, "http://127.0.0.1:8081", rest)
	assert.Equal(t, "job-1", name)
	for _, master := range []string{"[local]", "[auto]", "", "flink-host"} {
		_, _, ok := flinkJob(opts(master, "job-1"))
		assert.False(t, ok, "flink_master %q", master)
	}
	_, _, ok = flinkJob(opts("127.0.0.1:8081", ""))
	assert.False(t, ok, "no job name")
}

// The watch ends a worker only once the JobManager, having listed its job running, lists
// it ended; failed polls and other jobs say nothing.
func TestWatchFlinkJob(t *testing.T) {
	var state atomic.Value
	state.Store("")
	jm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := state.Load().(string)
		if r.URL.Path != "/jobs/overview" || s == "down" {
			http.Error(w, "no", http.StatusServiceUnavailable)
			return
		}
		jobs := `{"jid":"a","name":"other","state":"RUNNING"}`
		if s != "" {
			jobs += fmt.Sprintf(`,{"jid":"b","name":"job-1","state":%q}`, s)
		}
		fmt.Fprintf(w, `{"jobs":[%s]}`, jobs)
	}))
	defer jm.Close()
	stop := make(chan struct{})
	defer close(stop)
	ended := watchFlinkJob(jm.URL, "job-1", 10*time.Millisecond, stop)
	for _, s := range []string{"", "down", "RUNNING", "down", "RESTARTING", "RUNNING"} {
		state.Store(s)
		select {
		case <-ended:
			t.Fatalf("ended while the job is %q", strings.ToLower(s))
		case <-time.After(100 * time.Millisecond):
		}
	}
	state.Store("FINISHED")
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("not ended after the job finished")
	}
}
