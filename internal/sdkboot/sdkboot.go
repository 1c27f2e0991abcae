// Package sdkboot is neardup's own boot program for Beam SDK workers: what the Go SDK's
// boot program (sdks/go/container) does for a PROCESS or docker environment, built into
// the neardup binary, so that a node needs nothing but that binary to run workers.
//
// An engine starts the boot program with --id and --provision_endpoint (and, from older
// runners, the other endpoints). Run reads the provision info, finds the staged worker
// binary among the job's artifacts and runs it as a worker with the endpoints. When the
// staged binary's sha256 is the running binary's own, it runs itself and downloads
// nothing; otherwise it fetches the staged binary, checks its hash and runs that.
//
// Unlike the SDK's boot program, Main leaves nothing behind: the pipeline options go to
// the worker on its command line, and a fetched binary is removed as soon as the worker
// runs (it keeps its file until it exits); SIGTERM, SIGINT and SIGHUP end the worker with
// the boot process (the harness does not exit on its own after its last bundle, and
// engines release workers with SIGTERM); the worker is killed if the boot process dies;
// and on a Flink cluster the worker is ended once the JobManager reports its job over,
// as a TaskManager may never release it.
package sdkboot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/container/tools"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/artifact"
	fnpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/fnexecution_v1"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/grpcx"
	"google.golang.org/protobuf/proto"
)

// StagedWorkerPrefix starts the name neardup's launcher stages the worker binary under
// (internal/portable); the binary's sha256 in hex follows. The name carries the hash
// because Beam's Java job servers drop it from the staged artifact's type payload.
const StagedWorkerPrefix = "neardup-worker-"

// Invoked reports whether args (without the program name) are a boot program's: the
// container contract's --provision_endpoint, without the worker's --worker.
func Invoked(args []string) bool {
	boot := false
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
		case name == "worker":
			return false
		case name == "provision_endpoint":
			boot = true
		}
	}
	return boot
}

// endpoints are the boot program's flags, as the container contract names them.
type endpoints struct {
	id, provision, logging, artifact, control, semiPersist string
}

func parse(args []string) (endpoints, error) {
	var e endpoints
	fs := flag.NewFlagSet("neardup (SDK worker boot)", flag.ContinueOnError)
	fs.StringVar(&e.id, "id", "", "worker id (required)")
	fs.StringVar(&e.provision, "provision_endpoint", "", "provision endpoint (required)")
	fs.StringVar(&e.logging, "logging_endpoint", "", "logging endpoint (else from the provision info)")
	fs.StringVar(&e.artifact, "artifact_endpoint", "", "artifact endpoint (else from the provision info)")
	fs.StringVar(&e.control, "control_endpoint", "", "control endpoint (else from the provision info)")
	fs.StringVar(&e.semiPersist, "semi_persist_dir", "", "passed on to the worker")
	if err := fs.Parse(args); err != nil {
		return e, err
	}
	// Prism passes --id='ID', quotes and all, as if to a shell, and registers ID.
	if len(e.id) >= 2 && strings.HasPrefix(e.id, "'") && strings.HasSuffix(e.id, "'") {
		e.id = e.id[1 : len(e.id)-1]
	}
	if e.id == "" || e.provision == "" {
		return e, errors.New("--id and --provision_endpoint are required")
	}
	return e, nil
}

// Main runs the boot program with args (without the program name) and returns the
// process's exit status: the worker's, or 128 plus the signal that ended it.
func Main(args []string, stderr io.Writer) int {
	e, err := parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "neardup: SDK worker boot: %v\n", err)
		return 2
	}
	code, err := run(e, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "neardup: SDK worker %s: %v\n", e.id, err)
	}
	return code
}

