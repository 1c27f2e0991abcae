package lsh

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/neardup/neardup/internal/repotest"
)

type lshVectors struct {
	Table []struct {
		NumPerm       int        `json:"num_perm"`
		Threshold     float64    `json:"threshold"`
		Weights       [2]float64 `json:"weights"`
		B             int        `json:"b"`
		R             int        `json:"r"`
		Constructor   string     `json:"constructor"`
		FP            float64    `json:"fp"`
		FN            float64    `json:"fn"`
		WeightedError float64    `json:"weighted_error"`
		RunnerUp      struct {
			B             int     `json:"b"`
			R             int     `json:"r"`
			WeightedError float64 `json:"weighted_error"`
		} `json:"runner_up"`
		UnusedPerms int `json:"unused_perms"`
	} `json:"table"`
	BandKeys struct {
		Examples []struct {
			Scheme  string   `json:"scheme"`
			Seed    int      `json:"seed"`
			NumPerm int      `json:"num_perm"`
			Set     string   `json:"set"`
			B       int      `json:"b"`
			R       int      `json:"r"`
			KeysHex []string `json:"band_keys_hex"`
		} `json:"examples"`
	} `json:"band_keys"`
}

func loadLSHVectors(t *testing.T) lshVectors {
	t.Helper()
	raw, err := os.ReadFile(repotest.Conformance(t, "lsh_params.json"))
	require.NoError(t, err)
	var v lshVectors
	require.NoError(t, json.Unmarshal(raw, &v))
	require.NotEmpty(t, v.Table)
	return v
}

// TestOptimalParamsDatasketch checks every (threshold, num_perm, weights) row
// recorded from datasketch 2.0: the chosen (b, r), the b < 2 refusals, the
// FP/FN areas scipy's quad computed, and the runner-up.
func TestOptimalParamsDatasketch(t *testing.T) {
	v := loadLSHVectors(t)
	const tol = 1e-13 // observed: within 1.3e-14 of quad on every row
	for _, row := range v.Table {
		name := func() string {
			b, _ := json.Marshal(map[string]any{"t": row.Threshold, "n": row.NumPerm, "w": row.Weights})
			return string(b)
		}()
		p, err := OptimalParams(row.Threshold, row.NumPerm, row.Weights[0], row.Weights[1])
		if row.Constructor == "ok" {
			require.NoError(t, err, name)
		} else {
			require.Contains(t, row.Constructor, "b < 2", name)
			require.Error(t, err, name)
			require.True(t, errors.Is(err, ErrTooFewBands), name)
		}
		require.Equal(t, row.B, p.Bands, name)
		require.Equal(t, row.R, p.Rows, name)
		require.Equal(t, row.UnusedPerms, row.NumPerm-p.Bands*p.Rows, name)
		assert.InDelta(t, row.FP, p.FalsePositive, tol, name)
		assert.InDelta(t, row.FN, p.FalseNegative, tol, name)

		best, second := search(row.Threshold, row.NumPerm, row.Weights[0], row.Weights[1])
		assert.Equal(t, p, best.Params, name)
		assert.InDelta(t, row.WeightedError, best.Error, tol, name)
		assert.Equal(t, row.RunnerUp.B, second.Bands, name)
		assert.Equal(t, row.RunnerUp.R, second.Rows, name)
		assert.InDelta(t, row.RunnerUp.WeightedError, second.Error, tol, name)
	}
}

// TestBandBytesDatasketch rebuilds datasketch's band keys (MinHashLSH._H) from
// the signatures recorded in minhash_vectors.json.
func TestBandBytesDatasketch(t *testing.T) {
	v := loadLSHVectors(t)
	raw, err := os.ReadFile(repotest.Conformance(t, "minhash_vectors.json"))
	require.NoError(t, err)
	var mv struct {
		Signatures []struct {
			Scheme     string   `json:"scheme"`
			Seed       int      `json:"seed"`
			NumPerm    int      `json:"num_perm"`
			Set        string   `json:"set"`
			Hashvalues []uint64 `json:"hashvalues"`
		} `json:"signatures"`
	}
	require.NoError(t, json.Unmarshal(raw, &mv))
	require.NotEmpty(t, v.BandKeys.Examples)
	for _, ex := range v.BandKeys.Examples {
		var sig []uint64
		for _, s := range mv.Signatures {
			if s.Scheme == ex.Scheme && s.Seed == ex.Seed && s.NumPerm == ex.NumPerm && s.Set == ex.Set {
				sig = s.Hashvalues
			}
		}
		require.Len(t, sig, ex.NumPerm, "signature for %s", ex.Scheme)
		width := 8
		if ex.Scheme == "affine32" {
			width = 4
		}
		require.Len(t, ex.KeysHex, ex.B)
		for band, want := range ex.KeysHex {
			got := BandBytes(sig, width, band, ex.R)
			assert.Equal(t, want, hex.EncodeToString(got), "%s band %d", ex.Scheme, band)
			assert.Equal(t, strings.ToLower(want), hex.EncodeToString(AppendBandBytes(nil, sig, width, band, ex.R)))
		}
		// The recorded (b, r) is datasketch's choice for threshold 0.8 at 128.
		p, err := OptimalParams(0.8, ex.NumPerm, 0.5, 0.5)
		require.NoError(t, err)
		assert.Equal(t, ex.B, p.Bands)
		assert.Equal(t, ex.R, p.Rows)
	}
}
