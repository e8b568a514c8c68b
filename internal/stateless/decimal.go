package stateless

import (
	"strconv"
	"strings"
)

// decimal is a number in a canonical form that two texts of one value
// share: its significant digits, without leading or trailing zeros, and
// the power of ten of the decimal point before them. Zero has no digits.
// Comparing decimals is exact at any size, which float64 is not beyond
// 2^53.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// parseDecimal parses a JSON number (RFC 8259 §6: no plus sign, no
// leading zeros, digits on both sides of a point). It refuses exponents
// too large to compute with, rather than round.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	intPart := leadingDigits(s)
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return decimal{}, false
	}
	s = s[len(intPart):]
	var frac string
	if strings.HasPrefix(s, ".") {
		if frac = leadingDigits(s[1:]); frac == "" {
			return decimal{}, false
		}
		s = s[1+len(frac):]
	}
	var exp int64
	if s != "" {
		if s[0] != 'e' && s[0] != 'E' {
			return decimal{}, false
		}
		s = s[1:]
		sign := ""
		if s != "" && (s[0] == '+' || s[0] == '-') {
			sign, s = s[:1], s[1:]
		}
		if s == "" || leadingDigits(s) != s {
			return decimal{}, false
		}
		e, err := strconv.ParseInt(sign+s, 10, 64)
		if err != nil || e > 1<<60 || e < -(1<<60) {
			return decimal{}, false
		}
		exp = e
	}
	digits := intPart + frac
	point := int64(len(intPart))
	trimmed := strings.TrimLeft(digits, "0")
	point -= int64(len(digits) - len(trimmed))
	d.digits = strings.TrimRight(trimmed, "0")
	if d.digits == "" {
		return decimal{}, true // -0 is 0
	}
	d.exp = point + exp
	return d, true
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
