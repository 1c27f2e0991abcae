package keep

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseKeepField(t *testing.T) {
	kf, err := ParseField("field:stars:max")
	require.NoError(t, err)
	assert.Equal(t, Field{Name: "stars", Max: true}, kf)
	kf, err = ParseField("field:meta:date:min")
	require.NoError(t, err)
	assert.Equal(t, Field{Name: "meta:date"}, kf, "the name runs to the last colon")
	for _, bad := range []string{"field:", "field:stars", "field::max", "field:stars:largest"} {
		_, err := ParseField(bad)
		assert.Error(t, err, bad)
	}
}
