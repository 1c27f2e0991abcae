package layout

import (
	"slices"
	"testing"
)

func TestPartNames(t *testing.T) {
	if got := Part("kept.jsonl", 3, 64, Zstd); got != "kept/part-00003-of-00064.jsonl.zst" {
		t.Errorf("Part = %q", got)
	}
	if got := Part("clusters.jsonl", 0, 1, None); got != "clusters/part-00000-of-00001.jsonl" {
		t.Errorf("Part = %q", got)
	}
	want := []string{"kept/part-00000-of-00002.parquet", "kept/part-00001-of-00002.parquet"}
	if got := Parts("kept.parquet", 2, None); !slices.Equal(got, want) {
		t.Errorf("Parts = %q, want %q", got, want)
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		layout          string
		embedded, local bool
		want            string
	}{
		{Auto, true, true, Single},
		{Auto, true, false, Sharded},
		{Auto, false, true, Sharded},
		{Single, false, false, Single},
		{Sharded, true, true, Sharded},
	} {
		if got := Resolve(tc.layout, tc.embedded, tc.local); got != tc.want {
			t.Errorf("Resolve(%q, %v, %v) = %q, want %q", tc.layout, tc.embedded, tc.local, got, tc.want)
		}
	}
}
