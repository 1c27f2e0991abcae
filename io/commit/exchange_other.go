//go:build !linux

package commit

import "errors"

// exchange is not available here: callers fall back to renames.
func exchange(a, b string) error { return errors.New("no atomic exchange on this system") }
