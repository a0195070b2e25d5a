// Package jsonesc decodes the escapes of JSON strings that were validated
// before, as encoding/json does, for the scanners that read JSON without
// decoding it whole (the transcript reader, the redactor).
package jsonesc

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Append appends what the escape s starts with stands for and returns how
// many bytes of s it read. s starts with a backslash and holds a valid
// escape: \b \f \n \r \t \" \\ \/ or \uXXXX. A \u escape of a surrogate
// pairs with the \u escape right after it; a lone surrogate becomes
// U+FFFD.
func Append(b, s []byte) ([]byte, int) {
	switch s[1] {
	case 'b':
		return append(b, '\b'), 2
	case 'f':
		return append(b, '\f'), 2
	case 'n':
		return append(b, '\n'), 2
	case 'r':
		return append(b, '\r'), 2
	case 't':
		return append(b, '\t'), 2
	case 'u':
		r := hex4(s[2:])
		if utf16.IsSurrogate(r) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if dec := utf16.DecodeRune(r, hex4(s[8:])); dec != utf8.RuneError {
					return utf8.AppendRune(b, dec), 12
				}
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(b, r), 6
	}
	return append(b, s[1]), 2 // " \ /
}

// hex4 decodes four hex digits.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
