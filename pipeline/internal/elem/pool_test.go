package elem

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// A PartitionPool delivers in input order, reports the first failed delivery once, and
// drops what was still queued, so the next bundle starts empty.
func TestPartitionPoolOrderAndFailure(t *testing.T) {
	p := NewPartitionPool(func(x int) int { return x * x })
	defer p.Close()
	var got []int
	collect := func(y int) error { got = append(got, y); return nil }
	for x := range 100 {
		require.NoError(t, p.Add(x, collect))
	}
	require.NoError(t, p.Flush(collect))
	for x := range 100 {
		require.Equal(t, x*x, got[x])
	}

	boom := errors.New("boom")
	delivered := 0
	failing := func(y int) error {
		delivered++
		if y == 25 {
			return boom
		}
		return nil
	}
	var err error
	for x := 0; x < 50 && err == nil; x++ {
		err = p.Add(x, failing)
	}
	if err == nil {
		err = p.Flush(failing)
	}
	require.ErrorIs(t, err, boom)
	require.Equal(t, 6, delivered, "nothing is delivered after the failure")
	got = nil
	require.NoError(t, p.Flush(collect))
	require.Empty(t, got, "the queued work of the failed bundle was dropped")
}
