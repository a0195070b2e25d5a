package sqlite

import (
	"strings"

	"github.com/carryover-dev/carryover/internal/tokenize"
)

// The FTS tokenizer (unicode61, tokenchars '_') keeps letters, digits and
// '_' together, so snake_case and camelCase identifiers are single tokens
// and paths split at '/' and '.'. What it cannot do is find the parts of an
// identifier, or a word inside a run of Chinese or Japanese: indexTerms
// supplies the parts and the runs' bigrams in the chunk's terms column, and
// queryTerms asks for both the whole word and its parts or bigrams.

// maxQueryTerms caps the terms of one query: every term costs a walk over
// its posting list, and pasted text can hold thousands.
const maxQueryTerms = 24

// queryTerms turns any text into FTS5 query terms that cannot be a syntax
// error: NFKC-normalised, split into words and identifier parts, stopwords
// and one-character tokens dropped, each term double-quoted. Words joined by
// connectors (src/app/main.go, foo-bar, v1.2) are also kept whole, as a
// quoted phrase. At most maxQueryTerms terms are kept, the most
// specific-looking ones. It returns nothing when nothing searchable is left.
func queryTerms(text string) []string {
	terms := tokenize.QueryTerms(text, maxQueryTerms)
	for i, t := range terms {
		terms[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return terms
}
