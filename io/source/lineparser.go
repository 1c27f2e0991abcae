package source

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/neardup/neardup/internal/ordered"
	"github.com/neardup/neardup/io/textfile"
	"github.com/neardup/neardup/record"
)

// arenaBytes is the size of the blocks lines are copied into for the parsing pool: one
// allocation per block instead of one per line, and nothing for the collector to scan.
// A block is never reused: the records parsed from its lines share its memory (their
// texts are decoded in place), and the collector frees it with the last of them.
const arenaBytes = 256 << 10

// lineParser parses a file's lines on one goroutine per core and delivers their records
// (to doc, or to reject) in line order on the reading goroutine, which only reads and
// copies lines: parsed on the reading goroutine, JSON would keep the other cores
// waiting.
type lineParser struct {
	pool    *ordered.Pool[rawLine, parsed]
	deliver func(parsed)
	arena   []byte
	most    int64 // bytes of lines queued at most (inFlightBytes)
}

// InFlightBytes is how many bytes of records a pool of a reader queues before it waits
// for the pool to drain (ordered.Pool.AddSized): a sixteenth of the memory limit, so
// that a run of large files (a generated file can be megabytes on one line) is not held
// a pool's depth at a time.
func InFlightBytes() int64 { return max(arenaBytes, debug.SetMemoryLimit(-1)/16) }

// rawLine is a line copied out of the reader's buffer, which the next read overwrites.
type rawLine struct {
	b      []byte
	num    int64
	reason string // set for a line rejected as it was read
}

func newLineParser(file, format string, cfg Config, st *Stats, doc func(record.Doc), reject func(int64, string)) *lineParser {
	return &lineParser{
		pool: ordered.New(runtime.GOMAXPROCS(0), 64, func() func(rawLine) parsed {
			// A line's bytes in the arena are never written again: its record owns them.
			return func(l rawLine) parsed {
				if l.reason != "" {
					return parsed{num: l.num, reason: l.reason}
				}
				return parseRecord(file, format, cfg, l.b, l.num)
			}
		}),
		deliver: func(p parsed) { p.deliver(st, doc, reject) },
		most:    InFlightBytes(),
	}
}

// BytesRead counts the bytes of the JSONL and text lines this process has read
// (decompressed), for the driver's progress line.
var BytesRead atomic.Int64

// add queues physical line num; line may be reused once add returns.
func (lp *lineParser) add(line []byte, num int64) {
	BytesRead.Add(int64(len(line)))
	if len(lp.arena)+len(line) > cap(lp.arena) {
		lp.arena = make([]byte, 0, max(arenaBytes, len(line)))
	}
	start := len(lp.arena)
	lp.arena = append(lp.arena, line...)
	lp.pool.AddSized(rawLine{b: lp.arena[start:len(lp.arena):len(lp.arena)], num: num}, int64(len(line)), lp.most, lp.deliver)
}

// addLong queues the rejection of a line over the record size limit, in its place
// among the lines.
func (lp *lineParser) addLong(long *textfile.LongLineError) {
	BytesRead.Add(long.Bytes)
	lp.pool.Add(rawLine{num: long.Line, reason: LongRecordReason(long.Record, int64(long.Limit))}, lp.deliver)
}

// close delivers every queued line's record and stops the workers.
func (lp *lineParser) close() {
	lp.pool.Flush(lp.deliver)
	lp.pool.Close()
}
