package embedding

import (
	"strings"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/internal/tokenize"

	"golang.org/x/text/unicode/norm"
)

// The words are package tokenize's, the full-text side's, so that the
// vector and the BM25 side of a hybrid search see the same words: NFKC,
// runs of letters, digits and '_' are words, compound identifiers
// (camelCase, snake_case) also yield their parts, and words joined by
// connectors (paths, file names, kebab-case, versions) are also kept whole.
// It drops tokenize's stopwords (with which the stored vectors were
// computed).

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
		return t, utf8.RuneCountInString(t) >= 2 && !tokenize.IsStopword(t)
	}
	word := func(w string) {
		parts := tokenize.SplitIdent(w)
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
	tokenize.Compounds(text, func(c string, ws []string) {
		if len(ws) > 1 {
			a.wholes = append(a.wholes, strings.ToLower(c))
		}
		for _, w := range ws {
			word(w)
		}
	})
	return a
}
