// Package portable submits a pipeline to Flink's or Spark's portable job server as the
// Beam Go SDK's universal runner does, with these changes: the worker binary is staged
// under a plain name; the job carries a pipeline option that runner cannot set (Spark's
// environment_cache_millis); a launcher stopped by SIGINT or
// SIGTERM cancels its job; and the job is recorded in the run's temporary directory, so
// that the next run can cancel the job of a launcher that was killed (CancelOrphan).
//
// The staged name: the universal runner stages the worker binary as a file artifact
// named by its path. Beam's job servers (up to at least 2.62) name the staged copy after
// that whole path, slashes included, so it lands in subdirectories of the job's staging
// directory, which the job server's cleanup (it deletes the files directly in it) cannot
// remove: every job would leave its worker binary behind. Staged as "neardup-worker-"
// followed by its sha256, the copy is removed when the job ends, and the name tells
// neardup's boot program (internal/sdkboot) the binary's hash, which those job servers
// drop from the artifact: a worker whose own binary has that hash runs itself instead of
// fetching the copy.
//
// Beam's Spark runner releases a job's SDK worker environment when the task using it
// ends, unless environment_cache_millis is positive; then it keeps the environment that
// long after its last use. Without the option every stage of every job starts its own SDK
// worker processes (each a copy of the worker binary, fetched from the job server), which
// for a pipeline of many stages, such as the rounds of --cc distributed, costs more than
// the work. The Go SDK sends only its own options (under go_options) and a fixed few
// others, so this package sets the option in the job's PrepareJobRequest itself.
//
// Beam's Spark runner, and its Flink runner submitting to a cluster, ship the files of
// the files_to_stage option to every executor or TaskManager of every job, and when the
// option is unset, the job server's whole classpath: hundreds of jars, fetched and opened
// by each executor of each job. neardup's workers are Go binaries and need none of them;
// the executors need Beam's classes, which a cluster set up as docs/engines.md says
// already holds on its classpath. --files_to_stage passes the option through.
package portable

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/artifact"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/metricsx"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal/runnerlib"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/grpcx"
	"google.golang.org/grpc"

	"github.com/neardup/neardup/internal/interrupt"
	"github.com/neardup/neardup/internal/sdkboot"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// EnvironmentCacheMillis is the --environment_cache_millis flag, named as Beam's
// PortablePipelineOptions name it for the other SDKs.
var EnvironmentCacheMillis = flag.Int("environment_cache_millis", 10000,
	"Spark: how long (ms) an SDK worker environment is kept after its last use, so that later stages reuse it; 0 starts new workers for every task")

// environmentCacheOption is the key Beam's Java runners read the option from.
const environmentCacheOption = "beam:option:environment_cache_millis:v1"

// FilesToStage is the --files_to_stage flag, Beam's FileStagingOptions option of that name.
var FilesToStage = flag.String("files_to_stage", "",
	"Spark: comma-separated files, paths on the job server's machine, that the job ships to every executor; unset, Beam ships the job server's whole classpath with every job (docs/engines.md: an empty jar). Beam's Flink job server ignores it")

const filesToStageOption = "beam:option:files_to_stage:v1"

// jobOptions returns the pipeline options Execute adds to a job for runner.
func jobOptions(runner string) (map[string]*structpb.Value, error) {
	if *EnvironmentCacheMillis < 0 {
		return nil, fmt.Errorf("--environment_cache_millis=%d: want 0 or more milliseconds", *EnvironmentCacheMillis)
	}
	options := map[string]*structpb.Value{}
	if isSpark(runner) {
		options[environmentCacheOption] = structpb.NewNumberValue(float64(*EnvironmentCacheMillis))
	}
	if *FilesToStage != "" {
		var files []*structpb.Value
		for _, f := range strings.Split(*FilesToStage, ",") {
			if f = strings.TrimSpace(f); f == "" {
				return nil, fmt.Errorf("--files_to_stage=%q: an empty path in the list", *FilesToStage)
			}
			files = append(files, structpb.NewStringValue(f))
		}
		options[filesToStageOption] = structpb.NewListValue(&structpb.ListValue{Values: files})
	}
	return options, nil
}

// Serves reports whether Execute submits jobs for runner: Flink's and Spark's names, and
// only when their workers are not the launching process (LOOPBACK), which stages nothing.
func Serves(runner string) bool {
	return (isSpark(runner) || runner == "flink" || runner == "FlinkRunner") && !jobopts.IsLoopback()
}

func isSpark(runner string) bool { return runner == "spark" || runner == "SparkRunner" }

