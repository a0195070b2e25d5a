package sqlite

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The FTS tokenizer (unicode61, tokenchars '_') keeps letters, digits and
// '_' together, so snake_case and camelCase identifiers are single tokens
// and paths split at '/' and '.'. What it cannot do is find the parts of an
// identifier: indexTerms supplies those in the chunk's terms column, and
// queryTerms asks for both the whole word and its parts.

// maxQueryTerms caps the terms of one query: every term costs a walk over
// its posting list, and pasted text can hold thousands.
const maxQueryTerms = 24

// isWordRune reports whether r belongs to a token, as the FTS tokenizer sees
// it (marks included, so scripts with combining signs stay whole; the
// tokenizer drops them itself).
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.IsNumber(r)
}

// isConnector reports whether r joins words into a compound worth matching
// as a phrase: paths, file names, versions, kebab-case.
func isConnector(r rune) bool {
	return r == '.' || r == '/' || r == '-' || r == '\\' || r == ':'
}

// splitIdent splits an identifier at underscores and case changes:
// "parseHTTPResponse_v2" → parse, HTTP, Response, v2. Digits stay with the
// letters before them.
func splitIdent(w string) []string {
	if !compound(w) {
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

// compound reports whether w may split into parts: it holds an underscore
// or an upper-case letter after its first rune. Most words of prose do not.
func compound(w string) bool {
	for i, r := range w {
		if r == '_' || i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// words calls fn for every maximal run of word runes in s.
func words(s string, fn func(w string)) {
	start := -1
	for i, r := range s {
		if isWordRune(r) {
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

// indexTerms returns the extra search terms of a chunk: the lowercased parts
// of every compound identifier (fooBar, foo_bar), each once, and the
// NFKC form of words that NFKC changes (ﬁle → file). Whole identifiers are
// already indexed from their own columns.
func indexTerms(fields ...string) string {
	seen := make(map[string]bool)
	var out []string
	add := func(t string) {
		if utf8.RuneCountInString(t) < 2 {
			return
		}
		t = strings.ToLower(t)
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, f := range fields {
		normal := norm.NFKC.IsNormalString(f)
		if !normal {
			f = norm.NFKC.String(f)
		}
		words(f, func(w string) {
			if !normal {
				add(w)
			}
			if parts := splitIdent(w); len(parts) > 1 {
				for _, p := range parts {
					add(p)
				}
			}
		})
	}
	return strings.Join(out, " ")
}

// queryTerms turns any text into FTS5 query terms that cannot be a syntax
// error: NFKC-normalised, split into words and identifier parts, stopwords
// and one-character tokens dropped, each term double-quoted. Words joined by
// connectors (src/app/main.go, foo-bar, v1.2) are also kept whole, as a
// quoted phrase. At most maxQueryTerms terms are kept, the most
// specific-looking ones. It returns nothing when nothing searchable is left.
func queryTerms(text string) []string {
	text = norm.NFKC.String(text)
	seen := make(map[string]bool)
	var terms []string
	add := func(t string) {
		t = strings.ToLower(t)
		if utf8.RuneCountInString(t) < 2 || stopwords[t] || seen[t] {
			return
		}
		seen[t] = true
		terms = append(terms, t)
	}
	word := func(w string) {
		add(w)
		if parts := splitIdent(w); len(parts) > 1 {
			for _, p := range parts {
				add(p)
			}
		}
	}
	compounds(text, func(c string, ws []string) {
		if len(ws) > 1 {
			add(c)
		}
		for _, w := range ws {
			word(w)
		}
	})
	if len(terms) > maxQueryTerms {
		sort.SliceStable(terms, func(i, j int) bool { return specificity(terms[i]) > specificity(terms[j]) })
		terms = terms[:maxQueryTerms]
	}
	for i, t := range terms {
		terms[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return terms
}

// compounds calls fn for every run of words joined by single connectors,
// with the run's text and its words: "see src/app/main.go." yields "see"
// and "src/app/main.go" (without the final period).
func compounds(s string, fn func(c string, ws []string)) {
	var ws []string
	start, end := -1, -1 // byte range of the current compound
	wstart := -1         // start of the current word
	flush := func() {
		if len(ws) > 0 {
			fn(s[start:end], ws)
		}
		ws, start, end = nil, -1, -1
	}
	prevConnector := false
	for i, r := range s {
		if isWordRune(r) {
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
		if isConnector(r) && !prevConnector && len(ws) > 0 && end == i {
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

// specificity ranks query terms when there are too many: longer terms and
// code-looking ones (digits, underscores, phrases) are rarer.
func specificity(t string) int {
	n := utf8.RuneCountInString(t)
	if strings.ContainsFunc(t, func(r rune) bool { return unicode.IsDigit(r) || r == '_' || isConnector(r) }) {
		n += 4
	}
	return n
}

// stopwords are dropped from queries: they match most chunks and rank
// nothing.
var stopwords = map[string]bool{
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
