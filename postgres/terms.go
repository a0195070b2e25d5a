package postgres

import "github.com/carryover-dev/carryover/internal/tokenize"

// maxQueryTerms caps the terms of one query: every term costs a walk over
// its posting list, and pasted text can hold thousands.
const maxQueryTerms = 24

// queryTerms turns any text into search terms, the embedded store's
// (tokenize.QueryTerms): words, identifier parts and runs of words joined
// by connectors, each matched as the phrase of its index tokens.
func queryTerms(text string) []string {
	return tokenize.QueryTerms(text, maxQueryTerms)
}
