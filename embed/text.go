package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer follows the store's full-text rules (sqlite/terms.go), so
// that the vector and the BM25 side of a hybrid search see the same words:
// NFKC, runs of letters, digits and '_' are words, compound identifiers
// (camelCase, snake_case) also yield their parts, and words joined by
// connectors (paths, file names, kebab-case, versions) are also kept whole.

// isWordRune reports whether r belongs to a word.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.IsNumber(r)
}

// isConnector reports whether r joins words into a compound: paths, file
// names, versions, kebab-case.
func isConnector(r rune) bool {
	return r == '.' || r == '/' || r == '-' || r == '\\' || r == ':'
}

// splitIdent splits an identifier at underscores and case changes:
// "parseHTTPResponse_v2" → parse, HTTP, Response, v2. A word that is not a
// compound comes back alone.
func splitIdent(w string) []string {
	if !compound(w) {
		return []string{w}
	}
	var parts []string
	for seg := range strings.SplitSeq(w, "_") {
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
// or an upper-case letter after its first rune.
func compound(w string) bool {
	for i, r := range w {
		if r == '_' || i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// analysis is what the features of a text are drawn from.
type analysis struct {
	tokens []string // content words and identifier parts, lowercased, in order
	wholes []string // whole compound identifiers and connector-joined compounds, lowercased
}

// analyze splits text into lowercased content tokens (stopwords and
// one-rune tokens dropped) and the whole forms of its compounds.
func analyze(text string) analysis {
	if !norm.NFKC.IsNormalString(text) {
		text = norm.NFKC.String(text)
	}
	var a analysis
	keep := func(t string) (string, bool) {
		t = strings.ToLower(t)
		return t, utf8.RuneCountInString(t) >= 2 && !stopwords[t]
	}
	word := func(w string) {
		parts := splitIdent(w)
		if len(parts) > 1 {
			if t, ok := keep(w); ok {
				a.wholes = append(a.wholes, t)
			}
		}
		for _, p := range parts {
			if t, ok := keep(p); ok {
				a.tokens = append(a.tokens, t)
			}
		}
	}
	compounds(text, func(c string, ws []string) {
		if len(ws) > 1 {
			a.wholes = append(a.wholes, strings.ToLower(c))
		}
		for _, w := range ws {
			word(w)
		}
	})
	return a
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

// stopwords carry no topic: without them a text's vector is dominated by
// the function words every text shares. (The same list the store drops
// from queries.)
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
