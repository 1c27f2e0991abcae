package files

import (
	"fmt"
	"io"
	"os"
)

// OpenSpans opens path as a source of byte spans for CopySpan: a local, uncompressed
// file. ok is false for any other path (compressed, remote), whose bytes are not the
// stream a reader of it sees, or cannot be copied in place.
func OpenSpans(path string) (f *os.File, ok bool, err error) {
	if !IsLocal(path) || Compression(path) != "" {
		return nil, false, nil
	}
	f, err = os.Open(path)
	if err != nil {
		return nil, true, fmt.Errorf("open %s: %w", path, err)
	}
	return f, true, nil
}

// CopySpan appends the n bytes of src at offset off to w. When w is a local,
// uncompressed file from Create, the bytes are copied by the kernel (copy_file_range)
// after w's buffer is flushed: on the machines we measured that costs a fifth of
// writing the same bytes from memory (1.1 GB: 0.33 s against 1.2 to 2.0 s of system
// time), and the output step of a dedup run is almost all kept lines copied unchanged.
// Any other writer gets the bytes through a buffer.
func CopySpan(w io.Writer, src *os.File, off, n int64) error {
	if wc, ok := w.(*writeCloser); ok && wc.file != nil {
		if err := wc.buf.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", wc.path, err)
		}
		if _, err := src.Seek(off, io.SeekStart); err != nil {
			return fmt.Errorf("copy from %s: %w", src.Name(), err)
		}
		// os.File.ReadFrom takes the copy_file_range path for a LimitedReader of a file.
		m, err := wc.file.ReadFrom(&io.LimitedReader{R: src, N: n})
		if err == nil && m < n {
			err = fmt.Errorf("%s ends %d bytes early", src.Name(), n-m)
		}
		if err != nil {
			return fmt.Errorf("copy %s to %s: %w", src.Name(), wc.path, err)
		}
		return nil
	}
	m, err := io.Copy(w, io.NewSectionReader(src, off, n))
	if err == nil && m < n {
		err = fmt.Errorf("%s ends %d bytes early", src.Name(), n-m)
	}
	if err != nil {
		return fmt.Errorf("copy from %s: %w", src.Name(), err)
	}
	return nil
}
