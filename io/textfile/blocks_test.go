package textfile

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// TestBlocksNumberLinesAsReaderDoes cuts streams of short, long and unterminated lines
// into blocks of several sizes, read in pieces of several sizes, and expects the lines
// and numbers the sequential Reader gives.
func TestBlocksNumberLinesAsReaderDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var sb strings.Builder
	for i := range 1200 {
		n := rng.IntN(40)
		if i%500 == 0 {
			n = 5000 // longer than any block
		}
		sb.WriteString(strings.Repeat("x", n))
		if i%300 == 0 {
			sb.WriteString("\r")
		}
		sb.WriteString("\n")
	}
	base := sb.String()
	for _, text := range []string{"", "\n", "one", "a\nb", base, base + "unterminated"} {
		want := readNumbered(t, NewReader(strings.NewReader(text)))
		for _, size := range []int{1, 64, 100, 4096} {
			for name, r := range map[string]io.Reader{
				"whole": strings.NewReader(text), "bytes": iotest.OneByteReader(strings.NewReader(text)),
				"halves": iotest.HalfReader(strings.NewReader(text)),
			} {
				var got []numbered
				bl := NewBlocks(r, size)
				next := int64(1)
				for {
					block, first, err := bl.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if first != next {
						t.Fatalf("%s size %d: block starts at line %d, want %d", name, size, first, next)
					}
					lr := NewReader(bytes.NewReader(block))
					for {
						line, n, err := lr.Next()
						if err == io.EOF {
							break
						}
						got = append(got, numbered{string(line), first + n - 1})
						next = first + n
					}
					bl.Release(block)
				}
				if len(got) != len(want) {
					t.Fatalf("%s size %d: %d lines, want %d", name, size, len(got), len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s size %d: line %d is %q (%d), want %q (%d)", name, size, i, got[i].s, got[i].n, want[i].s, want[i].n)
					}
				}
			}
		}
	}
}

type numbered struct {
	s string
	n int64
}

func readNumbered(t *testing.T, r *Reader) []numbered {
	var out []numbered
	for {
		line, n, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, numbered{string(line), n})
	}
}

// TestBlocksStopAtABrokenStream gives the whole lines before a failure, then the
// failure with the number of the line it broke.
func TestBlocksStopAtABrokenStream(t *testing.T) {
	broken := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("a\nb\npart"), iotest.ErrReader(broken))
	bl := NewBlocks(r, 1<<10)
	block, first, err := bl.Next()
	if err != nil || string(block) != "a\nb\n" || first != 1 {
		t.Fatalf("Next = %q, %d, %v; want the two whole lines from line 1", block, first, err)
	}
	if _, n, err := bl.Next(); !errors.Is(err, broken) || n != 3 {
		t.Fatalf("Next = line %d, %v; want line 3, %v", n, err, broken)
	}
	if _, _, err := bl.Next(); !errors.Is(err, broken) {
		t.Fatalf("Next after the failure = %v, want it again", err)
	}
}
