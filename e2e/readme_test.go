package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeQuickStart runs README.md's two quick-start commands as written: the first
// (go run ./cmd/neardup …) with the built binary in a directory holding the repository's
// testdata, so that its relative paths mean what they mean after cloning; the second must
// be the test command .ci/run runs. The outcome checked is the one README states.
func TestReadmeQuickStart(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	require.GreaterOrEqual(t, len(blocks), 2, "README.md: the quick start's two sh blocks")

	run := strings.TrimSpace(blocks[0][1])
	const goRun = "go run ./cmd/neardup "
	require.True(t, strings.HasPrefix(run, goRun), "README's first command %q", run)
	args := strings.Fields(strings.TrimPrefix(run, goRun))

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "testdata"), 0o755))
	seed, err := os.ReadFile(filepath.Join(root, "testdata", "seed.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "testdata", "seed.jsonl"), seed, 0o644))

	cmd := exec.Command(filepath.Join(binaries(t), "neardup"), args...)
	cmd.Dir = dir
	cmd.Env = neardupEnv(t.TempDir(), nil)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), "neardup %s\n%s", strings.Join(args, " "), stderr.String())

	out := readLocalOutputs(t, filepath.Join(dir, "out"))
	assertSeedResult(t, out)
	for _, name := range []string{"kept.jsonl", "removed.jsonl", "clusters.jsonl", "stats.json", "report.html"} {
		assert.Contains(t, string(readme), name, "README names %s", name)
		assert.NotEmpty(t, out[name], "%s written", name)
	}

	test := strings.TrimSpace(blocks[1][1])
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	require.NoError(t, err)
	assert.Contains(t, string(ci), test+" ", ".ci/run runs README's test command %q", test)
}
