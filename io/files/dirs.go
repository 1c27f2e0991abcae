package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
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
	objs, err := listPrefix(ctx, base)
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

// removeFiles deletes the regular files under dir (best effort: os.RemoveAll, which
// runs after it, reports what is left), several at a time. Deleting a file the page
// cache still holds is kernel work on the caller's core in proportion to its size, and
// a run's temporary directory holds its output parts and spill files, and, after a
// commit, the outputs it replaced.
func removeFiles(dir string) {
	var paths []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, path)
		}
		return nil
	})
	if len(paths) < 2 {
		return
	}
	next := make(chan string)
	var wg sync.WaitGroup
	for range min(len(paths), runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				os.Remove(p)
			}
		}()
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
}

// Tree lists what path names: itself when it is a file (rel is [""]), else the files
// under it as paths relative to it, sorted (nil when nothing is there). On object stores
// a "directory" is the prefix path/.
func Tree(ctx context.Context, path string) ([]string, error) {
	if IsLocal(path) {
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil
		case err != nil:
			return nil, err
		case !st.IsDir():
			return []string{""}, nil
		}
		var rel []string
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				r, _ := filepath.Rel(path, p)
				rel = append(rel, filepath.ToSlash(r))
			}
			return nil
		})
		return rel, err
	}
	exact, err := list(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", path, err)
	}
	for _, m := range exact {
		if m == path {
			return []string{""}, nil
		}
	}
	under, err := listPrefix(ctx, Join(path, ""))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", path, err)
	}
	var rel []string
	for _, m := range under {
		if r, ok := strings.CutPrefix(m, path+"/"); ok {
			rel = append(rel, r)
		}
	}
	sort.Strings(rel)
	return rel, nil
}
