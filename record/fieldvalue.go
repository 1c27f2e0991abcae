package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// FieldKind is the kind of a FieldValue.
type FieldKind int8

// Field value kinds. Only numbers and strings rank; anything else counts as missing.
const (
	FieldMissing FieldKind = iota // absent, null, or not a number or string (bool, object, array)
	FieldNumber
	FieldString
)

func (k FieldKind) String() string {
	switch k {
	case FieldNumber:
		return "number"
	case FieldString:
		return "string"
	}
	return "missing"
}

// FieldValue is one record's value of a top-level field, as --keep field:NAME:max|min
// ranks cluster members by it. Numbers keep their JSON text so that large integers and
// decimals compare exactly.
type FieldValue struct {
	Kind FieldKind
	Text string // the string, or the number's JSON text
}

// FieldOf returns the top-level field name of a JSON object. The last of duplicate keys
// wins, as in encoding/json and the JSONL reader. A record that is not a JSON object has
// the field missing.
func FieldOf(obj []byte, name string) FieldValue {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return FieldValue{}
	}
	var v FieldValue
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return FieldValue{}
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return FieldValue{}
		}
		if key == name {
			v = JSONFieldValue(raw)
		}
	}
	return v
}

// JSONFieldValue classifies one JSON value.
func JSONFieldValue(raw []byte) FieldValue {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return FieldValue{}
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return FieldValue{}
		}
		return FieldValue{Kind: FieldString, Text: s}
	case c == '-' || (c >= '0' && c <= '9'):
		if _, ok := new(big.Rat).SetString(string(raw)); !ok {
			return FieldValue{}
		}
		return FieldValue{Kind: FieldNumber, Text: string(raw)}
	}
	return FieldValue{}
}

// CompareFields orders two values of one field: numbers by value, strings byte-wise
// (ISO 8601 dates and times order correctly), any present value above a missing one.
// A number against a string is an error: the field's type is inconsistent and no
// order between them would mean anything.
func CompareFields(a, b FieldValue) (int, error) {
	switch {
	case a.Kind == FieldMissing || b.Kind == FieldMissing:
		return int(min(a.Kind, 1)) - int(min(b.Kind, 1)), nil
	case a.Kind != b.Kind:
		return 0, fmt.Errorf("a %s (%s) and a %s (%s) cannot be ranked against each other", a.Kind, clipValue(a.Text), b.Kind, clipValue(b.Text))
	case a.Kind == FieldString:
		return strings.Compare(a.Text, b.Text), nil
	}
	x, okx := new(big.Rat).SetString(a.Text)
	y, oky := new(big.Rat).SetString(b.Text)
	if !okx || !oky {
		return 0, fmt.Errorf("not a number: %q / %q", a.Text, b.Text)
	}
	return x.Cmp(y), nil
}

func clipValue(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", s)
}
