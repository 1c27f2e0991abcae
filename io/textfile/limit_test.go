package textfile

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// item is a line as a reader hands it over: its bytes, or, over the limit, its length.
type item struct {
	s           string
	n           int64
	bytes, rec  int64 // of a long line
	isLongError bool
}

// limitCorpus has lines around the limit, with "\r\n" and '\r' at the edges, and an
// unterminated last line over it.
func limitCorpus(limit int) string {
	rng := rand.New(rand.NewPCG(5, 6))
	var sb strings.Builder
	for i := range 600 {
		n := max(limit-3+rng.IntN(7), 0)
		if i%97 == 0 {
			n = limit * (10 + rng.IntN(40))
		}
		sb.WriteString(strings.Repeat("y", n))
		switch i % 5 {
		case 0:
			sb.WriteString("\r\n")
		case 1:
			sb.WriteString("\r")
		}
		sb.WriteString("\n")
	}
	sb.WriteString(strings.Repeat("z", limit+1))
	return sb.String()
}

// wantLimited is what a limited read of text must give: each line of the unlimited
// Reader, or its length when its record is over limit.
func wantLimited(t *testing.T, text string, limit int) []item {
	var out []item
	for _, l := range readNumbered(t, NewReader(strings.NewReader(text))) {
		if rec := len(Content([]byte(l.s))); rec > limit {
			out = append(out, item{n: l.n, bytes: int64(len(l.s)), rec: int64(rec), isLongError: true})
			continue
		}
		out = append(out, item{s: l.s, n: l.n})
	}
	return out
}

func readers(text string) map[string]io.Reader {
	return map[string]io.Reader{
		"whole": strings.NewReader(text), "bytes": iotest.OneByteReader(strings.NewReader(text)),
		"halves": iotest.HalfReader(strings.NewReader(text)),
	}
}

func longItem(t *testing.T, err error, limit int) item {
	t.Helper()
	var long *LongLineError
	if !errors.As(err, &long) {
		t.Fatalf("error %v, want a *LongLineError", err)
	}
	if long.Limit != limit {
		t.Fatalf("limit %d in the error, want %d", long.Limit, limit)
	}
	return item{n: long.Line, bytes: long.Bytes, rec: long.Record, isLongError: true}
}

// TestReaderLimit reads lines at, just under and far over the limit and expects every
// line within it whole, and every other one as a LongLineError with its number and
// length, the reader going on after it.
func TestReaderLimit(t *testing.T) {
	for _, limit := range []int{1, 7, 100, 700} {
		text := limitCorpus(limit)
		want := wantLimited(t, text, limit)
		for name, r := range readers(text) {
			lr := NewReader(r).Limit(limit)
			var got []item
			for {
				line, n, err := lr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					it := longItem(t, err, limit)
					if it.n != n || len(line) < min(limit, int(it.bytes)) {
						t.Fatalf("%s limit %d: long line %d returned as %d with %d bytes of its start", name, limit, it.n, n, len(line))
					}
					got = append(got, it)
					continue
				}
				got = append(got, item{s: string(line), n: n})
			}
			if len(got) != len(want) {
				t.Fatalf("%s limit %d: %d lines, want %d", name, limit, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s limit %d: item %d is %+v, want %+v", name, limit, i, got[i], want[i])
				}
			}
		}
	}
}

// TestBlocksLimit expects Blocks to give what the limited Reader gives: the lines within
// the limit in blocks, numbered as a sequential read numbers them, and each line over it
// on its own as a LongLineError.
func TestBlocksLimit(t *testing.T) {
	for _, limit := range []int{1, 7, 100, 700} {
		text := limitCorpus(limit)
		want := wantLimited(t, text, limit)
		for _, size := range []int{1, 64, 4096} {
			for name, r := range readers(text) {
				var got []item
				bl := NewBlocks(r, size).Limit(limit)
				for {
					block, first, err := bl.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						it := longItem(t, err, limit)
						if it.n != first || block != nil {
							t.Fatalf("%s size %d limit %d: long line %d returned as %d with a block", name, size, limit, it.n, first)
						}
						got = append(got, it)
						continue
					}
					for _, l := range readNumbered(t, NewReader(bytes.NewReader(block))) {
						got = append(got, item{s: l.s, n: first + l.n - 1})
					}
					bl.Release(block)
				}
				if len(got) != len(want) {
					t.Fatalf("%s size %d limit %d: %d lines, want %d", name, size, limit, len(got), len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s size %d limit %d: item %d is %+v, want %+v", name, size, limit, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestLimitBreakInLongLine: a stream that breaks inside a long line breaks at that line.
func TestLimitBreakInLongLine(t *testing.T) {
	broken := errors.New("connection reset")
	text := "ok\n" + strings.Repeat("x", 500)
	lr := NewReader(io.MultiReader(strings.NewReader(text), iotest.ErrReader(broken))).Limit(10)
	if _, n, err := lr.Next(); err != nil || n != 1 {
		t.Fatalf("line 1: %d, %v", n, err)
	}
	if _, n, err := lr.Next(); !errors.Is(err, broken) || n != 2 {
		t.Fatalf("Next = line %d, %v; want line 2 broken", n, err)
	}
	bl := NewBlocks(io.MultiReader(strings.NewReader(text), iotest.ErrReader(broken)), 64).Limit(10)
	if block, first, err := bl.Next(); err != nil || string(block) != "ok\n" || first != 1 {
		t.Fatalf("Next = %q, %d, %v", block, first, err)
	}
	if _, n, err := bl.Next(); !errors.Is(err, broken) || n != 2 {
		t.Fatalf("Next = line %d, %v; want line 2 broken", n, err)
	}
}

// endless is a line of n bytes and its newline, made as it is read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n < 0 {
		return 0, io.EOF
	}
	k := int64(len(p))
	if k > e.n {
		k = e.n + 1
		p[k-1] = '\n'
		e.n = -1
		return int(k), nil
	}
	for i := range p {
		p[i] = 'x'
	}
	e.n -= k
	return int(k), nil
}

// TestLimitHoldsNoLongLine reads past a 256 MiB line with a 1 MiB limit and expects the
// readers to allocate a few MiB, not the line.
func TestLimitHoldsNoLongLine(t *testing.T) {
	const line, limit = 256 << 20, 1 << 20
	for name, next := range map[string]func() error{
		"Reader": func() error {
			_, _, err := NewReader(&endless{n: line}).Limit(limit).Next()
			return err
		},
		"Blocks": func() error {
			_, _, err := NewBlocks(&endless{n: line}, 1<<20).Limit(limit).Next()
			return err
		},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := next()
		runtime.ReadMemStats(&after)
		var long *LongLineError
		if !errors.As(err, &long) || long.Record != line {
			t.Fatalf("%s: %v, want the long line of %d bytes", name, err, line)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Fatalf("%s allocated %d MiB to read past the line, want at most 16", name, alloc>>20)
		}
	}
}
