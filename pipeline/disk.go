package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/neardup/neardup/internal/spilldir"
	"github.com/neardup/neardup/io/files"
	"github.com/neardup/neardup/io/source"
)

// Disk as a resource: before the pipeline starts, the run estimates the bytes it will
// write to the spill directory and to the output's temporary directory, and refuses to
// start when a file system cannot hold them, instead of failing hours in with ENOSPC.

// The estimate's terms. A document spills one band entry per band (a 24-byte key and
// hashes, its id and framing) plus its share of verification's re-read sets, counted
// in the framing: 100k generated documents spilled 827 bytes each at 15 bands. Those
// are released as they are read (spill.Release), before the outputs are written; a
// document's location and set key stay spilled until the end. The temporary outputs
// rewrite every record once.
const (
	spillEntryBytes = 24 + 16 // per band and document, besides the id
	heldEntryBytes  = 24      // a document's location and set key, besides its id twice
	meanIDBytes     = 16      // an id's bytes, assumed: the sample counts lines, not fields
	// A Parquet input's text is assumed to be this many times its size, and a compressed
	// input's when its first file's sample cannot be decoded; otherwise the sample's
	// ratio applies to every compressed input.
	expansion = 4
	// Compressed outputs are assumed to shrink the text this many times when no
	// compressed input measured it: text compresses at least this well at the default
	// levels of gzip and zstd.
	outputExpansion = 2
	// The stored bytes of the first compressed input that measure its ratio.
	expansionSample = 8 << 20
	// The share of the estimate kept free besides it: file systems slow down and other
	// processes write too when a disk is nearly full.
	diskMargin = 1.1
)

// diskEstimateScale multiplies the estimate; a test raises it to make a real corpus need
// more than a real disk has.
var diskEstimateScale = 1.0

// inputSize is what the estimate and the progress line know of the inputs: their bytes
// as stored (total), as read (text, assuming expansion for compressed and Parquet
// files), and whether every input is read as the lines it stores (plain: uncompressed
// JSONL or text), which the progress line's bytes read count.
type inputSize struct {
	total, text int64
	plain       bool
	meanRecord  float64 // bytes per record of a sample of the first input; 0 if none
	compressed  float64 // text per stored byte of the first compressed input; 0 if none
}

// measureInputs measures the plan's inputs once: --cc auto and the disk check both ask.
func (pl *plan) measureInputs(ctx context.Context) (inputSize, error) {
	if pl.sized == nil {
		sz, err := measureInputs(ctx, pl.inputs, string(pl.format))
		if err != nil {
			return sz, err
		}
		pl.sized = &sz
	}
	return *pl.sized, nil
}

func measureInputs(ctx context.Context, inputs []string, format string) (inputSize, error) {
	sz := inputSize{plain: true}
	for _, f := range inputs {
		n, err := source.Size(ctx, f)
		if err != nil {
			return sz, err
		}
		sz.total += n
		ff, _ := source.FileFormat(f, format)
		switch {
		case ff == source.FormatParquet:
			sz.plain = false
			n *= expansion
		case files.Compression(f) != "":
			sz.plain = false
			if sz.compressed == 0 {
				sz.compressed = files.Expansion(ctx, f, expansionSample)
				if sz.compressed < 1 {
					sz.compressed = expansion
				}
			}
			n = int64(float64(n) * sz.compressed)
		}
		sz.text += n
	}
	if len(inputs) > 0 {
		if ff, _ := source.FileFormat(inputs[0], format); ff != source.FormatParquet {
			sz.meanRecord = sampleLineBytes(ctx, inputs[0])
		}
	}
	return sz, nil
}

// sampleLineBytes is the mean length of the lines in the first MiB of file (read
// through its decompression), or 0 when it has no whole line there.
func sampleLineBytes(ctx context.Context, file string) float64 {
	rc, err := files.Open(ctx, file)
	if err != nil {
		return 0
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 1<<20))
	lines := bytes.Count(b, []byte{'\n'})
	if lines == 0 {
		return 0
	}
	return float64(bytes.LastIndexByte(b, '\n')+1) / float64(lines)
}

