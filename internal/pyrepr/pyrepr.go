// Package pyrepr formats numbers exactly as Python prints them.
//
// neardup's reports (the seed's pair table, stats, removed.jsonl) must match the
// seed's Python reference program byte for byte, so floats are written the way
// CPython's repr(float) writes them rather than with Go's %v.
package pyrepr

import (
	"math"
	"strconv"
)

// Float returns repr(f) as CPython 3 prints it: the shortest decimal string that
// round-trips to f, always containing a '.' or an exponent ('1.0', '0.1',
// '0.6666666666666666'), switching to scientific notation when the decimal exponent
// is below -4 or at least 16 ('1e-05', '1e+16', '1.5e+300', exponent at least two
// digits), and 'inf', '-inf', 'nan' for the special values ('-0.0' keeps its sign).
func Float(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	// Go's shortest formatting picks the same digits as CPython's repr (both yield
	// the shortest string that round-trips, nearest to the exact value); only the
	// layout differs, so take the digits and the exponent and lay them out here.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // [-]d[.ddd]e±XX
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	var digits [24]byte
	nd := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[nd] = e[i]
			nd++
		}
	}
	exp, err := strconv.Atoi(string(e[i+1:]))
	if err != nil {
		// AppendFloat always writes a valid exponent; reaching this is a bug.
		panic("pyrepr: unexpected strconv output " + string(e))
	}

	out := make([]byte, 0, 32)
	if neg {
		out = append(out, '-')
	}
	if exp < -4 || exp >= 16 {
		// CPython: 'd.ddde±XX', no '.' when there is a single digit.
		out = append(out, digits[0])
		if nd > 1 {
			out = append(out, '.')
			out = append(out, digits[1:nd]...)
		}
		out = append(out, 'e')
		if exp < 0 {
			out = append(out, '-')
			exp = -exp
		} else {
			out = append(out, '+')
		}
		if exp < 10 {
			out = append(out, '0')
		}
		out = strconv.AppendInt(out, int64(exp), 10)
		return string(out)
	}
	if exp < 0 {
		// 0.000ddd
		out = append(out, '0', '.')
		for k := -1; k > exp; k-- {
			out = append(out, '0')
		}
		out = append(out, digits[:nd]...)
		return string(out)
	}
	// The decimal point goes after exp+1 digits, padding with zeros; an integral
	// value still gets '.0'.
	intDigits := exp + 1
	if nd <= intDigits {
		out = append(out, digits[:nd]...)
		for k := nd; k < intDigits; k++ {
			out = append(out, '0')
		}
		out = append(out, '.', '0')
		return string(out)
	}
	out = append(out, digits[:intDigits]...)
	out = append(out, '.')
	out = append(out, digits[intDigits:nd]...)
	return string(out)
}
