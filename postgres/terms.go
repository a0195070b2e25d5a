package postgres

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/tokenize"
)

// PostgreSQL's text-search parser keeps paths, hosts and versions whole
// ("src/app/main.go" is one lexeme), so "main.go" would not find it. Both
// sides therefore see text the way the embedded store's tokenizer does:
// words (runs of letters, digits and '_') separated by spaces, which the
// 'simple' configuration only lowercases (it splits snake_case at '_' on
// both sides alike). Compound identifiers also contribute their parts
// (fooBar: foo, bar) to the lowest-weighted field, and a query asks for
// each word and, as a phrase, for each run of words joined by connectors.

// maxQueryTerms caps the terms of one query: every term costs a walk over
// its posting list, and pasted text can hold thousands.
const maxQueryTerms = 24

// plainWords returns s NFKC-normalised with every run of non-word runes
// replaced by one space.
func plainWords(s string) string {
	if !norm.NFKC.IsNormalString(s) {
		s = norm.NFKC.String(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if tokenize.IsWordRune(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}

// indexTexts returns the texts of a chunk's four weights, A to D: files,
// commands and errors; the prompt; the summary; the text and the parts of
// its compound identifiers.
func indexTexts(c carryover.Chunk) [4]string {
	var structured []string
	structured = append(structured, c.Files...)
	structured = append(structured, c.Commands...)
	structured = append(structured, c.Errors...)
	parts := identParts(c.Prompt, c.Summary, c.Text, strings.Join(structured, "\n"))
	return [4]string{
		plainWords(strings.Join(structured, "\n")),
		plainWords(c.Prompt),
		plainWords(c.Summary),
		plainWords(c.Text) + " " + parts,
	}
}

// identParts returns the lowercased parts of every compound identifier
// (fooBar, foo_bar) of the fields, each once.
func identParts(fields ...string) string {
	seen := make(map[string]bool)
	var out []string
	for _, f := range fields {
		if !norm.NFKC.IsNormalString(f) {
			f = norm.NFKC.String(f)
		}
		tokenize.EachWord(f, func(w string) {
			parts := tokenize.SplitIdent(w)
			if len(parts) < 2 {
				return
			}
			for _, p := range parts {
				p = strings.ToLower(p)
				if utf8.RuneCountInString(p) >= 2 && !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		})
	}
	return strings.Join(out, " ")
}

// queryTerms turns any text into search terms: NFKC-normalised, lowercased,
// split into words and identifier parts, tokenize.Stopwords and one-character
// tokens dropped; runs of words joined by connectors (src/app/main.go,
// foo-bar, v1.2) are kept whole too, to be matched as phrases. At most
// maxQueryTerms are kept, the most specific-looking ones. Each term is
// turned into a tsquery by phraseto_tsquery, which accepts any text.
func queryTerms(text string) []string {
	return tokenize.QueryTerms(text, maxQueryTerms)
}
