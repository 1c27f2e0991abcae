package pipeline

import (
	"testing"

	"github.com/neardup/neardup/internal/prismtest"
)

// TestMain runs the tests on Prism.
func TestMain(m *testing.M) { prismtest.Main(m) }
