package files

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
)

// SubdirsWithPrefix lists the direct subdirectories of dir whose names start with prefix,
// as full paths, sorted. On object stores a "directory" is the common prefix of the
// objects under it.
func SubdirsWithPrefix(ctx context.Context, dir, prefix string) ([]string, error) {
	if IsLocal(dir) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		var out []string
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
				out = append(out, Join(dir, e.Name()))
			}
		}
		return out, nil
	}
	base := Join(dir, prefix)
	objs, err := list(ctx, base+"**")
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	seen := map[string]bool{}
	var out []string
	for _, o := range objs {
		name, _, ok := strings.Cut(strings.TrimPrefix(o, Join(dir, "")), "/")
		if ok && !seen[name] {
			seen[name] = true
			out = append(out, Join(dir, name))
		}
	}
	sort.Strings(out)
	return out, nil
}

// noMatchError explains a pattern that matched no file: a directory given where files
// are wanted says so and what to give instead.
func noMatchError(ctx context.Context, pattern string) error {
	isDir := false
	if IsLocal(pattern) {
		st, err := os.Stat(pattern)
		isDir = err == nil && st.IsDir()
	} else if m, err := list(ctx, strings.TrimSuffix(pattern, "/")+"/*"); err == nil && len(m) > 0 {
		isDir = true
	}
	if isDir {
		d := strings.TrimSuffix(pattern, "/")
		return fmt.Errorf("expand %q: is a directory: give %s/*.jsonl (or the pattern of its files)", pattern, d)
	}
	return fmt.Errorf("expand %q: pattern matches no files", pattern)
}
