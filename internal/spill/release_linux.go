package spill

import (
	"os"

	"golang.org/x/sys/unix"
)

// punch deallocates the extents of path, keeping its size (FALLOC_FL_PUNCH_HOLE).
func punch(path string, extents []extent) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	for _, e := range extents {
		if unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, e.off, e.n) != nil {
			return
		}
	}
}
