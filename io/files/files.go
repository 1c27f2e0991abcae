// Package files gives neardup's readers and writers one way to reach local and gs://
// paths: glob expansion, reading with transparent decompression, writing, renaming and
// removal, all through the Beam SDK's filesystem registry so that the same code runs on
// a laptop and on Dataflow workers.
//
// The gs:// filesystem is Beam's own (cloud.google.com/go/storage underneath). Its client
// honours STORAGE_EMULATOR_HOST: storage.NewClient switches to the emulator endpoint
// without authentication when that variable is set, so tests can run against a local GCS
// emulator with no code change here.
package files

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	// Registered for their side effect: local paths and gs:// paths.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/neardup/neardup/internal/asyncio"
)

// IsLocal reports whether path is a local path (no "scheme://" prefix).
func IsLocal(path string) bool {
	return scheme(path) == ""
}

func scheme(path string) string {
	if i := strings.Index(path, "://"); i > 0 {
		return path[:i]
	}
	return ""
}

// Join joins a directory and a file name: with the OS separator for local paths, with
// '/' for URLs (a gs:// object name is flat, filepath.Join would collapse "gs://").
func Join(dir, name string) string {
	if IsLocal(dir) {
		return filepath.Join(dir, name)
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// Expand expands glob patterns into a sorted list of distinct files. A pattern that matches
// no file is an error naming the pattern: a typo must not silently shrink the corpus.
// Local directories matched by a glob are skipped (they are not input records).
func Expand(ctx context.Context, patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		return nil, errors.New("no input patterns")
	}
	var out []string
	for _, p := range patterns {
		if strings.TrimSpace(p) == "" {
			return nil, errors.New("empty input pattern")
		}
		matches, err := list(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("expand %q: %w", p, err)
		}
		if len(matches) == 0 {
			return nil, noMatchError(ctx, p)
		}
		out = append(out, matches...)
	}
	sort.Strings(out)
	uniq := out[:0]
	for i, f := range out {
		if i == 0 || f != out[i-1] {
			uniq = append(uniq, f)
		}
	}
	return uniq, nil
}

func list(ctx context.Context, pattern string) ([]string, error) {
	fs, err := filesystem.New(ctx, pattern)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	matches, err := fs.List(ctx, pattern)
	if err != nil {
		return nil, err
	}
	if !IsLocal(pattern) {
		return matches, nil
	}
	files := matches[:0]
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, m)
		}
	}
	return files, nil
}

// maxObjectDepth bounds how many "/"-separated levels below a prefix listPrefix finds on
// s3://: neardup's own trees (outputs, temporary directories) are shallower.
const maxObjectDepth = 8

// listPrefix lists every object whose name starts with prefix, at any depth below it.
// gs:// matches "**" across "/"; Beam's s3:// List matches each "*" within one level, so
// there the levels are listed one by one.
func listPrefix(ctx context.Context, prefix string) ([]string, error) {
	if !strings.HasPrefix(prefix, "s3://") {
		return list(ctx, prefix+"**")
	}
	var all []string
	for depth := range maxObjectDepth {
		m, err := list(ctx, prefix+"*"+strings.Repeat("/*", depth))
		if err != nil {
			return nil, err
		}
		all = append(all, m...)
	}
	sort.Strings(all)
	return slices.Compact(all), nil
}

// Compression names the codec implied by a path's extension: "gzip" for .gz, "zstd" for
// .zst, "" otherwise.
func Compression(path string) string {
	switch {
	case strings.HasSuffix(path, ".gz"):
		return "gzip"
	case strings.HasSuffix(path, ".zst"):
		return "zstd"
	}
	return ""
}

// TrimCompression returns path without a .gz or .zst extension, so that the format
// extension underneath (".jsonl.gz" → ".jsonl") can be inspected.
func TrimCompression(path string) string {
	return strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".zst")
}

// Open opens path for reading, decompressing .gz and .zst transparently. Every error
// returned by the reader, including a truncated compressed stream (which would otherwise
// look like a short file), names the path.
func Open(ctx context.Context, path string) (io.ReadCloser, error) {
	raw, fs, err := openRead(ctx, path)
	if err != nil {
		return nil, err
	}
	rc := &readCloser{path: path, closers: []io.Closer{raw, fs}}
	// A large buffer keeps remote reads (gs://) from turning into many small requests.
	count := &countingReader{r: raw}
	br := bufio.NewReaderSize(count, 1<<20)
	damage := func(r io.Reader) io.Reader {
		return &offsetErrors{path: path, r: r, consumed: func() int64 { return count.consumed(br) }}
	}
	if codec := Compression(path); codec != "" {
		if err := checkMagic(br, codec); err != nil {
			rc.Close()
			return nil, fmt.Errorf("open %s: %s: %w", path, codec, err)
		}
	}
	switch Compression(path) {
	case "gzip":
		// klauspost's inflater gives the same bytes as compress/gzip's, faster; a .gz
		// input is inflated once per pass over it (read, verification's re-read, the
		// output step), so inflating is a large part of such a run's CPU.
		zr, err := kgzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("open %s: gzip: %w", path, err)
		}
		rc.readAhead(damage(zr), zr)
	case "zstd":
		if err := checkNotEmpty(br); err != nil {
			rc.Close()
			return nil, fmt.Errorf("open %s: zstd: %w", path, err)
		}
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("open %s: zstd: %w", path, err)
		}
		zc := zr.IOReadCloser()
		rc.readAhead(damage(zc), zc)
	default:
		rc.r = damage(br)
	}
	return rc, nil
}

