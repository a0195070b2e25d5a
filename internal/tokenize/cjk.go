package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Scripts written without spaces between words (Chinese, Japanese; Korean
// writes particles onto its words) reach the tokenizers as one long word
// per run: "首次全量" is one token, and a search for "全量" would find
// nothing. Each such run is therefore also indexed as its character
// bigrams, and a query asks for a run as the phrase of its bigrams, which
// any run containing it holds in the same order.

// IsCJK reports whether r belongs to a script written without spaces: Han,
// Hiragana, Katakana (with the prolonged sound mark) or Hangul.
func IsCJK(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo: most text, checked first
		return false
	}
	return r == 'ー' || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// CJKRuns calls fn, in order, with the character bigrams of each run of at
// least two CJK runes in the word w. A two-rune run that is the whole word
// yields nothing: the word is its own bigram and is indexed and queried as
// itself.
func CJKRuns(w string, fn func(bigrams []string)) {
	start, n := -1, 0 // byte offset and rune count of the current run
	var starts []int  // byte offset of each rune of the run
	flush := func(end int) {
		if n >= 2 && !(n == 2 && start == 0 && end == len(w)) {
			bigrams := make([]string, 0, n-1)
			for i := 0; i+1 < n; i++ {
				to := end
				if i+2 < n {
					to = starts[i+2]
				}
				bigrams = append(bigrams, w[starts[i]:to])
			}
			fn(bigrams)
		}
		start, n, starts = -1, 0, starts[:0]
	}
	for i, r := range w {
		if !IsCJK(r) {
			if start >= 0 {
				flush(i)
			}
			continue
		}
		if start < 0 {
			start = i
		}
		starts = append(starts, i)
		n++
	}
	if start >= 0 {
		flush(len(w))
	}
}

// HasCJK reports whether s holds a rune that CJKRuns counts, or one that
// NFKC turns into such runes (㍿, ｶ, 豈): whether IndexTerms may give s
// bigrams. Text without a byte of a rune from U+1000 on is skipped at
// once.
func HasCJK(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0xE1 {
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		if IsCJK(r) {
			return true
		}
		if r != utf8.RuneError {
			if x := string(r); !norm.NFKC.IsNormalString(x) && strings.ContainsFunc(norm.NFKC.String(x), IsCJK) {
				return true
			}
		}
	}
	return false
}
