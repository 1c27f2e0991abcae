package segment

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps a local file read-only, or returns nil when it cannot.
func mapFile(path string, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	unix.Madvise(b, unix.MADV_RANDOM)
	return b
}

// unmapFile undoes mapFile.
func unmapFile(b []byte) { unix.Munmap(b) }

// dropPages lets the kernel take back the mapping's resident pages (the page cache
// keeps them): they count in the process's resident set until then.
func dropPages(b []byte) { unix.Madvise(b, unix.MADV_DONTNEED) }