// Execute runs p on the job server of --endpoint for runner as the universal runner does
// (the worker binary is --worker_binary, or the running binary when it can serve as
// one), staged under sdkboot.StagedWorkerPrefix and its hash, with the runner's options
// set, and waits for the job unless --async is set. Once the job is submitted it is
// recorded in tempDir (the run's temporary directory, "" for none) as RecordFile.
func Execute(ctx context.Context, p *beam.Pipeline, runner, tempDir string) (beam.PipelineResult, error) {
	options, err := jobOptions(runner)
	if err != nil {
		return nil, err
	}
	endpoint, err := jobopts.GetEndpoint()
	if err != nil {
		return nil, err
	}
	edges, _, err := p.Build()
	if err != nil {
		return nil, err
	}
	env, err := graphx.CreateEnvironment(ctx, jobopts.GetEnvironmentUrn(ctx), jobopts.GetEnvironmentConfig)
	if err != nil {
		return nil, fmt.Errorf("generating model pipeline: %w", err)
	}
	pipeline, err := graphx.Marshal(edges, &graphx.Options{Environment: env, PipelineResourceHints: jobopts.GetPipelineResourceHints()})
	if err != nil {
		return nil, fmt.Errorf("generating model pipeline: %w", err)
	}
	worker := *jobopts.WorkerBinary
	if worker == "" {
		self, ok := runnerlib.IsWorkerCompatibleBinary()
		if !ok {
			return nil, errors.New("--worker_binary is required: the running binary cannot serve as the SDK workers' binary (they need a linux/amd64 neardup)")
		}
		worker = self
	}
	if err := runnerlib.UpdateGoEnvironmentWorker(worker, pipeline); err != nil {
		return nil, err
	}
	if err := stageByHash(pipeline); err != nil {
		return nil, err
	}

	cc, err := grpcx.Dial(ctx, endpoint, 2*time.Minute)
	if err != nil {
		return nil, fmt.Errorf("connecting to job service %s: %w", endpoint, err)
	}
	defer cc.Close()
	client := withOptions{jobpb.NewJobServiceClient(cc), options}
	opt := &runnerlib.JobOptions{
		Name:         jobopts.GetJobName(),
		Experiments:  jobopts.GetExperiments(),
		Worker:       worker,
		RetainDocker: *jobopts.RetainDockerContainers,
		Parallelism:  *jobopts.Parallelism,
	}
	id, artifacts, token, err := runnerlib.Prepare(ctx, client, pipeline, opt)
	if err != nil {
		return nil, err
	}
	retrieval, err := runnerlib.Stage(ctx, id, artifacts, worker, token)
	if err != nil {
		return nil, err
	}
	jobID, err := runnerlib.Submit(ctx, client, id, retrieval)
	if err != nil {
		return nil, err
	}
	if err := writeRecord(ctx, tempDir, jobRecord{endpoint, jobID}); err != nil {
		return nil, errors.Join(fmt.Errorf("job %s: %w", jobID, err), errors.New(cancel(client, jobID)))
	}
	res := &result{jobID: jobID}
	if *jobopts.Async {
		return res, nil
	}
	// Stopped by a signal, the launcher cancels the job: no one would commit its outputs.
	unregister := interrupt.Register(func() string { return cancel(client, jobID) })
	err = runnerlib.WaitForCompletion(ctx, client, jobID)
	unregister()
	m, merr := client.GetJobMetrics(ctx, &jobpb.GetJobMetricsRequest{JobId: jobID})
	if merr != nil {
		return res, errors.Join(err, fmt.Errorf("job %s: metrics: %w", jobID, merr))
	}
	res.metrics = metricsx.FromMonitoringInfos(pipeline, m.GetMetrics().GetAttempted(), m.GetMetrics().GetCommitted())
	return res, err
}

// cancel asks the job service to cancel job id and says what came of it.
func cancel(client jobpb.JobServiceClient, id string) string {
	ctx, done := context.WithTimeout(context.Background(), 10*time.Second)
	defer done()
	res, err := client.Cancel(ctx, &jobpb.CancelJobRequest{JobId: id})
	if err != nil {
		return fmt.Sprintf("could not cancel job %s on the engine: %v", id, err)
	}
	return fmt.Sprintf("cancelled job %s on the engine (%s)", id, res.GetState())
}

// stageByHash gives the Go worker binary of p's environments (a file artifact with its
// sha256) the staging role named sdkboot.StagedWorkerPrefix and the hash, so that the
// job server stages it under that name. The staging client reads the file by its type
// payload's path, which is left as it is.
func stageByHash(p *pipepb.Pipeline) error {
	found := false
	for _, env := range p.GetComponents().GetEnvironments() {
		for _, dep := range env.GetDependencies() {
			if dep.GetRoleUrn() != artifact.URNGoWorkerBinaryRole {
				continue
			}
			var file pipepb.ArtifactFilePayload
			if err := proto.Unmarshal(dep.GetTypePayload(), &file); err != nil || file.GetSha256() == "" {
				return fmt.Errorf("the worker binary's artifact carries no sha256 (%v)", err)
			}
			name := sdkboot.StagedWorkerPrefix + file.GetSha256()
			role, err := proto.Marshal(&pipepb.ArtifactStagingToRolePayload{StagedName: name})
			if err != nil {
				return err
			}
			dep.RoleUrn, dep.RolePayload = artifact.URNStagingTo, role
			found = true
		}
	}
	if !found {
		return errors.New("the pipeline's environments stage no Go worker binary")
	}
	return nil
}

// withOptions is a job service client whose Prepare requests carry more pipeline
// options.
type withOptions struct {
	jobpb.JobServiceClient
	options map[string]*structpb.Value
}

func (c withOptions) Prepare(ctx context.Context, req *jobpb.PrepareJobRequest, opts ...grpc.CallOption) (*jobpb.PrepareJobResponse, error) {
	if req.PipelineOptions == nil {
		req.PipelineOptions = &structpb.Struct{}
	}
	if req.PipelineOptions.Fields == nil {
		req.PipelineOptions.Fields = map[string]*structpb.Value{}
	}
	for k, v := range c.options {
		req.PipelineOptions.Fields[k] = v
	}
	return c.JobServiceClient.Prepare(ctx, req, opts...)
}

type result struct {
	jobID   string
	metrics *metrics.Results
}

func (r *result) JobID() string { return r.jobID }

func (r *result) Metrics() metrics.Results {
	if r.metrics == nil {
		return metrics.Results{}
	}
	return *r.metrics
}
