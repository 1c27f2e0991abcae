package jaccard

import "fmt"

// CheckThreshold returns an error unless t can be a similarity threshold: a number in
// (0, 1]. Zero would pair every two documents; NaN compares false with everything and
// would pair none.
func CheckThreshold(t float64) error {
	if t > 0 && t <= 1 {
		return nil
	}
	return fmt.Errorf("must be in (0, 1], got %v", t)
}
