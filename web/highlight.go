package web

import (
	"strings"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/internal/tokenize"
)

// segment is a run of text, marked when it matches a query term. The
// template escapes Text; highlighting never builds HTML itself.
type segment struct {
	Text string
	Mark bool
}

// queryTerms are the lowercased words of a query, as the full-text index
// splits them.
func queryTerms(q string) map[string]bool {
	terms := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !tokenize.IsWordRune(r) }) {
		lw := strings.ToLower(w)
		terms[lw] = true
		for _, p := range tokenize.SplitIdent(w) {
			terms[strings.ToLower(p)] = true
		}
	}
	return terms
}

// highlight splits text into segments, marking each word that equals a
// term, or whose identifier parts (parseHTTPResponse → parse, HTTP,
// Response) hold one: the words the index matched.
func highlight(text string, terms map[string]bool) []segment {
	var out []segment
	plain := 0 // start of the pending unmarked run
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !tokenize.IsWordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !tokenize.IsWordRune(r) {
				break
			}
			j += n
		}
		if matches(text[i:j], terms) {
			if plain < i {
				out = append(out, segment{Text: text[plain:i]})
			}
			out = append(out, segment{Text: text[i:j], Mark: true})
			plain = j
		}
		i = j
	}
	if plain < len(text) {
		out = append(out, segment{Text: text[plain:]})
	}
	return out
}

func matches(w string, terms map[string]bool) bool {
	if terms[strings.ToLower(w)] {
		return true
	}
	if !tokenize.IsCompound(w) {
		return false
	}
	for _, p := range tokenize.SplitIdent(w) {
		if terms[strings.ToLower(p)] {
			return true
		}
	}
	return false
}