type readCloser struct {
	path    string
	r       io.Reader
	closers []io.Closer // innermost first
	closed  bool
}

// readAhead reads decompressed, the decompressing reader dc closes, on a goroutine of
// its own ahead of the caller (asyncio.Reader): the inflating overlaps the splitting and
// parsing of the lines. Close stops that goroutine before it closes dc.
func (c *readCloser) readAhead(decompressed io.Reader, dc io.Closer) {
	ar := asyncio.NewReader(decompressed, 1<<20)
	c.r = ar
	c.closers = append([]io.Closer{ar, dc}, c.closers...)
}

func (c *readCloser) Read(p []byte) (int, error) { return c.r.Read(p) }

// offsetErrors makes a failed read of path a *ReadError at the offset of the file that
// consumed gives at that moment: on the goroutine that reads, which is the read-ahead
// one for a compressed file.
type offsetErrors struct {
	path     string
	r        io.Reader
	consumed func() int64
}

func (o *offsetErrors) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	if err != nil && err != io.EOF {
		err = &ReadError{Path: o.path, Offset: o.consumed(), Err: err}
	}
	return n, err
}

func (c *readCloser) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	for _, cl := range c.closers {
		if err := cl.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close %s: %w", c.path, err)
	}
	return nil
}

// Create opens path for writing, replacing any existing file and compressing by extension
// (.gz, .zst). Nothing is final until Close returns nil: for gs:// the object only appears
// then, so callers must check Close's error.
func Create(ctx context.Context, path string) (io.WriteCloser, error) {
	raw, fs, err := openWrite(ctx, path)
	if err != nil {
		return nil, err
	}
	wc := &writeCloser{path: path}
	// A compressor's small writes are gathered into 1 MiB ones (few requests on gs://).
	// Close order: the writing goroutine, compressor, buffer flush, the file itself,
	// then the filesystem client.
	switch Compression(path) {
	case "gzip":
		bw := bufio.NewWriterSize(raw, 1<<20)
		zw := gzip.NewWriter(bw)
		wc.w = zw
		wc.closers = append(wc.closers, zw, flusher{bw})
	case "zstd":
		bw := bufio.NewWriterSize(raw, 1<<20)
		zw, err := zstd.NewWriter(bw, zstd.WithEncoderConcurrency(1))
		if err != nil {
			raw.Close()
			fs.Close()
			return nil, fmt.Errorf("create %s: zstd: %w", path, err)
		}
		wc.w = zw
		wc.closers = append(wc.closers, zw, flusher{bw})
	default:
		wc.w = raw // the writing goroutine's own 1 MiB buffers are the only copy
	}
	// write(2) (and compression) on a goroutine of its own, overlapping the caller's work.
	aw := asyncio.NewWriter(wc.w, 1<<20)
	wc.w = aw
	wc.closers = append([]io.Closer{aw}, append(wc.closers, raw, fs)...)
	return wc, nil
}

type flusher struct{ w *bufio.Writer }

func (f flusher) Close() error { return f.w.Flush() }

type writeCloser struct {
	path    string
	w       io.Writer
	closers []io.Closer
	closed  bool
}

func (c *writeCloser) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	var pe *fs.PathError
	if err != nil && !(errors.As(err, &pe) && pe.Path == c.path) { // a local file's error names it already
		err = fmt.Errorf("write %s: %w", c.path, err)
	}
	return n, err
}

// Close closes every layer even after a failure, so the file handle and client are never
// leaked, and reports the first failure.
func (c *writeCloser) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	var first error
	for _, cl := range c.closers {
		if err := cl.Close(); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return fmt.Errorf("close %s: %w", c.path, first)
	}
	return nil
}

// Rename moves from to to, both on the same filesystem. Local files use os.Rename (atomic);
// object stores without a rename use copy then delete.
func Rename(ctx context.Context, from, to string) error {
	if scheme(from) != scheme(to) {
		return fmt.Errorf("rename %s to %s: different filesystems", from, to)
	}
	fs, err := filesystem.New(ctx, from)
	if err != nil {
		return fmt.Errorf("rename %s: %w", from, err)
	}
	defer fs.Close()
	if r, ok := fs.(filesystem.Renamer); ok {
		if err := r.Rename(ctx, from, to); err != nil {
			return fmt.Errorf("rename %s to %s: %w", from, to, err)
		}
		return nil
	}
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		return fmt.Errorf("rename %s to %s: filesystem supports neither rename nor remove", from, to)
	}
	if cp, ok := fs.(filesystem.Copier); ok {
		err = cp.Copy(ctx, from, to)
	} else {
		err = streamCopy(ctx, fs, from, to)
	}
	if err != nil {
		return fmt.Errorf("rename %s to %s: copy: %w", from, to, err)
	}
	if err := rm.Remove(ctx, from); err != nil {
		return fmt.Errorf("rename %s to %s: remove source: %w", from, to, err)
	}
	return nil
}

