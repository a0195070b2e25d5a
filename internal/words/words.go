// Package words splits text the way carryover's full-text index and its
// embedder both see it: runs of letters, digits and '_' are words,
// compound identifiers (camelCase, snake_case) also yield their parts, and
// words joined by connectors (paths, file names, versions, kebab-case) form
// compounds. One copy keeps the BM25 and the vector side of a hybrid search
// on the same words.
package words

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// IsWordRune reports whether r belongs to a token, as the FTS tokenizer sees
// it (marks included, so scripts with combining signs stay whole; the
// tokenizer drops them itself).
func IsWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.IsNumber(r)
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

// Stopwords are dropped from queries: they match most chunks and rank
// nothing.
var Stopwords = map[string]bool{
	"a": true, "about": true, "after": true, "again": true, "all": true, "also": true, "am": true, "an": true,
	"and": true, "any": true, "are": true, "as": true, "at": true, "be": true, "been": true, "before": true,
	"being": true, "both": true, "but": true, "by": true, "can": true, "could": true, "did": true, "do": true,
	"does": true, "doing": true, "done": true, "each": true, "for": true, "from": true, "had": true, "has": true,
	"have": true, "he": true, "her": true, "here": true, "him": true, "his": true, "how": true, "if": true,
	"in": true, "into": true, "is": true, "it": true, "its": true, "just": true, "me": true, "more": true,
	"most": true, "my": true, "no": true, "nor": true, "not": true, "now": true, "of": true, "off": true,
	"on": true, "once": true, "only": true, "or": true, "other": true, "our": true, "out": true, "over": true,
	"please": true, "same": true, "she": true, "should": true, "so": true, "some": true, "such": true,
	"than": true, "that": true, "the": true, "their": true, "them": true, "then": true, "there": true,
	"these": true, "they": true, "this": true, "those": true, "through": true, "to": true, "too": true,
	"under": true, "until": true, "up": true, "us": true, "very": true, "was": true, "we": true, "were": true,
	"what": true, "when": true, "where": true, "which": true, "while": true, "who": true, "whom": true,
	"why": true, "will": true, "with": true, "would": true, "you": true, "your": true, "yours": true,
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

// QueryTerms turns any text into search terms, the same for every store:
// NFKC-normalised, lowercased, split into words and identifier parts,
// Stopwords and one-character tokens dropped; runs of words joined by
// connectors (src/app/main.go, foo-bar, v1.2) are kept whole too, to be
// matched as phrases. At most max terms are kept (every term costs a walk
// over its posting list, and pasted text can hold thousands), the most
// specific-looking ones.
func QueryTerms(text string, max int) []string {
	text = norm.NFKC.String(text)
	seen := make(map[string]bool)
	var terms []string
	add := func(t string) {
		t = strings.ToLower(t)
		if utf8.RuneCountInString(t) < 2 || Stopwords[t] || seen[t] {
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
		}
	})
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
