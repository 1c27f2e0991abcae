package sdkboot

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
)

// flinkJob returns the REST address of the Flink JobManager running the worker's job and
// the job's name, from the job's pipeline options: Beam's Flink job server sets
// flink_master to the address it submits to, and names the Flink job by job_name. ok is
// false for a cluster inside the job server ([local], [auto]) or without a name.
func flinkJob(opts *structpb.Struct) (rest, name string, ok bool) {
	field := func(key string) string {
		return opts.GetFields()["beam:option:"+key+":v1"].GetStringValue()
	}
	rest, name = field("flink_master"), field("job_name")
	if strings.HasPrefix(rest, "[") || rest == "" || name == "" {
		return "", "", false
	}
	if _, _, err := net.SplitHostPort(strings.TrimPrefix(strings.TrimPrefix(rest, "http://"), "https://")); err != nil {
		return "", "", false
	}
	if !strings.Contains(rest, "://") {
		rest = "http://" + rest
	}
	return rest, name, true
}

// flinkTerminal are the states of a Flink job that has ended for good.
var flinkTerminal = map[string]bool{"FINISHED": true, "FAILED": true, "CANCELED": true}

// watchFlinkJob polls the JobManager's REST API at rest every interval until stop is
// closed, and closes the channel it returns once a poll lists no job named name that
// has not ended, after an earlier poll listed one. A poll that fails says nothing: the
// worker is ended only on the JobManager's word that its job is over.
func watchFlinkJob(rest, name string, interval time.Duration, stop <-chan struct{}) <-chan struct{} {
	ended := make(chan struct{})
	go func() {
		client := &http.Client{Timeout: interval}
		// The first poll is at once: the worker starts while its job runs, and a job that
		// ends before the watch has seen it running leaves the worker to its TaskManager.
		seen := false
		for {
			if running, err := flinkJobRunning(client, rest, name); err == nil {
				if running {
					seen = true
				} else if seen {
					close(ended)
					return
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(interval):
			}
		}
	}()
	return ended
}

// flinkJobRunning reports whether the JobManager at rest lists a job named name that has
// not ended.
func flinkJobRunning(client *http.Client, rest, name string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), client.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(rest, "/")+"/jobs/overview", nil)
	if err != nil {
		return false, err
	}
	res, err := client.Do(req)
	if err != nil {
		return false, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return false, fmt.Errorf("%s: %s", req.URL, res.Status)
	}
	var body struct {
		Jobs []struct{ Name, State string } `json:"jobs"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		return false, err
	}
	for _, j := range body.Jobs {
		if j.Name == name && !flinkTerminal[j.State] {
			return true, nil
		}
	}
	return false, nil
}
