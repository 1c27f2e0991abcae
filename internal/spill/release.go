package spill

// Release gives back to the file system the disk space of the records a reference
// points at, once its only reader is done with them: a run's spill would otherwise
// stay on disk until the run ends, beside the outputs written after it. The reference
// must not be read again: its records read back as zeros (empty records). It is best
// effort: where the file system cannot free part of a file, or the reference is
// malformed, the space is freed when the spill directory is removed.
func Release(ref string) {
	path, extents, err := parseRef(ref)
	if err != nil {
		return
	}
	punch(path, extents)
}
