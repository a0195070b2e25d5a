package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsWordRune reports whether r belongs to a token, as the FTS tokenizer sees
// it (marks included, so scripts with combining signs stay whole; the
// tokenizer drops them itself).
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf { // most text; IsMark has no fast path for it
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.IsNumber(r)
}

// IsConnector reports whether r joins words into a IsCompound worth matching
// as a phrase: paths, file names, versions, kebab-case.
func IsConnector(r rune) bool {
	return r == '.' || r == '/' || r == '-' || r == '\\' || r == ':'
}

// SplitIdent splits an identifier at underscores and case changes:
// "parseHTTPResponse_v2" → parse, HTTP, Response, v2. Digits stay with the
// letters before them.
func SplitIdent(w string) []string {
	if !IsCompound(w) {
		return []string{w}
	}
	if isASCII(w) {
		return splitIdentASCII(w)
	}
	var parts []string
	for _, seg := range strings.Split(w, "_") {
		rs := []rune(seg)
		start := 0
		for i := 1; i < len(rs); i++ {
			prev, cur := rs[i-1], rs[i]
			lowerToUpper := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur)
			acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if lowerToUpper || acronymEnd {
				parts = append(parts, string(rs[start:i]))
				start = i
			}
		}
		if start < len(rs) {
			parts = append(parts, string(rs[start:]))
		}
	}
	return parts
}

// splitIdentASCII is SplitIdent for an ASCII w, with parts sliced out of
// it rather than copied: a chunk's index terms split thousands of them.
func splitIdentASCII(w string) []string {
	lower := func(c byte) bool { return 'a' <= c && c <= 'z' }
	upper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	var parts []string
	for seg := range strings.SplitSeq(w, "_") {
		start := 0
		for i := 1; i < len(seg); i++ {
			prev, cur := seg[i-1], seg[i]
			lowerToUpper := (lower(prev) || '0' <= prev && prev <= '9') && upper(cur)
			acronymEnd := upper(prev) && upper(cur) && i+1 < len(seg) && lower(seg[i+1])
			if lowerToUpper || acronymEnd {
				parts = append(parts, seg[start:i])
				start = i
			}
		}
		if start < len(seg) {
			parts = append(parts, seg[start:])
		}
	}
	return parts
}

// IsCompound reports whether w may split into parts: it holds an underscore
// or an upper-case letter after its first rune. Most words of prose do not.
func IsCompound(w string) bool {
	for i, r := range w {
		if r == '_' || i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// Compounds calls fn for every run of words joined by single connectors,
// with the run's text and its words: "see src/app/main.go." yields "see"
// and "src/app/main.go" (without the final period).
func Compounds(s string, fn func(c string, ws []string)) {
	var ws []string
	start, end := -1, -1 // byte range of the current IsCompound
	wstart := -1         // start of the current word
	flush := func() {
		if len(ws) > 0 {
			fn(s[start:end], ws)
		}
		ws, start, end = nil, -1, -1
	}
	prevConnector := false
	for i, r := range s {
		if IsWordRune(r) {
			if wstart < 0 {
				wstart = i
				if start < 0 {
					start = i
				}
			}
			prevConnector = false
			continue
		}
		if wstart >= 0 {
			ws = append(ws, s[wstart:i])
			end = i
			wstart = -1
		}
		if IsConnector(r) && !prevConnector && len(ws) > 0 && end == i {
			prevConnector = true
			continue
		}
		prevConnector = false
		flush()
	}
	if wstart >= 0 {
		ws = append(ws, s[wstart:])
		end = len(s)
	}
	flush()
}

// EachWord calls fn for every maximal run of word runes in s.
func EachWord(s string, fn func(w string)) {
	start := -1
	for i, r := range s {
		if IsWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
