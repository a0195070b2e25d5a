package redact

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"

	"github.com/carryover-dev/carryover/internal/jsonesc"
)

// RedactJSON runs on every tool input and result of a transcript, and
// checking a document with json.Valid, then decoding each escaped string
// with json.Unmarshal, cost three times the masking itself. validJSON and
// unquoteJSON do the same in one plain loop each; the fuzz tests hold them
// to encoding/json's answers.

// maxJSONDepth is encoding/json's nesting limit: json.Valid refuses a
// document nested deeper.
const maxJSONDepth = 10000

// validJSON reports whether data is one JSON value, as json.Valid does.
func validJSON(data []byte) bool {
	i := skipJSONSpace(data, 0)
	// open holds, per nesting level, whether it is an object; one bit each.
	var open []uint64
	depth := 0
	for {
		// A value at i.
		if i >= len(data) {
			return false
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if depth == maxJSONDepth {
				return false
			}
			if depth/64 == len(open) {
				open = append(open, 0)
			}
			if c == '{' {
				open[depth/64] |= 1 << (depth % 64)
			} else {
				open[depth/64] &^= 1 << (depth % 64)
			}
			depth++
			i = skipJSONSpace(data, i+1)
			if i < len(data) && (c == '{' && data[i] == '}' || c == '[' && data[i] == ']') {
				depth--
				i++
				break
			}
			if c == '{' {
				if i = jsonKey(data, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = jsonStringEnd(data, i); i < 0 {
				return false
			}
		case c == 't':
			if i = jsonLiteral(data, i, "true"); i < 0 {
				return false
			}
		case c == 'f':
			if i = jsonLiteral(data, i, "false"); i < 0 {
				return false
			}
		case c == 'n':
			if i = jsonLiteral(data, i, "null"); i < 0 {
				return false
			}
		case c == '-' || '0' <= c && c <= '9':
			if i = jsonNumber(data, i); i < 0 {
				return false
			}
		default:
			return false
		}
		// After a value: the next member or element, or the ends of the
		// containers it closes.
		for {
			i = skipJSONSpace(data, i)
			if depth == 0 {
				return i == len(data)
			}
			if i >= len(data) {
				return false
			}
			object := open[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			c := data[i]
			if c == ',' {
				i = skipJSONSpace(data, i+1)
				if object {
					if i = jsonKey(data, i); i < 0 {
						return false
					}
				}
				break
			}
			if object && c == '}' || !object && c == ']' {
				depth--
				i++
				continue
			}
			return false
		}
	}
}

func skipJSONSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// jsonKey reads an object's key and its colon at i and returns where its
// value starts (after spaces), or -1.
func jsonKey(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = jsonStringEnd(data, i); i < 0 {
		return -1
	}
	i = skipJSONSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return -1
	}
	return skipJSONSpace(data, i+1)
}

// jsonStringEnd returns the index past the string that starts at i (a
// quote), or -1 when it is not a valid JSON string.
func jsonStringEnd(data []byte, i int) int {
	for i++; i < len(data); {
		// Eight bytes at a time: most of a document is the inside of its
		// strings.
		if i+8 <= len(data) {
			m := jsonSpecials(binary.LittleEndian.Uint64(data[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !isHexDigit(data[i+2]) || !isHexDigit(data[i+3]) || !isHexDigit(data[i+4]) || !isHexDigit(data[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
	return -1
}

// jsonSpecials flags (with its high bit) each byte of x that is a quote, a
// backslash or a control character. The flag of the lowest such byte is
// exact; a byte above it may be flagged wrongly (a borrow).
func jsonSpecials(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ ('"' * ones)
	backslash := x ^ ('\\' * ones)
	return ((quote-ones)&^quote | (backslash-ones)&^backslash | (x-0x20*ones)&^x) & highs
}

func jsonLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// jsonNumber returns the index past the number at i, or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(data []byte, i int) int {
	digits := func(i int) int {
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
		return i
	}
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if i+1 >= len(data) || data[i+1] < '0' || data[i+1] > '9' {
			return -1
		}
		i = digits(i + 1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return -1
		}
		i = digits(i)
	}
	return i
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unquoteJSON decodes the inside of a valid JSON string (without its
// quotes) as json.Unmarshal into a string does: escapes decoded, a lone
// surrogate and each byte of invalid UTF-8 replaced by U+FFFD.
func unquoteJSON(s []byte) string {
	return bytesString(appendUnquoteJSON(make([]byte, 0, len(s)), s))
}

// appendUnquoteJSON appends the decoded inside of a valid JSON string to
// b, as unquoteJSON decodes it.
func appendUnquoteJSON(b, s []byte) []byte {
	if utf8.Valid(s) {
		// The usual case: copy what lies between escapes.
		for {
			k := bytes.IndexByte(s, '\\')
			if k < 0 {
				b = append(b, s...)
				break
			}
			b = append(b, s[:k]...)
			var n int
			b, n = jsonesc.Append(b, s[k:])
			s = s[k+n:]
		}
		return b
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			var n int
			b, n = jsonesc.Append(b, s[i:])
			i += n
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(s) && s[j] != '\\' && s[j] < utf8.RuneSelf {
				j++
			}
			b = append(b, s[i:j]...)
			i = j
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return b
}

// bytesString returns b as a string without copying it: b is not
// written again.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
