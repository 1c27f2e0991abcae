// Package spill keeps a bundle's bulk records on local disk, by partition, so that only
// the files' names travel through the runner. The embedded Prism runner holds a
// shuffle's whole volume in memory several times over (the persisted bundle output, one
// joined copy as the next stage's input, the gRPC message, the SDK's read buffer and the
// decoded values); for the largest shuffle of the job that, not the data, is what limits
// the corpus one machine can take. A record written here costs its bytes on disk once,
// and the reader holds one partition at a time.
//
// Spilling is only correct when every worker sees the same local disk: the embedded
// runner and LOOPBACK workers, which run in the launching process.
package spill

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// flushBytes is how much a partition gathers in memory before it is appended to its
// file: memory is bounded by partitions × flushBytes, and a file is opened once per
// flushBytes written, never held open (a bundle may feed thousands of partitions).
const flushBytes = 256 << 10

// Writer appends length-framed records to one file per partition. Its files are named by
// a random prefix, so the writers of concurrent bundles and of a retried bundle never
// share a file: a reader is given only the files of bundles that committed.
type Writer struct {
	dir    string
	prefix string
	bufs   map[int][]byte
	paths  map[int]string
}

// NewWriter returns a writer of files in dir, which it creates when missing.
func NewWriter(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	return &Writer{dir: dir, prefix: hex.EncodeToString(b[:]), bufs: map[int][]byte{}, paths: map[int]string{}}, nil
}

// Append adds one record to partition p's file.
func (w *Writer) Append(p int, rec []byte) error {
	b := binary.AppendUvarint(w.bufs[p], uint64(len(rec)))
	b = append(b, rec...)
	w.bufs[p] = b
	if len(b) >= flushBytes {
		return w.flush(p)
	}
	return nil
}

func (w *Writer) flush(p int) error {
	b := w.bufs[p]
	if len(b) == 0 {
		return nil
	}
	path, ok := w.paths[p]
	if !ok {
		path = filepath.Join(w.dir, fmt.Sprintf("%s-%d.spill", w.prefix, p))
		w.paths[p] = path
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spill: %w", err) // an *os.PathError: it names the file
	}
	w.bufs[p] = b[:0]
	return nil
}

// Close writes what is still buffered and returns the file of each partition that got a
// record. The writer must not be used afterwards.
func (w *Writer) Close() (map[int]string, error) {
	for p := range w.bufs {
		if err := w.flush(p); err != nil {
			return nil, err
		}
	}
	w.bufs = nil
	return w.paths, nil
}

// readers hold the read buffers: a job reads one file per partition and bundle, most of
// them far smaller than a buffer, so a buffer of their own each would make the reads
// mostly allocation.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, flushBytes) }}

// Read calls fn with every record of the file at path, in the order they were appended.
// The slice passed to fn is only valid during the call.
func Read(path string, fn func(rec []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	defer f.Close()
	r := readers.Get().(*bufio.Reader)
	r.Reset(f)
	defer func() {
		r.Reset(nil) // drop the file, keep the buffer
		readers.Put(r)
	}()
	var rec []byte
	for n := 0; ; n++ {
		size, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("spill: read %s, record %d: %w", path, n+1, err)
		}
		if cap(rec) < int(size) {
			rec = make([]byte, size)
		}
		rec = rec[:size]
		if _, err := io.ReadFull(r, rec); err != nil {
			return fmt.Errorf("spill: read %s, record %d: %w (the file is shorter than its records say)", path, n+1, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}
