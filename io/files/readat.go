package files

import (
	"context"
	"fmt"
	"io"
	"os"

	"cloud.google.com/go/storage"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/gcsx"
)

// ReaderAt is a file open for reads at any offset (Parquet's footer is at its end).
type ReaderAt interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// OpenReaderAt opens an uncompressed local file or gs:// object for reads at any offset,
// without copying it: a gs:// read is one ranged GET of the bytes asked for, so a reader
// of a few row groups of a large remote Parquet file fetches just those. ok is false for
// paths it cannot read so (compressed files, other schemes): the caller copies them.
func OpenReaderAt(ctx context.Context, path string) (r ReaderAt, ok bool, err error) {
	if !CanReadAt(path) {
		return nil, false, nil
	}
	switch scheme(path) {
	case "":
		f, err := os.Open(path)
		if err != nil {
			return nil, true, fmt.Errorf("open %s: %w", path, err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, true, fmt.Errorf("open %s: %w", path, err)
		}
		return localReaderAt{f, st.Size()}, true, nil
	case "gs":
		r, err := openGCS(ctx, path)
		return r, true, err
	}
	return nil, false, nil
}

// CanReadAt reports whether OpenReaderAt opens path in place.
func CanReadAt(path string) bool {
	s := scheme(path)
	return Compression(path) == "" && (s == "" || s == "gs")
}

type localReaderAt struct {
	*os.File
	size int64
}

func (l localReaderAt) Size() int64 { return l.size }

// gcsReaderAt reads a gs:// object by ranged reads. The client is the one Beam's gs://
// filesystem builds (gcsx.NewClient), so it honours STORAGE_EMULATOR_HOST the same way.
type gcsReaderAt struct {
	ctx    context.Context
	path   string
	client *storage.Client
	obj    *storage.ObjectHandle
	size   int64
}

func openGCS(ctx context.Context, path string) (*gcsReaderAt, error) {
	bucket, object, err := gcsx.ParseObject(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	client, err := gcsx.NewClient(ctx, storage.ScopeReadOnly)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	obj := client.Bucket(bucket).Object(object)
	attrs, err := obj.Attrs(ctx)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// Pin the generation: a range read must not mix two versions of an object replaced
	// while it is read.
	return &gcsReaderAt{ctx: ctx, path: path, client: client, obj: obj.Generation(attrs.Generation), size: attrs.Size}, nil
}

func (g *gcsReaderAt) Size() int64 { return g.size }

func (g *gcsReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= g.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), g.size-off)
	rr, err := g.obj.NewRangeReader(g.ctx, off, n)
	if err != nil {
		return 0, &ReadError{Path: g.path, Offset: off, Err: err}
	}
	defer rr.Close()
	got, err := io.ReadFull(rr, p[:n])
	if err != nil {
		return got, &ReadError{Path: g.path, Offset: off + int64(got), Err: err}
	}
	if n < int64(len(p)) {
		return got, io.EOF
	}
	return got, nil
}

func (g *gcsReaderAt) Close() error { return g.client.Close() }
