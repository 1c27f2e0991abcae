package portable

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/grpcx"

	"github.com/neardup/neardup/io/files"
)

// RecordFile is the file Execute writes into a run's temporary directory once the job
// is submitted: where the job runs, so that the next run into the same output can cancel
// it if the launcher was killed without cancelling it.
const RecordFile = "engine-job.json"

type jobRecord struct {
	Endpoint string `json:"endpoint"`
	JobID    string `json:"job_id"`
}

func writeRecord(ctx context.Context, dir string, r jobRecord) error {
	if dir == "" {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return files.WriteFile(ctx, files.Join(dir, RecordFile), func(w *bufio.Writer) { w.Write(b) })
}

// CancelOrphan cancels the job recorded in dir, the temporary directory of a run that is
// gone, if its job server still runs it, and says what it did ("" if dir records no job
// or the job has ended).
func CancelOrphan(ctx context.Context, dir string) string {
	f, err := files.Open(ctx, files.Join(dir, RecordFile))
	if err != nil {
		return ""
	}
	b, err := io.ReadAll(f)
	f.Close()
	var r jobRecord
	if err != nil || json.Unmarshal(b, &r) != nil || r.Endpoint == "" || r.JobID == "" {
		return ""
	}
	ctx, done := context.WithTimeout(ctx, 15*time.Second)
	defer done()
	cc, err := grpcx.Dial(ctx, r.Endpoint, 10*time.Second)
	if err != nil {
		return fmt.Sprintf("job %s of a run that was killed may still run: its job server %s did not answer (%v)", r.JobID, r.Endpoint, err)
	}
	defer cc.Close()
	client := jobpb.NewJobServiceClient(cc)
	st, err := client.GetState(ctx, &jobpb.GetJobStateRequest{JobId: r.JobID})
	if err != nil {
		return fmt.Sprintf("job %s of a run that was killed may still run on %s: %v", r.JobID, r.Endpoint, err)
	}
	switch st.GetState() {
	case jobpb.JobState_DONE, jobpb.JobState_FAILED, jobpb.JobState_CANCELLED, jobpb.JobState_DRAINED, jobpb.JobState_UPDATED:
		return ""
	}
	return "a run that was killed left its job running: " + cancel(client, r.JobID) + " at " + r.Endpoint
}
