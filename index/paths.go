package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/neardup/neardup/io/files"
)

// CheckPaths checks every shard and segment path of m as untrusted input: each must be
// a plain relative name inside the index directory dir (local, gs:// or s3://) reached
// through no symlink, so that a manifest cannot make neardup read, hash, report on or
// delete a file outside it. The error names the entry and quotes only the path the
// manifest gave, never a file's content.
func (m *Manifest) CheckPaths(dir string) error {
	for i, f := range m.Files {
		if err := CheckPath(dir, f.Path); err != nil {
			return fmt.Errorf("index %s: %s is refused: files[%d] (shard %d) path %s: %w",
				dir, ManifestName, i, f.Shard, quoteCapped(f.Path), err)
		}
	}
	for i, s := range m.Segments {
		if err := CheckPath(dir, s.Path); err != nil {
			return fmt.Errorf("index %s: %s is refused: segments[%d] path %s: %w",
				dir, ManifestName, i, quoteCapped(s.Path), err)
		}
	}
	for i, p := range m.Retired {
		if err := CheckPath(dir, p); err != nil {
			return fmt.Errorf("index %s: %s is refused: retired[%d] path %s: %w",
				dir, ManifestName, i, quoteCapped(p), err)
		}
	}
	return nil
}

// CheckPath reports why rel is not a plain relative name inside dir, or nil. Plain: '/'
// separated, non-empty segments, none "." or "..", no backslash, colon or control
// character, valid UTF-8. For a local dir no part of it that exists may be a symlink
// (noSymlinks); a path that does not exist passes here (reading it reports it missing).
func CheckPath(dir, rel string) error {
	switch {
	case rel == "":
		return errors.New("empty")
	case !utf8.ValidString(rel):
		return errors.New("not valid UTF-8")
	case strings.HasPrefix(rel, "/"):
		return errors.New("absolute; paths are relative to the index directory")
	case strings.ContainsAny(rel, `\:`):
		return errors.New(`holds '\' or ':'; paths are '/'-separated names inside the index directory`)
	}
	for _, c := range rel {
		if c < 0x20 || c == 0x7f {
			return errors.New("holds a control character")
		}
	}
	for _, seg := range strings.Split(rel, "/") {
		switch seg {
		case "":
			return errors.New("has an empty segment")
		case ".", "..":
			return fmt.Errorf("has a %q segment; paths must stay inside the index directory", seg)
		}
	}
	if files.IsLocal(dir) {
		return noSymlinks(dir, rel)
	}
	return nil // object stores have no symlinks, and the name cannot leave the prefix
}

// noSymlinks refuses a local rel any existing part of which, below dir, is a symlink.
// neardup writes no symlink into an index, so one there was put by someone else, and
// following it could read or delete files outside the index.
func noSymlinks(dir, rel string) error {
	p := dir
	parts := strings.Split(rel, "/")
	for i, seg := range parts {
		p = filepath.Join(p, seg)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cannot be checked: %v", unwrapPath(err))
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink; neardup follows no symlink inside an index", quoteCapped(strings.Join(parts[:i+1], "/")))
		}
	}
	return nil
}

// CheckDir refuses a local index directory that is itself a symlink (its last part; the
// directories above it are the user's path). Nothing there is no error here.
func CheckDir(dir string) error {
	if !files.IsLocal(dir) {
		return nil
	}
	st, err := os.Lstat(strings.TrimSuffix(dir, "/"))
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, _ := os.Readlink(strings.TrimSuffix(dir, "/"))
	return fmt.Errorf("index %s: is a symlink (to %s); neardup follows no symlink in an index: name the directory itself", dir, quoteCapped(target))
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// quoteCapped quotes s (escaping control characters) and cuts it to a readable length.
func quoteCapped(s string) string {
	const limit = 200
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q… (%d bytes)", s[:cut], len(s))
	}
	return fmt.Sprintf("%q", s)
}
