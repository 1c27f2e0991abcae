package gen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// lang selects a vocabulary and the way its text is laid out.
type lang uint8

const (
	latin    lang = iota // English-looking words separated by spaces
	cyrillic             // Russian-looking words separated by spaces
	cjk                  // Han "words" of 1–3 characters written without spaces
	numLangs
)

// vocab is a Zipf-distributed vocabulary. Sampling goes through Vose's alias table
// so that one word costs one 64-bit random draw: at ~200M words for a 1M-document
// corpus, rand.Zipf's per-draw logarithms would dominate the generator.
type vocab struct {
	// words by rank, most frequent first, and caps, the same with the first letter
	// upper-cased (sentence starts). All are substrings of one string, so the
	// renderer's reads stay within a compact block of memory.
	words, caps []string
	// wordsSp and capsSp are the same words followed by a space: the commonest
	// rendering step is then one append.
	wordsSp, capsSp []string
	table           []aliasEntry
}

type aliasEntry struct {
	prob  uint32 // acceptance threshold scaled to 2^32
	alias int32
}

// sample draws one word rank.
func (v *vocab) sample(r *rand.Rand) int32 {
	x := r.Uint64()
	i := int32((x >> 32) * uint64(len(v.table)) >> 32)
	if e := v.table[i]; uint32(x) >= e.prob {
		return e.alias
	}
	return i
}

// Frequent function words take the top ranks, so that the commonest shingles look
// like real text ("of the", "и в") and are shared by many documents, which is what
// makes naive all-pairs joins blow up on real corpora.
var (
	latinTop = strings.Fields(`the of and to in a is that for it as was with be by on not he this are or
		his from at which but have an they you were her she there been one all we their has would when if
		so no will more can who out said do about what up its into them than only other new some could
		time these two may then first any like now my such make over our even most after also made many`)
	cyrillicTop = strings.Fields(`и в не на я что он с как а то все она так его но да ты к у же вы за бы
		по только ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни
		быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где есть надо
		ней для мы тебя их чем была сам без будто чего раз тоже себе под будет тогда кто этот того потому`)
	cjkTop = []string{"的", "一", "是", "不", "了", "在", "人", "有", "我", "他", "这", "个", "们", "中",
		"来", "上", "大", "为", "和", "国", "地", "到", "以", "说", "时", "要", "就", "出", "会", "可",
		"也", "你", "对", "生", "能", "而", "子", "那", "得", "于", "着", "下", "自", "之", "年", "过"}

	latinOnsets = strings.Fields(`b c d f g h j k l m n p r s t v w y z br ch cl cr dr fl fr gl gr pl pr
		sc sh sk sl sp st str th tr wh qu`)
	latinVowels = strings.Fields(`a e i o u a e i o u ai ea ee ie oo ou au`)
	latinCodas  = strings.Fields(`n r s t l m nd nt rd st ck ng sh th ll ss`)

	cyrOnsets = strings.Fields(`б в г д ж з к л м н п р с т ф х ц ч ш щ бр вл гр др кр пр ст тр сл зв`)
	cyrVowels = strings.Fields(`а е и о у ы я ю а о е и`)
	cyrCodas  = strings.Fields(`н р с т л м в к й ть ст нь`)
)

// newVocab builds a vocabulary of size words for l, deterministic in r.
func newVocab(l lang, size int, zipfS float64, r *rand.Rand) *vocab {
	var top []string
	var word func() string
	switch l {
	case latin:
		top = latinTop
		word = func() string { return syllables(r, latinOnsets, latinVowels, latinCodas) }
	case cyrillic:
		top = cyrillicTop
		word = func() string { return syllables(r, cyrOnsets, cyrVowels, cyrCodas) }
	default:
		top = cjkTop
		word = func() string {
			// Mostly two-character words, as in modern Chinese.
			n := 2
			switch x := r.IntN(10); {
			case x < 2:
				n = 1
			case x >= 8:
				n = 3
			}
			var b strings.Builder
			for range n {
				b.WriteRune(rune(0x4E00 + r.IntN(0x9FA5-0x4E00+1)))
			}
			return b.String()
		}
	}
	seen := make(map[string]bool, size)
	words := make([]string, 0, size)
	for _, w := range top {
		if len(words) < size && !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	type cand struct {
		w     string
		runes int
	}
	rest := make([]cand, 0, size-len(words))
	for len(words)+len(rest) < size {
		if w := word(); !seen[w] {
			seen[w] = true
			rest = append(rest, cand{w, utf8.RuneCountInString(w)})
		}
	}
	// Shorter words are commoner (Zipf's law of abbreviation); the sort is stable
	// and the candidates come in random order, so ties stay random.
	slices.SortStableFunc(rest, func(a, b cand) int { return a.runes - b.runes })
	for _, c := range rest {
		words = append(words, c.w)
	}

	var arena strings.Builder
	for _, w := range words {
		first, n := utf8.DecodeRuneInString(w)
		arena.WriteString(w)
		arena.WriteByte(' ')
		arena.WriteRune(unicode.ToUpper(first))
		arena.WriteString(w[n:])
		arena.WriteByte(' ')
	}
	all := arena.String()
	k := len(words)
	v := &vocab{words: make([]string, k), caps: make([]string, k), wordsSp: make([]string, k), capsSp: make([]string, k)}
	off := 0
	for i, w := range words {
		v.words[i], v.wordsSp[i] = all[off:off+len(w)], all[off:off+len(w)+1]
		off += len(w) + 1
		first, n := utf8.DecodeRuneInString(w)
		c := utf8.RuneLen(unicode.ToUpper(first)) + len(w) - n
		v.caps[i], v.capsSp[i] = all[off:off+c], all[off:off+c+1]
		off += c + 1
	}
	// Zipf–Mandelbrot weights 1/(rank+2.7)^s flatten the very top a little, as
	// measured on English text.
	weights := make([]float64, len(words))
	for i := range weights {
		weights[i] = 1 / math.Pow(float64(i)+2.7, zipfS)
	}
	prob, alias := aliasTable(weights)
	v.table = make([]aliasEntry, len(prob))
	for i := range prob {
		v.table[i] = aliasEntry{prob[i], alias[i]}
	}
	return v
}

// syllables makes a pronounceable word of 1–4 syllables, short ones commonest.
func syllables(r *rand.Rand, onsets, vowels, codas []string) string {
	n := 1 + r.IntN(2) + r.IntN(2) + r.IntN(2)*r.IntN(2)
	var b strings.Builder
	for i := range n {
		if i > 0 || r.IntN(5) > 0 {
			b.WriteString(onsets[r.IntN(len(onsets))])
		}
		b.WriteString(vowels[r.IntN(len(vowels))])
		if r.IntN(3) == 0 {
			b.WriteString(codas[r.IntN(len(codas))])
		}
	}
	return b.String()
}

// aliasTable builds Vose's alias method tables for the given weights.
func aliasTable(w []float64) (prob []uint32, alias []int32) {
	n := len(w)
	var sum float64
	for _, x := range w {
		sum += x
	}
	scaled := make([]float64, n)
	var small, large []int32
	for i, x := range w {
		scaled[i] = x * float64(n) / sum
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	prob = make([]uint32, n)
	alias = make([]int32, n)
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		prob[s] = uint32(scaled[s] * (1 << 32))
		alias[s] = l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// Leftovers are 1 up to rounding: always accept them.
	for _, i := range append(small, large...) {
		prob[i] = ^uint32(0)
		alias[i] = i
	}
	return prob, alias
}
