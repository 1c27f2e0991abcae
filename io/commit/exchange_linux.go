package commit

import "golang.org/x/sys/unix"

// exchange swaps the entries at a and b in one step (renameat2 RENAME_EXCHANGE), which
// works whatever their types; it fails on filesystems that do not support it.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
