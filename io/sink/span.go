package sink

import (
	"os"

	"github.com/neardup/neardup/io/files"
)

// keptSpans writes the kept output of a re-read file, taking runs of kept lines that are
// copied unchanged as byte spans of the input (files.CopySpan) rather than as bytes read
// into memory and written back: a run is extended line by line and copied when anything
// else is written, or at the end.
type keptSpans struct {
	w      *lazyWriter
	src    *os.File // the input, when its bytes can be copied in place; else nil
	off, n int64    // the pending span
}

// copyLine adds the line at off, n bytes long, to the pending span; it reports false
// when the input cannot be copied in place, and the caller writes the line itself.
func (k *keptSpans) copyLine(off, n int64) (bool, error) {
	if k.src == nil {
		return false, nil
	}
	if k.n > 0 && k.off+k.n == off {
		k.n += n
		return true, nil
	}
	if err := k.flush(); err != nil {
		return true, err
	}
	k.off, k.n = off, n
	return true, nil
}

// Write writes p after the pending span.
func (k *keptSpans) Write(p []byte) (int, error) {
	if err := k.flush(); err != nil {
		return 0, err
	}
	return k.w.Write(p)
}

func (k *keptSpans) flush() error {
	if k.n == 0 {
		return nil
	}
	if err := k.w.open(); err != nil {
		return err
	}
	err := files.CopySpan(k.w.w, k.src, k.off, k.n)
	k.n = 0
	return err
}