func run(e endpoints, stderr io.Writer) (int, error) {
	ctx := grpcx.WriteWorkerID(context.Background(), e.id)
	info, err := tools.ProvisionInfo(ctx, e.provision)
	if err != nil {
		return 1, fmt.Errorf("provision info from %s: %w", e.provision, err)
	}
	for _, ep := range []struct {
		flag *string
		got  string
		name string
	}{{&e.logging, info.GetLoggingEndpoint().GetUrl(), "logging"},
		{&e.artifact, info.GetArtifactEndpoint().GetUrl(), "artifact"},
		{&e.control, info.GetControlEndpoint().GetUrl(), "control"}} {
		if ep.got != "" {
			*ep.flag = ep.got
		}
		if *ep.flag == "" {
			return 1, fmt.Errorf("no %s endpoint, from the flags or the provision info", ep.name)
		}
	}
	options, err := tools.ProtoToJSON(info.GetPipelineOptions())
	if err != nil {
		return 1, fmt.Errorf("pipeline options: %w", err)
	}

	// $TMPDIR may name a directory per job that no one created; the worker's temporary
	// files go there too.
	if err := os.MkdirAll(os.TempDir(), 0o755); err != nil {
		return 1, err
	}
	prog, fetched, err := workerBinary(ctx, e.artifact, info, stderr)
	if err != nil {
		return 1, err
	}

	// The options go on the command line, not in a file, so that nothing is left to
	// remove should this process be killed.
	cmdArgs := []string{"--worker=true", "--id=" + e.id, "--logging_endpoint=" + e.logging,
		"--control_endpoint=" + e.control, "--options=" + options}
	if e.semiPersist != "" {
		cmdArgs = append(cmdArgs, "--semi_persist_dir="+e.semiPersist)
	}
	cmd := exec.Command(prog, cmdArgs...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	if u := info.GetStatusEndpoint().GetUrl(); u != "" {
		cmd.Env = append(cmd.Env, "STATUS_ENDPOINT="+u)
	}
	if caps := info.GetRunnerCapabilities(); len(caps) > 0 {
		cmd.Env = append(cmd.Env, "RUNNER_CAPABILITIES="+strings.Join(caps, " "))
	}
	// Its own process group, so that the worker and anything it starts end together;
	// Pdeathsig ends it if this process is killed without a chance to.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// A Flink TaskManager may never release a worker: Beam's Flink runner (2.62) counts
	// the tasks of a job using its workers, and a task cancelled while it waits for its
	// worker to connect (a failover) is never counted out. The worker ends with its job.
	var ended <-chan struct{}
	if rest, name, ok := flinkJob(info.GetPipelineOptions()); ok {
		stop := make(chan struct{})
		defer close(stop)
		ended = watchFlinkJob(rest, name, flinkJobPoll, stop)
	}
	return supervise(cmd, ended, func() {
		if fetched {
			// A running program keeps its file; its directory can go at once.
			_ = os.RemoveAll(filepath.Dir(prog))
		}
	})
}

// flinkJobPoll is how often a worker on a Flink cluster asks the JobManager whether its
// job still runs.
const flinkJobPoll = 5 * time.Second

// supervise starts cmd, calls started (also if the start failed) and waits for it,
// killing its process group when this process gets SIGTERM, SIGINT or SIGHUP, or when
// ended is closed (the worker's job is over; exit status 0).
func supervise(cmd *exec.Cmd, ended <-chan struct{}, started func()) (int, error) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	// Pdeathsig fires when the thread that started the child ends, not the process: the
	// thread is held until the child is waited for.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err := cmd.Start()
	started()
	if err != nil {
		return 1, fmt.Errorf("start the worker %s: %w", cmd.Path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), fmt.Errorf("worker exited: %w", err)
		}
		return 0, err
	case sig := <-sigs:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return 128 + int(sig.(syscall.Signal)), nil
	case <-ended:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return 0, errors.New("its Flink job has ended, and the TaskManager did not release the worker; ended it")
	}
}

