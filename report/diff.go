package report

import (
	"unicode"
	"unicode/utf8"
)

// Op is what a diff segment is to the two texts.
type Op int8

const (
	Same    Op = iota // in both texts
	Deleted           // only in the kept text
	Added             // only in the removed text
)

// Segment is a run of tokens with one Op.
type Segment struct {
	Op   Op
	Text string
}

// maxEdits bounds the word diff: texts further apart than this many token edits are shown
// without highlights (the search costs O(edits²) memory).
const maxEdits = 2000

// tokens splits a text into words and the whitespace runs between them, so that the
// concatenation of the tokens is the text.
func tokens(s string) []string {
	var out []string
	start := 0
	space := false
	for i, r := range s {
		sp := unicode.IsSpace(r)
		if i > start && sp != space {
			out = append(out, s[start:i])
			start = i
		}
		space = sp
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// WordDiff compares a and b word by word, two words being equal when their keys are (nil:
// the words themselves; the report passes the dedup's normalization, so a change of case
// the method ignores is not marked). left is a in segments (Same or Deleted), right is b
// (Same or Added); ok is false when the texts differ by more than maxEdits tokens, and
// the segments are then the whole texts, unmarked.
func WordDiff(a, b string, key func(string) string) (left, right []Segment, ok bool) {
	ta, tb := tokens(a), tokens(b)
	ka, kb := ta, tb
	if key != nil {
		ka, kb = keys(ta, key), keys(tb, key)
	}
	// A common prefix and suffix need no search: near-duplicates often share most of both.
	pre := 0
	for pre < len(ka) && pre < len(kb) && ka[pre] == kb[pre] {
		pre++
	}
	suf := 0
	for suf < len(ka)-pre && suf < len(kb)-pre && ka[len(ka)-1-suf] == kb[len(kb)-1-suf] {
		suf++
	}
	opsA, opsB, ok := myers(ka[pre:len(ka)-suf], kb[pre:len(kb)-suf])
	if !ok {
		return []Segment{{Same, a}}, []Segment{{Same, b}}, false
	}
	// The tokens are the text cut in pieces, so a segment is the slice of the text from
	// its first token to its last: appending each token to the segment instead copied
	// it again for every token (quadratic: an unchanged 10,000-character text is 3,000
	// tokens).
	mark := func(text string, toks []string, mid []Op) []Segment {
		ops := make([]Op, len(toks))
		copy(ops[pre:], mid)
		var segs []Segment
		start, end := 0, 0
		for i, t := range toks {
			op := ops[i]
			if op != Same && isSpace(t) {
				op = Same // a changed space is noise in the view
			}
			end += len(t)
			if n := len(segs); n > 0 && segs[n-1].Op == op {
				segs[n-1].Text = text[start:end]
			} else {
				start = end - len(t)
				segs = append(segs, Segment{op, t})
			}
		}
		return segs
	}
	return mark(a, ta, opsA), mark(b, tb, opsB), true
}

func keys(toks []string, key func(string) string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = key(t)
	}
	return out
}

func isSpace(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsSpace(r)
}

// myers marks each token of a and b as Same or changed along a shortest edit script
// (Myers, "An O(ND) Difference Algorithm and Its Variations", 1986), giving up beyond
// maxEdits edits.
func myers(a, b []string) (opsA, opsB []Op, ok bool) {
	n, m := len(a), len(b)
	opsA, opsB = make([]Op, n), make([]Op, m)
	for i := range opsA {
		opsA[i] = Deleted
	}
	for i := range opsB {
		opsB[i] = Added
	}
	if n == 0 || m == 0 {
		return opsA, opsB, true
	}
	maxD := min(n+m, maxEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				backtrack(trace, n, m, d, opsA, opsB)
				return opsA, opsB, true
			}
		}
	}
	return nil, nil, false
}

// backtrack walks the saved frontiers back from (n, m) and marks the diagonal moves,
// the tokens common to both, as Same. trace[d][j] is v[k] before step d for k = j-d-1.
func backtrack(trace [][]int, x, y, d int, opsA, opsB []Op) {
	for ; d > 0; d-- {
		v := trace[d]
		at := func(k int) int { return v[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			opsA[x], opsB[y] = Same, Same
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		opsA[x], opsB[y] = Same, Same
	}
}