// docs estimates the documents of the inputs: their text over the sample's mean record,
// or a record per KiB without a sample.
func (sz inputSize) docs() float64 {
	if sz.meanRecord > 0 {
		return float64(sz.text) / sz.meanRecord
	}
	return float64(sz.text) / 1024
}

// diskNeed is the space one directory must have free, while the stages run (during)
// or once the outputs are written (atEnd), or both.
type diskNeed struct {
	dir           string
	bytes         int64
	what          string
	during, atEnd bool
}

// diskNeeds estimates what the run writes where: spill files in the spill directory
// (when set) and the outputs in the temporary directory (when local).
func (pl *plan) diskNeeds(sz inputSize) []diskNeed {
	tempDir := pl.tmp()
	docs := sz.docs()
	var needs []diskNeed
	if pl.spillDir != "" {
		bands := pl.bands
		if pl.containment != nil {
			bands = 0
			for _, g := range pl.containment.Groups {
				bands += g.Bands
			}
		}
		spill := docs * float64(bands) * (spillEntryBytes + meanIDBytes)
		held := docs * (heldEntryBytes + 2*meanIDBytes)
		needs = append(needs,
			diskNeed{pl.spillDir, int64(spill * diskEstimateScale * diskMargin), "spill files", true, false},
			diskNeed{pl.spillDir, int64(held * diskEstimateScale * diskMargin), "spilled locations", true, true})
	}
	if files.IsLocal(tempDir) {
		out := float64(sz.text)
		if pl.cfg.Compress != CompressNone {
			out /= max(outputExpansion, sz.compressed)
		}
		needs = append(needs, diskNeed{tempDir, int64(out * diskEstimateScale * diskMargin), "outputs", false, true})
	}
	return needs
}

// checkDisk refuses the run when a file system cannot hold what it is estimated to
// write there: needs on one file system add up, within each phase (during, atEnd).
func checkDisk(needs []diskNeed) error {
	type fsNeed struct {
		dirs                 []diskNeed
		during, atEnd, bytes int64
	}
	var order []uint64
	byDev := map[uint64]*fsNeed{}
	for _, n := range needs {
		dir := existingParent(n.dir)
		var st syscall.Stat_t
		if err := syscall.Stat(dir, &st); err != nil {
			continue
		}
		f := byDev[st.Dev]
		if f == nil {
			f = &fsNeed{}
			byDev[st.Dev] = f
			order = append(order, st.Dev)
		}
		n.dir = dir
		f.dirs = append(f.dirs, n)
		if n.during {
			f.during += n.bytes
		}
		if n.atEnd {
			f.atEnd += n.bytes
		}
		f.bytes = max(f.during, f.atEnd)
	}
	for _, dev := range order {
		f := byDev[dev]
		free, err := spilldir.Free(f.dirs[0].dir)
		if err != nil || uint64(f.bytes) <= free {
			continue
		}
		msg := ""
		for i, n := range f.dirs {
			if i > 0 {
				msg += " and "
			}
			msg += fmt.Sprintf("%s in %s (about %s)", n.what, n.dir, byteSize(n.bytes))
		}
		return fmt.Errorf("not enough disk space: this run needs about %s (%d bytes) for %s, but that file system has %s free; "+
			"free space, or give --spill-dir (and --output) on a larger disk",
			byteSize(f.bytes), f.bytes, msg, byteSize(int64(free)))
	}
	return nil
}

// existingParent is dir or its nearest ancestor that exists: the directories are made
// when the run writes.
func existingParent(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return dir
		}
		dir = up
	}
}

// byteSize is n in the largest binary unit that leaves a number of at least 1.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// checkDisk checks that the disks can hold the run, once the spill directory is
// chosen, and notes the inputs' size for the progress line. Not enough space is a
// UsageError (exit 2).
func (pl *plan) checkDisk(ctx context.Context) error {
	sz, err := pl.measureInputs(ctx)
	if err != nil {
		return UsageError{fmt.Errorf("--input: %w", err)}
	}
	if err := checkDisk(pl.diskNeeds(sz)); err != nil {
		return UsageError{err}
	}
	if sz.plain {
		pl.inputBytes = sz.total
	}
	return nil
}
