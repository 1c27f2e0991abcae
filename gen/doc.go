package gen

import (
	"github.com/neardup/neardup/internal/jsonstr"
	"math"
	"math/rand/v2"
	"strings"
)

// token is one word of a document with the layout that follows it. Documents are
// kept as tokens until rendered so that edits work on words, like a human editor's
// or a scraper's changes do, rather than on bytes.
type token struct {
	word  int32 // vocabulary rank
	cap   bool  // starts a sentence: written capitalized
	punct uint8 // punctuation after the word
	para  bool  // a paragraph break follows
}

const (
	pNone uint8 = iota
	pComma
	pPeriod
	pQuestion
	pExclaim
	pSemicolon
)

// punctuation per layout: Latin and Cyrillic share ASCII marks, CJK has full-width ones.
var (
	asciiPunct = [...]string{"", ",", ".", "?", "!", ";"}
	cjkPunct   = [...]string{"", "，", "。", "？", "！", "；"}
)

// baseDoc is a generated original document.
type baseDoc struct {
	lang lang
	toks []token
}

// genBase draws an original document: language, length, then sentences of 4–24
// words grouped into paragraphs of 2–6 sentences.
func (g *generator) genBase(r *rand.Rand, toks []token) baseDoc {
	l := latin
	switch x := r.Float64(); {
	case x < g.opts.CJKFraction:
		l = cjk
	case x < g.opts.CJKFraction+g.opts.CyrillicFraction:
		l = cyrillic
	}
	n := g.length(r)
	v := g.vocabs[l]
	toks = toks[:0]
	sentLeft, parLeft := 0, 2+r.IntN(5)
	for i := range n {
		t := token{word: v.sample(r)}
		if sentLeft == 0 {
			t.cap = true
			sentLeft = 4 + r.IntN(21)
		}
		sentLeft--
		switch {
		case sentLeft == 0 || i == n-1:
			t.punct = pPeriod
			if x := r.IntN(20); x == 0 {
				t.punct = pQuestion
			} else if x == 1 {
				t.punct = pExclaim
			}
			sentLeft = 0
			if parLeft--; parLeft == 0 && i != n-1 {
				t.para = true
				parLeft = 2 + r.IntN(5)
			}
		case r.IntN(12) == 0:
			t.punct = pComma
		}
		toks = append(toks, t)
	}
	return baseDoc{lang: l, toks: toks}
}

// length draws a word count from a triangular distribution on [MinWords, MaxWords]
// whose mode puts the mean at MeanWords: bounded, skewed and cheap to draw.
func (g *generator) length(r *rand.Rand) int {
	lo, hi := float64(g.opts.MinWords), float64(g.opts.MaxWords)
	if hi <= lo {
		return g.opts.MinWords
	}
	mode := min(max(3*float64(g.opts.MeanWords)-lo-hi, lo), hi)
	u := r.Float64()
	var x float64
	if u < (mode-lo)/(hi-lo) {
		x = lo + math.Sqrt(u*(hi-lo)*(mode-lo))
	} else {
		x = hi - math.Sqrt((1-u)*(hi-lo)*(hi-mode))
	}
	return int(x + 0.5)
}

// editPlan records the document-level edits chosen for one duplicate, applied at
// render time.
type editPlan struct {
	header, footer int // boilerplate index + 1, 0 for none
	upper, lower   bool
	caseFlips      bool // random words change case
	spaceNoise     bool // doubled spaces, tabs, stray newlines
	punctNoise     bool // dropped, doubled or swapped punctuation
}

