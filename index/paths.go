package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup/io/files"
)

// CheckPaths checks every shard path of m as untrusted input: each must be a plain
// relative name inside the index directory dir (local, gs:// or s3://), so that a
// manifest cannot make neardup read, hash or report on a file outside it. The error
// names the entry and quotes only the path the manifest gave, never a file's content.
func (m *Manifest) CheckPaths(dir string) error {
	for i, f := range m.Files {
		if err := CheckPath(dir, f.Path); err != nil {
			return fmt.Errorf("index %s: %s is refused: files[%d] (shard %d) path %s: %w",
				dir, ManifestName, i, f.Shard, quoteCapped(f.Path), err)
		}
	}
	return nil
}

// CheckPath reports why rel is not a plain relative name inside dir, or nil. Plain: '/'
// separated, non-empty segments, none "." or "..", no backslash, colon or control
// character, valid UTF-8. For a local dir it also must not lead, through a symlink,
// outside dir; a path that does not exist passes here (reading it reports it missing).
func CheckPath(dir, rel string) error {
	switch {
	case rel == "":
		return errors.New("empty")
	case !utf8.ValidString(rel):
		return errors.New("not valid UTF-8")
	case strings.HasPrefix(rel, "/"):
		return errors.New("absolute; shard paths are relative to the index directory")
	case strings.ContainsAny(rel, `\:`):
		return errors.New(`holds '\' or ':'; shard paths are '/'-separated names inside the index directory`)
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
			return fmt.Errorf("has a %q segment; shard paths must stay inside the index directory", seg)
		}
	}
	if files.IsLocal(dir) {
		return checkSymlinks(dir, rel)
	}
	return nil // object stores have no symlinks, and the name cannot leave the prefix
}

// checkSymlinks refuses a local rel whose resolved location is outside dir's.
func checkSymlinks(dir, rel string) error {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil // no directory: reading the manifest or its files reports it
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot be resolved: %v", err)
	}
	if inside, err := filepath.Rel(root, real); err != nil || inside == ".." ||
		strings.HasPrefix(inside, ".."+string(filepath.Separator)) || filepath.IsAbs(inside) {
		return errors.New("leads outside the index directory through a symlink")
	}
	return nil
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
