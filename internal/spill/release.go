package spill

// Release gives back to the file system the disk space of the records the references
// point at, once their only reader is done with them: a run's spill would otherwise
// stay on disk until the run ends, beside the outputs written after it. The references
// must not be read again: their records read back as zeros (empty records). It is best
// effort: where the file system cannot free part of a file, or a reference is
// malformed, the space is freed when the spill directory is removed.
func Release(refs ...string) {
	var paths []string
	byPath := map[string][]extent{}
	for _, ref := range refs {
		path, extents, err := parseRef(ref)
		if err != nil {
			continue
		}
		if _, ok := byPath[path]; !ok {
			paths = append(paths, path)
		}
		byPath[path] = append(byPath[path], extents...)
	}
	for _, path := range paths { // one open per file
		punch(path, byPath[path])
	}
}
