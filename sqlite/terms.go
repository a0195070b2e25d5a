package sqlite

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/carryover-dev/carryover/internal/words"
)

// The FTS tokenizer (unicode61, tokenchars '_') keeps letters, digits and
// '_' together, so snake_case and camelCase identifiers are single tokens
// and paths split at '/' and '.'. What it cannot do is find the parts of an
// identifier: indexTerms supplies those in the chunk's terms column, and
// queryTerms asks for both the whole word and its parts.

// maxQueryTerms caps the terms of one query: every term costs a walk over
// its posting list, and pasted text can hold thousands.
const maxQueryTerms = 24

// indexTerms returns the extra search terms of a chunk: the lowercased parts
// of every words.IsCompound identifier (fooBar, foo_bar), each once, and the
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
		words.EachWord(f, func(w string) {
			if !normal {
				add(w)
			}
			if !words.IsCompound(w) {
				return // SplitIdent would allocate to return w alone
			}
			if parts := words.SplitIdent(w); len(parts) > 1 {
				for _, p := range parts {
					add(p)
				}
			}
		})
	}
	return strings.Join(out, " ")
}

// queryTerms turns any text into FTS5 query terms that cannot be a syntax
// error: NFKC-normalised, split into words and identifier parts, words.Stopwords
// and one-character tokens dropped, each term double-quoted. Words joined by
// connectors (src/app/main.go, foo-bar, v1.2) are also kept whole, as a
// quoted phrase. At most maxQueryTerms terms are kept, the most
// specific-looking ones. It returns nothing when nothing searchable is left.
func queryTerms(text string) []string {
	terms := words.QueryTerms(text, maxQueryTerms)
	for i, t := range terms {
		terms[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return terms
}
