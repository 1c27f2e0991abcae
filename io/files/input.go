package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// CheckInput fails when a local path cannot serve as an input: it is not a regular file
// (a named pipe, a device, a socket, a terminal: a reader would block on it, and an input
// is read more than once, which a stream cannot give), or this process may not read it.
// Each error names the path and the cause. Remote paths pass: an object store holds only
// objects, and their reads fail with the store's own error.
func CheckInput(path string) error {
	if !IsLocal(path) {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, cause(err))
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: is %s, not a regular file (an input is read more than once, which only a regular file can give)", path, kind(st.Mode()))
	}
	// Non-blocking: the file may have been replaced by a FIFO since the Stat.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("%s: cannot be read: %w", path, cause(err))
	}
	return f.Close()
}

// ExpandInputs is Expand for inputs: the files the patterns name, each checked by
// CheckInput, so that every command reading inputs refuses the same files the same way.
func ExpandInputs(ctx context.Context, patterns []string) ([]string, error) {
	list, err := Expand(ctx, patterns)
	if err != nil {
		return nil, err
	}
	for _, f := range list {
		if err := CheckInput(f); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// cause is err without the *PathError's repetition of the path.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// kind names what a file that is not regular is.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	}
	return "a special file (" + m.Type().String() + ")"
}