// edit derives a near-duplicate from src: word-level edits at rates scaled by a
// per-duplicate intensity drawn from [0, 2) (so duplicates spread over a range of
// similarities instead of all sitting at one value), then truncation, and the
// choice of boilerplate and noise.
func (g *generator) edit(r *rand.Rand, l lang, src []token, dst []token) ([]token, editPlan) {
	o := &g.opts
	v := g.vocabs[l]
	if o.PartialRate > 0 && r.Float64() < o.PartialRate {
		return g.excerpt(r, v, src, dst), editPlan{}
	}
	k := 2 * r.Float64()
	del, sub, ins := o.DeleteRate*k, o.SubstituteRate*k, o.InsertRate*k
	dst = dst[:0]
	carryCap := false
	for _, t := range src {
		x := r.Float64()
		switch {
		case x < del:
			// Keep the sentence shape: the deleted word's end-of-sentence mark
			// moves to the previous word and its capital to the next one.
			if t.punct >= pPeriod || t.para {
				if len(dst) > 0 {
					p := &dst[len(dst)-1]
					p.punct, p.para = t.punct, p.para || t.para
				}
			}
			carryCap = carryCap || t.cap
			continue
		case x < del+sub:
			t.word = v.sample(r)
		case x < del+sub+ins:
			t.cap = t.cap || carryCap
			carryCap = false
			dst = append(dst, token{word: v.sample(r), cap: t.cap})
			t.cap = false
		}
		t.cap = t.cap || carryCap
		carryCap = false
		dst = append(dst, t)
	}
	if r.Float64() < o.TruncateRate && len(dst) > 1 {
		keep := int(float64(len(dst)) * (0.75 + 0.2*r.Float64()))
		dst = dst[:max(keep, 1)]
		last := &dst[len(dst)-1]
		last.punct, last.para = pPeriod, false
	}
	var p editPlan
	if r.Float64() < o.BoilerplateRate {
		nh, nf := len(boilerplate[l].headers), len(boilerplate[l].footers)
		switch r.IntN(3) {
		case 0:
			p.header = 1 + r.IntN(nh)
		case 1:
			p.footer = 1 + r.IntN(nf)
		default:
			p.header, p.footer = 1+r.IntN(nh), 1+r.IntN(nf)
		}
	}
	if r.Float64() < o.NoiseRate {
		switch r.IntN(6) {
		case 0:
			p.upper = true
		case 1:
			p.lower = true
		case 2:
			p.caseFlips = true
		}
		p.spaceNoise = r.IntN(2) == 0
		p.punctNoise = r.IntN(2) == 0
		if !p.upper && !p.lower && !p.caseFlips && !p.spaceNoise && !p.punctNoise {
			p.spaceNoise = true
		}
	}
	return dst, p
}

// render appends the text of toks, with the plan's boilerplate and noise, to buf,
// JSON-escaped. r is consulted only for noise, so a document without noise renders
// the same whatever the random state. Vocabulary words never need escaping, so the
// text is written escaped in one pass; only whole-text case changes take a detour
// through tmp.
func (g *generator) render(buf, tmp []byte, r *rand.Rand, l lang, toks []token, p editPlan) (out, tmpOut []byte) {
	if !p.upper && !p.lower {
		return g.renderText(buf, r, l, toks, p, true), tmp
	}
	tmp = g.renderText(tmp[:0], r, l, toks, p, false)
	s := string(tmp)
	if p.upper {
		s = strings.ToUpper(s)
	} else {
		s = strings.ToLower(s)
	}
	tmp = append(tmp[:0], s...)
	return jsonstr.AppendEscaped(buf, tmp), tmp
}

// Separators: index 0 raw, index 1 JSON-escaped.
var (
	paraSep    = [2]string{"\n\n", `\n\n`}
	spaceNoise = [2][4]string{{"  ", "\t", "\n", " \n "}, {"  ", `\t`, `\n`, ` \n `}}
)

