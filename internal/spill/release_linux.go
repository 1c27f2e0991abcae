package spill

import "golang.org/x/sys/unix"

// punch deallocates the extents of path, keeping its size (FALLOC_FL_PUNCH_HOLE),
// through the descriptor its readers share.
func punch(path string, extents []extent) {
	o, err := acquire(path)
	if err != nil {
		return
	}
	defer o.release()
	for _, e := range extents {
		if unix.Fallocate(int(o.f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, e.off, e.n) != nil {
			return
		}
	}
}
