package lsh_test

import (
	"fmt"

	"github.com/neardup/neardup/lsh"
)

// The pipeline's default banding at threshold 0.8 with 128 permutations, and
// datasketch's choice for the same: RecallParams makes a pair 0.05 above the threshold
// a candidate at least 99% of the time, where equal weights on both errors do not.
func Example() {
	const threshold, numPerm = 0.8, 128
	recall, err := lsh.RecallParams(threshold, numPerm, lsh.DefaultRecallMargin, lsh.DefaultRecallTarget)
	if err != nil {
		panic(err)
	}
	balanced, err := lsh.OptimalParams(threshold, numPerm, 0.5, 0.5)
	if err != nil {
		panic(err)
	}
	for _, p := range []struct {
		name string
		lsh.Params
	}{{"recall", recall}, {"datasketch", balanced}} {
		fmt.Printf("%-10s b=%d r=%d  P(candidate) at 0.70 %.2f, 0.80 %.2f, 0.85 %.2f\n", p.name, p.Bands, p.Rows,
			lsh.Detection(0.7, p.Bands, p.Rows), lsh.Detection(0.8, p.Bands, p.Rows), lsh.Detection(0.85, p.Bands, p.Rows))
	}
	// Output:
	// recall     b=15 r=8  P(candidate) at 0.70 0.59, 0.80 0.94, 0.85 0.99
	// datasketch b=9 r=13  P(candidate) at 0.70 0.08, 0.80 0.40, 0.85 0.69
}

// Two signatures that agree on one band's rows share that band's bucket key.
func ExampleBandKey() {
	a := []uint64{1, 2, 3, 4, 5, 6}
	b := []uint64{1, 2, 3, 9, 9, 9}
	for band := range 2 {
		fmt.Printf("band %d: same bucket %v\n", band, lsh.BandKey(a, band, 3) == lsh.BandKey(b, band, 3))
	}
	// Output:
	// band 0: same bucket true
	// band 1: same bucket false
}
