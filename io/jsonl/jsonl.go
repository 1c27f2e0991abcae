// Package jsonl parses one JSON Lines record into the two fields neardup needs, the id and
// the text, without building a generic map of the whole record.
//
// Records are validated completely (a record that encoding/json would reject is rejected
// here too) in one pass, and only the two requested fields are decoded; every other value
// is skipped. Corpus records carry large metadata blobs next to the text, and unmarshalling
// them into map[string]interface{} would cost more than the whole MinHash signature.
//
// Decoding follows encoding/json where JSON leaves room: the last of duplicate keys wins,
// invalid UTF-8 and unpaired surrogate escapes become U+FFFD (one per bad byte), and a
// NUL written as \u0000 is kept as a NUL character.
package jsonl

import "fmt"

// Record is what ParseRecord extracts from one record.
type Record struct {
	ID    string // the id field as text; a number id is its decimal text
	HasID bool   // false when the id field is missing or null
	Text  string
	// InvalidUTF8 is true when the text needed replacement characters: invalid UTF-8
	// bytes or unpaired surrogate escapes. Callers count it; the record is still used.
	InvalidUTF8 bool
}

// Parse extracts the id and text fields of one JSON object record. The id may be a string
// or an integer number (returned as its decimal text) or missing or null (hasID false);
// the text must be a string. Errors are short reasons meant for a rejected-records file,
// e.g. `invalid JSON: unexpected end of input` or `field "text": not a string (number)`.
func Parse(raw []byte, idField, textField string) (id string, hasID bool, text string, err error) {
	r, err := ParseRecord(raw, idField, textField)
	return r.ID, r.HasID, r.Text, err
}

// ParseRecord is Parse that also reports whether the text needed UTF-8 repair.
func ParseRecord(raw []byte, idField, textField string) (Record, error) {
	p := parser{s: scanner{b: raw}, idField: idField, textField: textField}
	return p.parse()
}

// ParseRecordInPlace is ParseRecord for a caller that gives raw away: the returned
// strings may share raw's memory, and escaped strings are decoded over their encoding in
// raw, so nothing is copied. raw must not be written again, nor read again as the
// record, by anyone; the strings keep all of raw's memory alive, so a caller that keeps
// one of them (the id, say) long after the text should copy it.
func ParseRecordInPlace(raw []byte, idField, textField string) (Record, error) {
	p := parser{s: scanner{b: raw, inPlace: true}, idField: idField, textField: textField}
	return p.parse()
}

// ParseID extracts only the id field of one JSON object record (as Parse does), for
// callers that look for a few ids among many records: no text is decoded. The record is
// still validated, but a missing or non-string text is not an error here.
func ParseID(raw []byte, idField string) (id string, hasID bool, err error) {
	p := parser{s: scanner{b: raw}, idField: idField, idOnly: true}
	r, err := p.parse()
	return r.ID, r.HasID, err
}

// field is the last value seen for one requested key.
type field struct {
	seen  bool
	kind  string // JSON kind of the value: "string", "number", "boolean", "null", "object", "array"
	str   string // decoded string, or the number's literal text
	isInt bool   // for numbers: no fraction or exponent
	bad   bool   // for strings: replacement characters were inserted
}

type parser struct {
	s                  scanner
	idField, textField string
	idOnly             bool // no text field is wanted (ParseID)
	id, text           field
}

func (p *parser) parse() (Record, error) {
	s := &p.s
	s.ws()
	if s.eof() {
		return Record{}, s.errEOF()
	}
	if s.b[s.i] != '{' {
		kind := kindOf(s.b[s.i])
		if err := s.skipValue(); err != nil {
			return Record{}, err
		}
		if err := s.end(); err != nil {
			return Record{}, err
		}
		return Record{}, fmt.Errorf("record is not a JSON object (%s)", kind)
	}
	s.i++
	s.ws()
	if s.eof() {
		return Record{}, s.errEOF()
	}
	if s.b[s.i] == '}' {
		s.i++
	} else {
		if err := p.members(); err != nil {
			return Record{}, err
		}
	}
	if err := s.end(); err != nil {
		return Record{}, err
	}
	return p.result()
}

// members parses `"key": value, ...}` after the opening brace.
func (p *parser) members() error {
	s := &p.s
	for {
		s.ws()
		if s.eof() {
			return s.errEOF()
		}
		if s.b[s.i] != '"' {
			return s.errChar("looking for beginning of object key string")
		}
		key, _, err := s.str(true)
		if err != nil {
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
		s.ws()
		isText, isID := key == p.textField && !p.idOnly, key == p.idField
		if isText || isID {
			f, err := s.fieldValue()
			if err != nil {
				return err
			}
			if isText {
				p.text = f
			}
			if isID {
				p.id = f
			}
		} else if err := s.skipValue(); err != nil {
			return err
		}
		s.ws()
		if s.eof() {
			return s.errEOF()
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.errChar("after object key:value pair")
		}
	}
}

func (p *parser) result() (Record, error) {
	var r Record
	switch {
	case p.idOnly:
	case !p.text.seen:
		return r, fmt.Errorf("field %q: missing", p.textField)
	case p.text.kind != "string":
		return r, fmt.Errorf("field %q: not a string (%s)", p.textField, p.text.kind)
	}
	r.Text, r.InvalidUTF8 = p.text.str, p.text.bad
	if !p.id.seen || p.id.kind == "null" {
		return r, nil
	}
	switch p.id.kind {
	case "string":
		r.ID, r.HasID = p.id.str, true
	case "number":
		if !p.id.isInt {
			return Record{}, fmt.Errorf("field %q: not an integer (%s)", p.idField, clip(p.id.str))
		}
		r.ID, r.HasID = p.id.str, true
	default:
		return Record{}, fmt.Errorf("field %q: not a string or integer (%s)", p.idField, p.id.kind)
	}
	return r, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func kindOf(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// Leading decodes the first members of the JSON object raw when their keys are keys, in
// this order, each written without escapes, and each value a string or a number: it
// appends to dst each string decoded as Parse decodes it, or each number's literal text.
// The rest of raw is neither read nor validated, so Leading is for lines neardup wrote
// itself, whose leading members it knows, when most lines are passed over by those
// values alone; ok is false whenever raw does not start so, and the caller then parses
// the line whole.
func Leading(dst []string, raw []byte, keys ...string) (values []string, ok bool) {
	n0, s := len(dst), scanner{b: raw}
	s.ws()
	if s.eof() || s.b[s.i] != '{' {
		return dst[:n0], false
	}
	s.i++
	for k, key := range keys {
		s.ws()
		if k > 0 {
			if s.eof() || s.b[s.i] != ',' {
				return dst[:n0], false
			}
			s.i++
			s.ws()
		}
		if e := s.i + 1 + len(key); e >= len(s.b) || s.b[s.i] != '"' || string(s.b[s.i+1:e]) != key || s.b[e] != '"' {
			return dst[:n0], false
		}
		s.i += len(key) + 2
		s.ws()
		if s.eof() || s.b[s.i] != ':' {
			return dst[:n0], false
		}
		s.i++
		s.ws()
		if s.eof() {
			return dst[:n0], false
		}
		switch kindOf(s.b[s.i]) {
		case "string", "number":
			f, err := s.fieldValue()
			if err != nil {
				return dst[:n0], false
			}
			dst = append(dst, f.str)
		default:
			return dst[:n0], false
		}
	}
	return dst, true
}
