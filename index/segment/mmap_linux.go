package segment

import (
	"bytes"
	"os"
	"strconv"

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

// willNeed asks the kernel to read the mapping's pages b into the page cache ahead of
// their use, which the mapping's random-access advice otherwise keeps it from doing.
func willNeed(b []byte) { unix.Madvise(b, unix.MADV_WILLNEED) }

// residentFileBytes is the process's resident memory backed by files (the second and
// third fields of /proc/self/statm: resident and shared pages), -1 when unknown.
func residentFileBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return -1
	}
	shared, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil {
		return -1
	}
	return shared * int64(os.Getpagesize())
}
