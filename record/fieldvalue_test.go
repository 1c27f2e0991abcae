package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFieldOf(t *testing.T) {
	for _, tc := range []struct {
		rec  string
		want FieldValue
	}{
		{`{"s": 12345678901234567891}`, FieldValue{FieldNumber, "12345678901234567891"}},
		{`{"s": -1.5e3, "t": 1}`, FieldValue{FieldNumber, "-1.5e3"}},
		{`{"s": "2024-01-02T03:04:05Z"}`, FieldValue{FieldString, "2024-01-02T03:04:05Z"}},
		{`{"s": "caf\u00e9"}`, FieldValue{FieldString, "café"}},
		{`{"s": 1, "s": "last"}`, FieldValue{FieldString, "last"}},
		{`{"s": null}`, FieldValue{}},
		{`{"s": true}`, FieldValue{}},
		{`{"s": [1]}`, FieldValue{}},
		{`{"nested": {"s": 1}}`, FieldValue{}},
		{`[1, 2]`, FieldValue{}},
	} {
		assert.Equal(t, tc.want, FieldOf([]byte(tc.rec), "s"), tc.rec)
	}
}

func TestCompareFields(t *testing.T) {
	num := func(s string) FieldValue { return FieldValue{FieldNumber, s} }
	str := func(s string) FieldValue { return FieldValue{FieldString, s} }
	for _, tc := range []struct {
		a, b FieldValue
		want int
	}{
		{num("12345678901234567891"), num("12345678901234567890"), 1},
		{num("1.5e1"), num("15"), 0},
		{num("-2"), num("0.5"), -1},
		{str("2023-05-01"), str("2021-12-31"), 1},
		{num("0"), FieldValue{}, 1},
		{FieldValue{}, str(""), -1},
		{FieldValue{}, FieldValue{}, 0},
	} {
		c, err := CompareFields(tc.a, tc.b)
		require.NoError(t, err)
		assert.Equal(t, tc.want, c, "%v vs %v", tc.a, tc.b)
	}
	_, err := CompareFields(num("1"), str("high"))
	assert.ErrorContains(t, err, `a number ("1") and a string ("high")`)
}
