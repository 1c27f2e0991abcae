package sdkboot

import (
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/artifact"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

func TestInvoked(t *testing.T) {
	assert.True(t, Invoked([]string{"--id=1-1", "--provision_endpoint=localhost:1"}))
	assert.True(t, Invoked([]string{"-id", "1", "-provision_endpoint", "localhost:1"}))
	assert.False(t, Invoked([]string{"--worker=true", "--id=1", "--provision_endpoint=localhost:1"}), "the worker itself")
	assert.False(t, Invoked([]string{"dedup", "--input", "x"}))
	assert.False(t, Invoked(nil))
}

// A Java job server keeps only the path in a staged file's payload; the hash comes from
// the staged name neardup's launcher gives the binary.
func TestArtifactSHA256FromTheStagedName(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	role, err := proto.Marshal(&pipepb.ArtifactStagingToRolePayload{StagedName: StagedWorkerPrefix + hash})
	require.NoError(t, err)
	file, err := proto.Marshal(&pipepb.ArtifactFilePayload{Path: "/artifacts/x/1-go-" + StagedWorkerPrefix + hash})
	require.NoError(t, err)
	a := &pipepb.ArtifactInformation{TypeUrn: artifact.URNFileArtifact, TypePayload: file, RoleUrn: artifact.URNStagingTo, RolePayload: role}
	got, err := artifactSHA256(a)
	require.NoError(t, err)
	assert.Equal(t, hash, got)

	file, err = proto.Marshal(&pipepb.ArtifactFilePayload{Path: "/x/worker", Sha256: "cd"})
	require.NoError(t, err)
	got, err = artifactSHA256(&pipepb.ArtifactInformation{TypeUrn: artifact.URNFileArtifact, TypePayload: file})
	require.NoError(t, err)
	assert.Equal(t, "cd", got, "the type payload's hash, where there is one")
}

func TestPrismQuotedID(t *testing.T) {
	e, err := parse([]string{"--id='job-1[x]_go'", "--provision_endpoint=localhost:1"})
	require.NoError(t, err)
	assert.Equal(t, "job-1[x]_go", e.id)
	_, err = parse([]string{"--id=1"})
	assert.Error(t, err, "no provision endpoint")
}
