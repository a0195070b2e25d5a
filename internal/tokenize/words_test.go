package tokenize

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestASCIIFastPaths: the ASCII shortcuts of IsWordRune and SplitIdent
// agree with the Unicode definitions they shortcut.
func TestASCIIFastPaths(t *testing.T) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		want := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.IsNumber(r)
		if IsWordRune(r) != want {
			t.Errorf("IsWordRune(%q) = %v, want %v", r, !want, want)
		}
	}
	// The rune-by-rune split SplitIdent does for other text.
	byRunes := func(w string) []string {
		var parts []string
		for _, seg := range strings.Split(w, "_") {
			rs := []rune(seg)
			start := 0
			for i := 1; i < len(rs); i++ {
				prev, cur := rs[i-1], rs[i]
				if (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur) ||
					unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
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
	for _, w := range []string{"parseHTTPResponse_v2", "__init__", "a_b", "ABC", "ABCd", "x9Y", "getURLs", "_", "A_",
		"already_split__twice", "HTTP2Server", "iOS", "fooBAR", "snake_case_Name", "X"} {
		if got, want := SplitIdent(w), byRunes(w); IsCompound(w) && !slices.Equal(got, want) {
			t.Errorf("SplitIdent(%q) = %q, want %q", w, got, want)
		}
	}
}
