package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/neardup/neardup/internal/spill"
	"github.com/neardup/neardup/io/files"
)

// Band spilling (--band-spill): the band entries are 15 or so per document, the job's
// largest shuffle by an order of magnitude, and the embedded Prism runner keeps a
// shuffle's whole volume in memory about five times over (its persisted copy, the next
// stage's joined input, the gRPC message both ways, the decoded values). Written to
// local files by partition instead (internal/spill), they cost their bytes on disk once
// and the bucketing step holds one partition at a time. That needs every worker to see
// the same disk, which is true exactly when the workers run in this process.
const (
	BandSpillAuto = "auto" // spill when the workers run in this process (the default)
	BandSpillOff  = "off"  // always through the runner's shuffle
)

// workersInProcess reports whether the SDK workers will run in this process: the
// embedded Prism runner (no --runner, or prism/direct without --endpoint), or any
// runner with --environment_type=LOOPBACK.
func workersInProcess() bool {
	env := strings.ToLower(*jobopts.EnvironmentType)
	if env == "loopback" {
		return true
	}
	switch *runners.Runner {
	case "", "prism", "direct":
		return env == "" && *jobopts.Endpoint == ""
	}
	return false
}

// chooseSpillDir sets where featurize spills band entries for a run whose temporary
// directory is tempDir, and returns a cleanup for a directory outside it.
func (c *Config) chooseSpillDir(tempDir string) (cleanup func(), err error) {
	c.spillDir = ""
	if c.BandSpill != BandSpillAuto || !workersInProcess() {
		return func() {}, nil
	}
	if files.IsLocal(tempDir) {
		c.spillDir = filepath.Join(tempDir, "spill")
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "neardup-spill-")
	if err != nil {
		return nil, err
	}
	c.spillDir = dir
	return func() { os.RemoveAll(dir) }, nil
}

// spiller sends a bundle's encoded batches to a spill file by partition when Dir is set;
// it is part of a DoFn and starts a new file in each bundle.
type spiller struct {
	Dir  string
	Kind string // what it spills, for spilledHook

	w   *spill.Writer
	err error // the first error, returned by close
}

// add appends one encoded batch to partition p.
func (s *spiller) add(p int, rec []byte) {
	if s.writer() {
		s.err = s.w.Append(p, rec)
	}
}

// extend appends what add appends to partition p's open record (spill.Writer.Extend).
func (s *spiller) extend(p int, add func([]byte) []byte) {
	if s.writer() {
		s.err = s.w.Extend(p, add)
	}
}

// writer reports whether the bundle's writer is there to use, making it on first use.
func (s *spiller) writer() bool {
	if s.err == nil && s.w == nil {
		s.w, s.err = spill.NewWriter(s.Dir)
	}
	return s.err == nil
}

// close ends the bundle's file and passes each partition's reference to its records,
// in partition order, to emit.
func (s *spiller) close(emit func(p int, ref string)) error {
	w, err := s.w, s.err
	s.w, s.err = nil, nil
	if err != nil || w == nil {
		return err
	}
	refs, err := w.Close()
	if err != nil {
		return err
	}
	for _, p := range sortedKeys(refs) {
		if spilledHook != nil {
			spilledHook(s.Kind, refs[p])
		}
		emit(p, refs[p])
	}
	return nil
}

// spilledHook, when set (by tests), is told every spill reference a bundle made.
var spilledHook func(kind, ref string)

// sendOrSpill emits batch b of partition p, or appends its encoding to p's spilled
// records when s spills.
func sendOrSpill[B any](s *spiller, p int, b B, encode func(B) []byte, emit func(int, B)) {
	if s.Dir == "" {
		emit(p, b)
		return
	}
	s.add(p, encode(b))
}

// spilledBytes is the size of the records refs point at.
func spilledBytes(refs []string) int {
	n := int64(0)
	for _, r := range refs {
		n += spill.Size(r)
	}
	return int(n)
}

// unspill passes every batch spilled at refs to fn, decoded.
func unspill[B any](refs []string, decode func([]byte) (B, error), fn func(B)) error {
	return eachSpilled(refs, func(rec []byte) error {
		b, err := decode(rec)
		if err == nil {
			fn(b)
		}
		return err
	})
}

// eachSpilled calls fn with every record spilled at refs, in order; an error names the
// file.
func eachSpilled(refs []string, fn func(rec []byte) error) error {
	for _, ref := range refs {
		err := spill.Read(ref, func(rec []byte) error {
			if err := fn(rec); err != nil {
				return fmt.Errorf("read spilled batch %s: %w", spill.File(ref), err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
