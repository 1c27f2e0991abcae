package prism

import (
	"os"
	"regexp"
	"testing"
)

// TestCopyIsOfTheSDKsVersion: the runner's packages here must be those of the Beam Go
// SDK release go.mod requires, whose harness and graph packages they work with.
func TestCopyIsOfTheSDKsVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/apache/beam/sdks/v2 (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod requires no github.com/apache/beam/sdks/v2")
	}
	if string(m[1]) != BeamVersion {
		t.Fatalf("go.mod requires Beam %s, the copy of Prism here is of %s: copy it again (PATCHES.md)", m[1], BeamVersion)
	}
}