// workerBinary returns the path of the job's worker binary: the running executable when
// the staged binary has its sha256, else the staged one fetched into a new directory
// under $TMPDIR (fetched is then true).
func workerBinary(ctx context.Context, endpoint string, info *fnpb.ProvisionInfo, stderr io.Writer) (prog string, fetched bool, err error) {
	cc, err := grpcx.Dial(ctx, endpoint, 2*time.Minute)
	if err != nil {
		return "", false, fmt.Errorf("artifact endpoint %s: %w", endpoint, err)
	}
	defer cc.Close()
	client := jobpb.NewArtifactRetrievalServiceClient(cc)
	res, err := client.ResolveArtifacts(ctx, &jobpb.ResolveArtifactsRequest{Artifacts: info.GetDependencies()})
	if err != nil {
		return "", false, fmt.Errorf("resolve the staged artifacts: %w", err)
	}
	worker, err := workerArtifact(res.GetReplacements())
	if err != nil {
		return "", false, err
	}
	want, err := artifactSHA256(worker)
	if err != nil {
		return "", false, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", false, err
	}
	if want != "" {
		if got, err := fileSHA256(self); err == nil && got == want {
			fmt.Fprintf(stderr, "neardup: SDK worker: the staged worker binary is this binary (sha256 %s); running it\n", want)
			return self, false, nil
		}
	}
	dir, err := os.MkdirTemp("", "neardup-worker-")
	if err != nil {
		return "", false, err
	}
	prog = filepath.Join(dir, "worker")
	got, err := fetch(ctx, client, worker, prog)
	if err == nil && want != "" && got != want {
		err = fmt.Errorf("its sha256 is %s, want %s", got, want)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", false, fmt.Errorf("fetch the staged worker binary: %w", err)
	}
	fmt.Fprintf(stderr, "neardup: SDK worker: the staged worker binary (sha256 %s) is not this binary; fetched it\n", got)
	return prog, true, nil
}

// workerArtifact picks the Go worker binary among the staged artifacts as the SDK's boot
// program does: the only one, the one of the worker role, or the one named "worker".
func workerArtifact(deps []*pipepb.ArtifactInformation) (*pipepb.ArtifactInformation, error) {
	switch len(deps) {
	case 0:
		return nil, errors.New("the job staged no artifacts: no worker binary")
	case 1:
		return deps[0], nil
	}
	for _, d := range deps {
		if d.GetRoleUrn() == artifact.URNGoWorkerBinaryRole {
			return d, nil
		}
	}
	for _, d := range deps {
		var role pipepb.ArtifactStagingToRolePayload
		if d.GetRoleUrn() == artifact.URNStagingTo && proto.Unmarshal(d.GetRolePayload(), &role) == nil && role.GetStagedName() == "worker" {
			return d, nil
		}
	}
	return nil, fmt.Errorf("none of the %d staged artifacts is the Go worker binary", len(deps))
}

// artifactSHA256 returns the sha256 an artifact declares, in its type payload or its
// staged name, "" if none.
func artifactSHA256(a *pipepb.ArtifactInformation) (string, error) {
	var role pipepb.ArtifactStagingToRolePayload
	if a.GetRoleUrn() == artifact.URNStagingTo && proto.Unmarshal(a.GetRolePayload(), &role) == nil {
		if h, ok := strings.CutPrefix(role.GetStagedName(), StagedWorkerPrefix); ok && len(h) == sha256.Size*2 {
			return h, nil
		}
	}
	switch a.GetTypeUrn() {
	case artifact.URNFileArtifact:
		var p pipepb.ArtifactFilePayload
		if err := proto.Unmarshal(a.GetTypePayload(), &p); err != nil {
			return "", fmt.Errorf("the worker artifact's file payload: %w", err)
		}
		return p.GetSha256(), nil
	case artifact.URNUrlArtifact:
		var p pipepb.ArtifactUrlPayload
		if err := proto.Unmarshal(a.GetTypePayload(), &p); err != nil {
			return "", fmt.Errorf("the worker artifact's url payload: %w", err)
		}
		return p.GetSha256(), nil
	}
	return "", nil
}

// fetch writes the artifact's bytes to path, executable, and returns their sha256.
func fetch(ctx context.Context, client jobpb.ArtifactRetrievalServiceClient, a *pipepb.ArtifactInformation, path string) (string, error) {
	stream, err := client.GetArtifact(ctx, &jobpb.GetArtifactRequest{Artifact: a})
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for {
		chunk, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return "", err
		}
		h.Write(chunk.GetData())
		if _, err := f.Write(chunk.GetData()); err != nil {
			f.Close()
			return "", err
		}
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
