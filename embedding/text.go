package embedding

import (
	"github.com/carryover-dev/carryover/internal/words"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer follows the store's full-text rules (sqlite/terms.go), so
// that the vector and the BM25 side of a hybrid search see the same words:
// NFKC, runs of letters, digits and '_' are words, words.IsCompound identifiers
// (camelCase, snake_case) also yield their parts, and words joined by
// connectors (paths, file names, kebab-case, versions) are also kept whole.

// analysis is what the features of a text are drawn from.
type analysis struct {
	tokens []string // content words and identifier parts, lowercased, in order
	wholes []string // whole words.IsCompound identifiers and connector-joined words.Compounds, lowercased
}

// analyze splits text into lowercased content tokens (words.Stopwords and
// one-rune tokens dropped) and the whole forms of its words.Compounds.
func analyze(text string) analysis {
	if !norm.NFKC.IsNormalString(text) {
		text = norm.NFKC.String(text)
	}
	var a analysis
	keep := func(t string) (string, bool) {
		t = strings.ToLower(t)
		return t, utf8.RuneCountInString(t) >= 2 && !words.Stopwords[t]
	}
	word := func(w string) {
		parts := words.SplitIdent(w)
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
	words.Compounds(text, func(c string, ws []string) {
		if len(ws) > 1 {
			a.wholes = append(a.wholes, strings.ToLower(c))
		}
		for _, w := range ws {
			word(w)
		}
	})
	return a
}