func (g *generator) renderText(buf []byte, r *rand.Rand, l lang, toks []token, p editPlan, escaped bool) []byte {
	e := 0
	if escaped {
		e = 1
	}
	v := g.vocabs[l]
	bp := &boilerplate[l]
	punct := asciiPunct[:]
	sep := " "
	if l == cjk {
		punct, sep = cjkPunct[:], ""
	}
	if p.header > 0 {
		buf = append(buf, bp.headers[p.header-1]...)
		buf = append(buf, paraSep[e]...)
	}
	plain := l != cjk && !p.caseFlips && !p.punctNoise && !p.spaceNoise
	last := len(toks) - 1
	for i, t := range toks {
		if plain && t.punct == pNone && !t.para && i != last {
			if t.cap {
				buf = append(buf, v.capsSp[t.word]...)
			} else {
				buf = append(buf, v.wordsSp[t.word]...)
			}
			continue
		}
		w := v.words[t.word]
		if t.cap {
			w = v.caps[t.word]
		}
		if p.caseFlips && l != cjk && r.IntN(8) == 0 {
			if t.cap {
				w = v.words[t.word]
			} else {
				w = v.caps[t.word]
			}
		}
		buf = append(buf, w...)
		pu := t.punct
		if p.punctNoise && r.IntN(30) == 0 {
			pu = [...]uint8{pNone, pComma, pSemicolon, pExclaim}[r.IntN(4)]
		}
		buf = append(buf, punct[pu]...)
		if i == last {
			break
		}
		switch {
		case t.para:
			buf = append(buf, paraSep[e]...)
		case p.spaceNoise && r.IntN(10) == 0:
			buf = append(buf, spaceNoise[e][r.IntN(4)]...)
		default:
			buf = append(buf, sep...)
		}
	}
	if p.footer > 0 {
		buf = append(buf, paraSep[e]...)
		buf = append(buf, bp.footers[p.footer-1]...)
	}
	if p.spaceNoise {
		buf = append(buf, spaceNoise[e][2]...)
	}
	return buf
}

// boilerplate is per-language page chrome that scrapers pick up along with the
// article: navigation, bylines, share buttons, copyright lines.
var boilerplate = [numLangs]struct{ headers, footers []string }{
	latin: {
		headers: []string{
			"Home | News | Business | Sports | Contact",
			"Skip to main content",
			"Advertisement",
			"Posted by admin on March 3, 2021 in Uncategorized",
			"BREAKING NEWS: Live updates",
		},
		footers: []string{
			"Copyright © 2023 Example Media Group. All rights reserved.",
			"Share this: Facebook Twitter LinkedIn Email Print",
			"Subscribe to our newsletter for the latest updates.",
			"Click here to read more. Related articles",
			"This article was originally published on our partner site.",
		},
	},
	cyrillic: {
		headers: []string{
			"Главная | Новости | Экономика | Спорт | Контакты",
			"Перейти к содержимому",
			"Реклама",
			"Опубликовано администратором 3 марта 2021 года",
			"СРОЧНО: онлайн-трансляция",
		},
		footers: []string{
			"© 2023 Медиагруппа. Все права защищены.",
			"Поделиться: ВКонтакте Телеграм Одноклассники",
			"Подпишитесь на нашу рассылку, чтобы не пропустить новости.",
			"Читайте также: похожие материалы",
			"Материал впервые опубликован на сайте партнёра.",
		},
	},
	cjk: {
		headers: []string{
			"首页 | 新闻 | 财经 | 体育 | 联系我们",
			"跳到主要内容",
			"广告",
			"发布者：管理员 2021年3月3日",
			"突发新闻：实时更新",
		},
		footers: []string{
			"版权所有 © 2023 示例传媒集团。保留所有权利。",
			"分享到：微博 微信 QQ空间",
			"订阅我们的新闻通讯，获取最新消息。",
			"点击阅读更多。相关文章",
			"本文首发于合作网站。",
		},
	},
}

// excerpt derives a partial copy from src: a run of 30–90% of its words, verbatim, with
// fresh words before and after it, in all a share w of the excerpt's length drawn from
// [0, 1). Its containment in src is then about 1/(1+w): from ½ to 1, around any
// threshold a user would pick.
func (g *generator) excerpt(r *rand.Rand, v *vocab, src []token, dst []token) []token {
	n := max(1, int(float64(len(src))*(0.3+0.6*r.Float64())))
	start := r.IntN(len(src) - n + 1)
	wrap := int(float64(n) * r.Float64())
	before := r.IntN(wrap + 1)
	fresh := func(k int) {
		for i := range k {
			dst = append(dst, token{word: v.sample(r), cap: i == 0, punct: pComma * uint8(min(1, (i+1)/k))})
		}
	}
	dst = dst[:0]
	fresh(before)
	dst = append(dst, src[start:start+n]...)
	dst[len(dst)-n].cap = true
	fresh(wrap - before)
	last := &dst[len(dst)-1]
	last.punct, last.para = pPeriod, false
	return dst
}
