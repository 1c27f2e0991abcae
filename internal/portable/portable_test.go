package portable

import (
	"context"
	"testing"

	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
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
			c := withOption{next, environmentCacheOption, 2500}
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

func TestServesSparkOnly(t *testing.T) {
	assert.True(t, Serves("spark"))
	assert.True(t, Serves("SparkRunner"))
	for _, r := range []string{"flink", "prism", "universal", "dataflow", ""} {
		assert.False(t, Serves(r), r)
	}
}

func TestExecuteRefusesANegativeCache(t *testing.T) {
	defer func(v int) { *EnvironmentCacheMillis = v }(*EnvironmentCacheMillis)
	*EnvironmentCacheMillis = -1
	_, err := Execute(context.Background(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--environment_cache_millis=-1")
}
