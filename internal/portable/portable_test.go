package portable

import (
	"context"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/artifact"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// prepared records the Prepare request it gets.
type prepared struct {
	jobpb.JobServiceClient
	req *jobpb.PrepareJobRequest
}

func (c *prepared) Prepare(_ context.Context, req *jobpb.PrepareJobRequest, _ ...grpc.CallOption) (*jobpb.PrepareJobResponse, error) {
	c.req = req
	return &jobpb.PrepareJobResponse{}, nil
}

func TestPrepareCarriesTheOption(t *testing.T) {
	for name, opts := range map[string]*structpb.Struct{
		"beside the SDK's options": {Fields: map[string]*structpb.Value{"beam:option:app_name:v1": structpb.NewStringValue("job")}},
		"without options":          nil,
	} {
		t.Run(name, func(t *testing.T) {
			next := &prepared{}
			c := withOptions{next, map[string]*structpb.Value{environmentCacheOption: structpb.NewNumberValue(2500)}}
			_, err := c.Prepare(context.Background(), &jobpb.PrepareJobRequest{PipelineOptions: opts})
			require.NoError(t, err)
			fields := next.req.GetPipelineOptions().GetFields()
			assert.Equal(t, 2500.0, fields[environmentCacheOption].GetNumberValue())
			if opts != nil {
				assert.Equal(t, "job", fields["beam:option:app_name:v1"].GetStringValue(), "the SDK's options are kept")
			}
		})
	}
}

func TestServesFlinkAndSpark(t *testing.T) {
	for _, r := range []string{"spark", "SparkRunner", "flink", "FlinkRunner"} {
		assert.True(t, Serves(r), r)
	}
	for _, r := range []string{"prism", "universal", "dataflow", ""} {
		assert.False(t, Serves(r), r)
	}
}

func TestExecuteRefusesANegativeCache(t *testing.T) {
	defer func(v int) { *EnvironmentCacheMillis = v }(*EnvironmentCacheMillis)
	*EnvironmentCacheMillis = -1
	_, err := Execute(context.Background(), nil, "spark", "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--environment_cache_millis=-1")
}

// The worker binary is staged under a name without a path, carrying its sha256.
func TestStageByHashNamesTheWorkerByItsHash(t *testing.T) {
	file, err := proto.Marshal(&pipepb.ArtifactFilePayload{Path: "/some/dir/neardup", Sha256: "abc123"})
	require.NoError(t, err)
	dep := &pipepb.ArtifactInformation{TypeUrn: artifact.URNFileArtifact, TypePayload: file, RoleUrn: artifact.URNGoWorkerBinaryRole}
	p := &pipepb.Pipeline{Components: &pipepb.Components{Environments: map[string]*pipepb.Environment{
		"go": {Dependencies: []*pipepb.ArtifactInformation{dep}}}}}
	require.NoError(t, stageByHash(p))
	assert.Equal(t, artifact.URNStagingTo, dep.GetRoleUrn())
	var role pipepb.ArtifactStagingToRolePayload
	require.NoError(t, proto.Unmarshal(dep.GetRolePayload(), &role))
	assert.Equal(t, "neardup-worker-abc123", role.GetStagedName())
	assert.Equal(t, file, dep.GetTypePayload(), "the stager still reads the file by its path")

	require.Error(t, stageByHash(&pipepb.Pipeline{Components: &pipepb.Components{}}), "no worker binary")
}

func TestJobOptionsCarryTheFilesToStage(t *testing.T) {
	defer func(v string) { *FilesToStage = v }(*FilesToStage)
	*FilesToStage = ""
	for _, runner := range []string{"spark", "flink"} {
		opts, err := jobOptions(runner)
		require.NoError(t, err)
		assert.NotContains(t, opts, filesToStageOption, "%s: unset, Beam's default stands", runner)
	}
	assert.Contains(t, must(jobOptions("spark")), environmentCacheOption)
	assert.NotContains(t, must(jobOptions("flink")), environmentCacheOption)

	*FilesToStage = "/js/nothing.jar, /js/more.jar"
	for _, runner := range []string{"spark", "flink"} {
		opts, err := jobOptions(runner)
		require.NoError(t, err)
		var got []string
		for _, v := range opts[filesToStageOption].GetListValue().GetValues() {
			got = append(got, v.GetStringValue())
		}
		assert.Equal(t, []string{"/js/nothing.jar", "/js/more.jar"}, got, runner)
	}

	*FilesToStage = "/js/nothing.jar,,/js/more.jar"
	_, err := jobOptions("spark")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--files_to_stage")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