// Copy copies the file from to the file to on the same filesystem (server-side where
// the filesystem can), replacing to; from stays.
func Copy(ctx context.Context, from, to string) error {
	if scheme(from) != scheme(to) {
		return fmt.Errorf("copy %s to %s: different filesystems", from, to)
	}
	if IsLocal(to) {
		if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
			return fmt.Errorf("copy %s to %s: %w", from, to, err)
		}
	}
	fs, err := filesystem.New(ctx, from)
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	defer fs.Close()
	if cp, ok := fs.(filesystem.Copier); ok {
		err = cp.Copy(ctx, from, to)
	} else {
		err = streamCopy(ctx, fs, from, to)
	}
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	return nil
}

func streamCopy(ctx context.Context, fs filesystem.Interface, from, to string) error {
	r, err := fs.OpenRead(ctx, from)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := fs.OpenWrite(ctx, to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// Remove deletes one file.
func Remove(ctx context.Context, path string) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	defer fs.Close()
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		return fmt.Errorf("remove %s: filesystem does not support removal", path)
	}
	if err := rm.Remove(ctx, path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

// RemoveAll deletes dir and everything under it. A missing dir is not an error. Object
// stores have no directories, so there it deletes every object under the dir/ prefix.
func RemoveAll(ctx context.Context, dir string) error {
	if IsLocal(dir) {
		removeFiles(dir)
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove %s: %w", dir, err)
		}
		return nil
	}
	matches, err := listPrefix(ctx, Join(dir, ""))
	if err != nil {
		return fmt.Errorf("remove %s: list: %w", dir, err)
	}
	for _, m := range matches {
		if err := Remove(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile creates path (local, gs:// or s3://) and fills it through a buffered writer, whose
// first error is reported at the flush.
func WriteFile(ctx context.Context, path string, fill func(*bufio.Writer)) error {
	w, err := Create(ctx, path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fill(bw)
	if err := bw.Flush(); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

// openRead opens path's file system and the file in it for reading, as stored.
func openRead(ctx context.Context, path string) (io.ReadCloser, filesystem.Interface, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	raw, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return raw, fs, nil
}

// openWrite opens path's file system and creates the file in it.
func openWrite(ctx context.Context, path string) (io.WriteCloser, filesystem.Interface, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, nil, fmt.Errorf("create %s: %w", path, err)
	}
	raw, err := fs.OpenWrite(ctx, path)
	if err != nil {
		fs.Close()
		return nil, nil, fmt.Errorf("create %s: %w", path, err)
	}
	return raw, fs, nil
}

// WriteBytes creates path (local, gs:// or s3://) holding b as it is, uncompressed, in
// one write: for the many small files of a step, to which WriteFile's buffers and
// writing goroutine would cost more than their bytes.
func WriteBytes(ctx context.Context, path string, b []byte) error {
	w, fs, err := openWrite(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	if _, err := w.Write(b); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

// OpenRaw opens path for reading its bytes as stored: no decompression and no buffer,
// for a caller that reads many files at once through small buffers of its own.
func OpenRaw(ctx context.Context, path string) (io.ReadCloser, error) {
	raw, fs, err := openRead(ctx, path)
	if err != nil {
		return nil, err
	}
	return &readCloser{path: path, r: raw, closers: []io.Closer{raw, fs}}, nil
}

// Expansion is how many times larger path's text is than its stored bytes, measured on
// its first sample stored bytes: 1 for an uncompressed file, 0 when the sample cannot be
// read or decompresses to nothing.
func Expansion(ctx context.Context, path string, sample int64) float64 {
	codec := Compression(path)
	if codec == "" {
		return 1
	}
	raw, err := OpenRaw(ctx, path)
	if err != nil {
		return 0
	}
	defer raw.Close()
	stored, err := io.ReadAll(io.LimitReader(raw, sample))
	if err != nil || len(stored) == 0 {
		return 0
	}
	var text io.Reader
	switch codec {
	case "gzip":
		zr, err := kgzip.NewReader(bytes.NewReader(stored))
		if err != nil {
			return 0
		}
		text = zr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(stored), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return 0
		}
		defer zr.Close()
		text = zr
	}
	// The sample ends inside a block: what decoded before that is the measure.
	n, _ := io.Copy(io.Discard, text)
	return float64(n) / float64(len(stored))
}
