package jsonl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// scanner walks one record's bytes.
type scanner struct {
	b []byte
	i int
	// inPlace: the record's bytes are the caller's to give away (ParseRecordInPlace), so
	// decoded strings share them, and escapes are decoded over their own encoding.
	inPlace bool
}

func (s *scanner) eof() bool { return s.i >= len(s.b) }

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end checks that nothing but whitespace follows the top-level value.
func (s *scanner) end() error {
	s.ws()
	if !s.eof() {
		return s.errChar("after top-level value")
	}
	return nil
}

var errUnexpectedEnd = errors.New("invalid JSON: unexpected end of input")

func (s *scanner) errEOF() error { return errUnexpectedEnd }

func (s *scanner) errChar(context string) error {
	c := s.b[s.i]
	var what string
	if c >= 0x20 && c < 0x7f {
		what = strconv.QuoteRune(rune(c))
	} else {
		what = fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Errorf("invalid JSON: invalid character %s %s at offset %d", what, context, s.i)
}

// fieldValue parses a value of a requested field, decoding strings and keeping number text.
func (s *scanner) fieldValue() (field, error) {
	if s.eof() {
		return field{}, s.errEOF()
	}
	f := field{seen: true, kind: kindOf(s.b[s.i])}
	switch f.kind {
	case "string":
		str, bad, err := s.str(true)
		if err != nil {
			return field{}, err
		}
		f.str, f.bad = str, bad
	case "number":
		start := s.i
		isInt, err := s.number()
		if err != nil {
			return field{}, err
		}
		f.str, f.isInt = string(s.b[start:s.i]), isInt
	default:
		if err := s.skipValue(); err != nil {
			return field{}, err
		}
	}
	return f, nil
}

// skipValue validates and skips one value of any kind. Nesting is tracked on an explicit
// stack, so a hostile record of a million '[' cannot overflow the goroutine stack.
func (s *scanner) skipValue() error {
	var stack []byte
	for {
		// A value is expected here.
		s.ws()
		if s.eof() {
			return s.errEOF()
		}
		closed := true // the value just scanned is complete (not an opened container)
		switch c := s.b[s.i]; c {
		case '{', '[':
			s.i++
			s.ws()
			if s.eof() {
				return s.errEOF()
			}
			if (c == '{' && s.b[s.i] == '}') || (c == '[' && s.b[s.i] == ']') {
				s.i++
				break
			}
			stack = append(stack, c)
			closed = false
			if c == '{' {
				if err := s.keyColon(); err != nil {
					return err
				}
			}
		case '"':
			if _, _, err := s.str(false); err != nil {
				return err
			}
		case 't':
			if err := s.literal("true"); err != nil {
				return err
			}
		case 'f':
			if err := s.literal("false"); err != nil {
				return err
			}
		case 'n':
			if err := s.literal("null"); err != nil {
				return err
			}
		default:
			if _, err := s.number(); err != nil {
				return err
			}
		}
		if !closed {
			continue
		}
		// After a complete value: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return nil
			}
			s.ws()
			if s.eof() {
				return s.errEOF()
			}
			top, c := stack[len(stack)-1], s.b[s.i]
			if c == ',' {
				s.i++
				if top == '{' {
					if err := s.keyColon(); err != nil {
						return err
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				s.i++
				stack = stack[:len(stack)-1]
				continue
			}
			if top == '{' {
				return s.errChar("after object key:value pair")
			}
			return s.errChar("after array element")
		}
	}
}

// keyColon skips `"key" :` inside an object being skipped.
func (s *scanner) keyColon() error {
	s.ws()
	if s.eof() {
		return s.errEOF()
	}
	if s.b[s.i] != '"' {
		return s.errChar("looking for beginning of object key string")
	}
	if _, _, err := s.str(false); err != nil {
		return err
	}
	s.ws()
	if s.eof() {
		return s.errEOF()
	}
	if s.b[s.i] != ':' {
		return s.errChar("after object key")
	}
	s.i++
	return nil
}

func (s *scanner) literal(lit string) error {
	for k := 0; k < len(lit); k++ {
		if s.i >= len(s.b) {
			return s.errEOF()
		}
		if s.b[s.i] != lit[k] {
			return s.errChar("in literal " + lit)
		}
		s.i++
	}
	return nil
}

// number scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? and reports whether it had
// neither fraction nor exponent.
func (s *scanner) number() (isInt bool, err error) {
	digits := func() error {
		if s.eof() {
			return s.errEOF()
		}
		if !isDigit(s.b[s.i]) {
			return s.errChar("in numeric literal")
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
		return nil
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.eof() {
		return false, s.errEOF()
	}
	switch c := s.b[s.i]; {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		if err := digits(); err != nil {
			return false, err
		}
	default:
		return false, s.errChar("looking for beginning of value")
	}
	isInt = true
	if s.i < len(s.b) && s.b[s.i] == '.' {
		isInt = false
		s.i++
		if err := digits(); err != nil {
			return false, err
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		isInt = false
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if err := digits(); err != nil {
			return false, err
		}
	}
	return isInt, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// str scans a string starting at its opening quote. With decode it returns the decoded
// value and whether replacement characters were inserted. The common case, a string with
// no escapes and valid UTF-8, costs one scan and one copy (none in place).
func (s *scanner) str(decode bool) (string, bool, error) {
	s.i++ // opening quote
	start := s.i
	b := s.b
	var seen byte // OR of all bytes: bit 7 set means some byte was non-ASCII
	s.i, seen = plainEnd(b, s.i)
	if s.i >= len(b) {
		return "", false, s.errEOF()
	}
	switch c := b[s.i]; {
	case c == '\\':
		return s.strSlow(start, decode, seen)
	case c < 0x20:
		return "", false, s.errChar("in string literal")
	}
	raw := b[start:s.i] // closing quote
	s.i++
	if !decode {
		return "", false, nil
	}
	if seen < utf8.RuneSelf || utf8.Valid(raw) {
		if s.inPlace {
			return ownedString(raw), false, nil
		}
		return string(raw), false, nil
	}
	out, bad := unescape(make([]byte, 0, len(raw)+8), raw, false)
	return ownedString(out), bad, nil
}

// plainEnd returns the index of the first byte at or after i that is special (or
// len(b)), and the OR of the bytes before it. It tests eight bytes at a time: texts are
// the bulk of a corpus, so this loop is much of the parse.
func plainEnd(b []byte, i int) (int, byte) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var or uint64
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		// A high bit in (v - ones) &^ v marks a zero byte of v (and bytes below 0x20 for
		// v = x, since x - ones·0x20 borrows there); the first mark is exact.
		if ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			break
		}
		or |= x
	}
	var seen byte
	for k := range 8 {
		seen |= byte(or >> (8 * k))
	}
	for i < len(b) && !special[b[i]] {
		seen |= b[i]
		i++
	}
	return i, seen
}

// special marks the bytes that end the fast scan of a string: the closing quote, an
// escape, or a control character (invalid inside a JSON string).
var special = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// strSlow validates the rest of a string that has escapes, then decodes it whole.
// seen is the OR of the bytes before the first escape.
func (s *scanner) strSlow(start int, decode bool, seen byte) (string, bool, error) {
	for {
		var run byte
		s.i, run = plainEnd(s.b, s.i)
		seen |= run // escapes are ASCII: no other byte can make the string non-ASCII
		if s.i >= len(s.b) {
			return "", false, s.errEOF()
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if !decode {
				return "", false, nil
			}
			// An ASCII string (most texts and ids) is valid UTF-8 without a check.
			valid := seen < utf8.RuneSelf || utf8.Valid(raw)
			var buf []byte
			if s.inPlace && valid {
				// Every escape decodes to fewer bytes than it takes, and a run between
				// escapes is copied as it is, so the output never overtakes the input:
				// raw can be decoded over itself. Only an invalid byte grows (to the
				// three of U+FFFD), hence the check.
				buf = raw[:0]
			} else {
				buf = make([]byte, 0, len(raw))
			}
			out, bad := unescape(buf, raw, valid)
			return ownedString(out), bad, nil
		case c == '\\':
			s.i++
			if s.i >= len(s.b) {
				return "", false, s.errEOF()
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				s.i++
				for k := 0; k < 4; k++ {
					if s.i >= len(s.b) {
						return "", false, s.errEOF()
					}
					if unhex(s.b[s.i]) < 0 {
						return "", false, s.errChar("in \\u hexadecimal character escape")
					}
					s.i++
				}
			default:
				return "", false, s.errChar("in string escape code")
			}
		case c < 0x20:
			return "", false, s.errChar("in string literal")
		default:
			s.i++
		}
	}
}

// ownedString returns b as a string without copying it: b must be freshly allocated
// and never written again. A text is the largest field by far, and copying it once
// more cost as much as decoding it.
func ownedString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func unhex(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// hex4 decodes the 4 hex digits at raw[0:4] (already validated).
func hex4(raw []byte) rune {
	return unhex(raw[0])<<12 | unhex(raw[1])<<8 | unhex(raw[2])<<4 | unhex(raw[3])
}

// unescape decodes the validated body of a JSON string (between the quotes), replacing
// invalid UTF-8 bytes and unpaired surrogates with U+FFFD exactly as encoding/json does.
// valid says raw is known to be valid UTF-8, so its runs between escapes need no check.
func unescape(out, raw []byte, valid bool) ([]byte, bool) {
	bad := false
	for i := 0; i < len(raw); {
		c := raw[i]
		if c == '\\' {
			switch raw[i+1] {
			case 'u':
				r := hex4(raw[i+2:])
				i += 6
				if r >= 0xD800 && r < 0xDC00 {
					// A high surrogate pairs only with an immediately following low one.
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						if lo := hex4(raw[i+2:]); lo >= 0xDC00 && lo < 0xE000 {
							out = utf8.AppendRune(out, 0x10000+(r-0xD800)<<10+(lo-0xDC00))
							i += 6
							continue
						}
					}
					r, bad = utf8.RuneError, true
				} else if r >= 0xDC00 && r < 0xE000 {
					r, bad = utf8.RuneError, true
				}
				out = utf8.AppendRune(out, r)
				continue
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			default: // '"', '\\', '/'
				out = append(out, raw[i+1])
			}
			i += 2
			continue
		}
		// Copy the run up to the next escape at once when it is valid UTF-8 (always, in
		// practice): a rune never spans an escape, whose bytes are all ASCII.
		j := len(raw)
		if k := bytes.IndexByte(raw[i:], '\\'); k >= 0 {
			j = i + k
		}
		if run := raw[i:j]; valid || utf8.Valid(run) {
			out = append(out, run...)
			i = j
			continue
		}
		for i < j { // rune by rune, each invalid byte becoming U+FFFD
			r, size := utf8.DecodeRune(raw[i:j])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
				bad = true
			} else {
				out = append(out, raw[i:i+size]...)
			}
			i += size
		}
	}
	return out, bad
}
