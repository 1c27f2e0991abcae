package files

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Concat makes dst the concatenation of srcs, in order, removing each src once its bytes
// are in dst, so the whole needs its own size in free space, not twice it. With one src,
// dst is that file moved. Local files are joined without passing through this process:
// the first is moved into place and the others are appended by the kernel
// (copy_file_range), so the largest share of a multi-file corpus's output is never
// copied and the rest is copied once, in the page cache. Objects of one gs:// bucket are
// composed by the server. Elsewhere (s3://, across stores) they are streamed through a
// reader and a writer: S3 copies server-side only in parts of 5 MiB or more.
func Concat(ctx context.Context, dst string, srcs []string) error {
	if len(srcs) == 0 {
		w, err := Create(ctx, dst)
		if err != nil {
			return err
		}
		return w.Close()
	}
	local := IsLocal(dst)
	for _, s := range srcs {
		local = local && IsLocal(s)
	}
	if len(srcs) == 1 || local {
		if IsLocal(dst) {
			// Create makes a local file's directory; a rename needs it made.
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return fmt.Errorf("concatenate %s: %w", dst, err)
			}
		}
		if err := Rename(ctx, srcs[0], dst); err != nil {
			return err
		}
		if len(srcs) > 1 {
			return appendLocal(dst, srcs[1:])
		}
		return nil
	}
	if sameGCSBucket(append([]string{dst}, srcs...)...) {
		return composeGCS(ctx, dst, srcs)
	}
	w, err := Create(ctx, dst)
	if err != nil {
		return err
	}
	for _, s := range srcs {
		if err := copyFrom(ctx, w, s); err != nil {
			w.Close()
			return fmt.Errorf("concatenate %s: %w", dst, err)
		}
		if err := Remove(ctx, s); err != nil {
			w.Close()
			return fmt.Errorf("concatenate %s: %w", dst, err)
		}
	}
	return w.Close()
}

// appendLocal appends the local files srcs to dst, removing each once appended. dst is
// opened without O_APPEND (which copy_file_range refuses) and written from its end.
func appendLocal(dst string, srcs []string) error {
	w, err := os.OpenFile(dst, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("concatenate %s: %w", dst, err)
	}
	if _, err := w.Seek(0, io.SeekEnd); err != nil {
		w.Close()
		return fmt.Errorf("concatenate %s: %w", dst, err)
	}
	for _, s := range srcs {
		if err := appendFile(w, s); err != nil {
			w.Close()
			return fmt.Errorf("concatenate %s: %w", dst, err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("concatenate %s: %w", dst, err)
	}
	return nil
}

// appendFile copies the file src to w (io.Copy between two *os.File uses
// copy_file_range) and removes it.
func appendFile(w *os.File, src string) error {
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	r.Close()
	if err != nil {
		return fmt.Errorf("append %s: %w", src, err)
	}
	return os.Remove(src)
}

func copyFrom(ctx context.Context, w io.Writer, path string) error {
	r, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(w, r)
	return err
}
