package tokenize

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// IndexTerms returns the extra index terms of a text's fields, which a
// full-text index holds beside the fields themselves (one column, space
// separated): the lowercased parts of every compound identifier (fooBar,
// foo_bar), the NFKC form of words that NFKC changes (ﬁle → file), each
// once, and the bigrams of every run of Han, Kana or Hangul (CJKRuns), in
// order, once per distinct run, so that a query's phrase of bigrams finds
// them adjacent. Whole words are indexed from the fields themselves.
func IndexTerms(fields ...string) string {
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
	seenRun := make(map[string]bool)
	for _, f := range fields {
		// ASCII is its own NFKC form and holds no CJK: the checks below
		// cost more than the rest for the common text.
		ascii := isASCII(f)
		normal := ascii || norm.NFKC.IsNormalString(f)
		if !normal {
			f = norm.NFKC.String(f)
		}
		EachWord(f, func(w string) {
			if !normal {
				add(w)
			}
			// IsCompound first: SplitIdent would allocate to return w alone.
			if IsCompound(w) {
				if parts := SplitIdent(w); len(parts) > 1 {
					for _, p := range parts {
						add(p)
					}
				}
			}
			if ascii {
				return
			}
			CJKRuns(w, func(bigrams []string) {
				if run := strings.Join(bigrams, " "); !seenRun[run] {
					seenRun[run] = true
					out = append(out, run)
				}
			})
		})
	}
	return strings.Join(out, " ")
}
