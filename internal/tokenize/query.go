package tokenize

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Words splits s into its words: the maximal runs of word runes.
func Words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !IsWordRune(r) })
}

// LongCJKRun is the number of bigrams (a run of more than 8 runes) from
// which a run of Han, Kana or Hangul is also queried by its bigrams alone.
const LongCJKRun = 8

// QueryTerms turns any text into full-text search terms, the same for every
// store: NFKC-normalised, lowercased, split into words and identifier
// parts, stopwords (IsStopword) and one-character tokens dropped. Runs of
// words joined by connectors (src/app/main.go, foo-bar, v1.2) are kept
// whole too, and so is each run of Han, Kana or Hangul as its bigrams
// (CJKRuns), each to be matched as a phrase of the words it holds; a run of
// more than 8 runes is also queried by each of its bigrams. At most
// max terms are kept (every term costs a walk over its posting list, and
// pasted text can hold thousands), the most specific-looking ones.
func QueryTerms(text string, max int) []string {
	text = norm.NFKC.String(text)
	seen := make(map[string]bool)
	var terms, loose []string
	add := func(t string) {
		t = strings.ToLower(t)
		if utf8.RuneCountInString(t) < 2 || IsStopword(t) || seen[t] {
			return
		}
		seen[t] = true
		terms = append(terms, t)
	}
	Compounds(text, func(c string, ws []string) {
		if len(ws) > 1 {
			add(c)
		}
		for _, w := range ws {
			add(w)
			if parts := SplitIdent(w); len(parts) > 1 {
				for _, p := range parts {
					add(p)
				}
			}
			CJKRuns(w, func(bigrams []string) {
				add(strings.Join(bigrams, " "))
				if len(bigrams) >= LongCJKRun {
					loose = append(loose, bigrams...)
				}
			})
		}
	})
	// A long run is more often a sentence (a question asked in Chinese)
	// than a phrase any text holds whole: its bigrams are asked for one
	// by one too, after every other term, so the cap drops them first.
	for _, b := range loose {
		add(b)
	}
	if len(terms) > max {
		sort.SliceStable(terms, func(i, j int) bool { return specificity(terms[i]) > specificity(terms[j]) })
		terms = terms[:max]
	}
	return terms
}

// specificity ranks query terms when there are too many: longer terms and
// terms with digits, '_' or connectors (identifiers, paths) first.
func specificity(t string) int {
	n := utf8.RuneCountInString(t)
	if strings.ContainsFunc(t, func(r rune) bool { return unicode.IsDigit(r) || r == '_' || IsConnector(r) }) {
		n += 4
	}
	return n
}

// IsIdentLike reports whether a raw word (a whitespace-separated token, its
// punctuation trimmed) looks like a specific identifier rather than prose:
// a path, a dotted or snake_case name, camelCase, a flag, or letters mixed
// with digits.
func IsIdentLike(w string) bool {
	if len(w) < 3 {
		return false
	}
	if strings.HasPrefix(w, "--") && len(w) > 3 {
		return true
	}
	var letter, digit, upperAfterLower, inner bool
	prevLower := false
	for i, r := range w {
		switch {
		case unicode.IsLetter(r):
			letter = true
			if unicode.IsUpper(r) && prevLower {
				upperAfterLower = true
			}
			prevLower = unicode.IsLower(r)
			continue
		case unicode.IsDigit(r):
			digit = true
		case r == '/' || r == '_' || r == '.' || r == ':':
			if i > 0 && i < len(w)-1 {
				inner = true
			}
		}
		prevLower = false
	}
	return upperAfterLower || inner && letter || letter && digit
}
