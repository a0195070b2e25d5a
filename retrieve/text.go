package retrieve

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/internal/tokenize"
)

// normSpace lowercases s and collapses every run of white space into one
// space, so that key strings compare regardless of layout.
func normSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		// ASCII, most of any text here, byte by byte; the rest by rune
		// (an invalid byte becomes U+FFFD, as ranging over s gives it).
		r, n := rune(s[i]), 1
		isSpace := r == ' ' || '\t' <= r && r <= '\r'
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
			isSpace = unicode.IsSpace(r)
		}
		i += n
		if isSpace {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		switch {
		case 'A' <= r && r <= 'Z':
			b.WriteByte(byte(r) + 'a' - 'A')
		case r < utf8.RuneSelf:
			b.WriteByte(byte(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// oneLine collapses white space (newlines included) into single spaces,
// keeping case.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip returns s cut to at most n bytes on a rune boundary, ending in "…"
// when something was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ell = "…"
	if n < len(ell) {
		return ""
	}
	cut := n - len(ell)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + ell
}

// lowerASCII lowercases ASCII letters only, so byte offsets in the result
// are offsets in s.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf
}

// containsBounded reports whether needle occurs in hay such that a needle
// starting (ending) with a word character is not glued to another word
// character: "a.go" is not found in "data.go". Both are expected to be
// normalised already.
func containsBounded(hay, needle string) bool {
	if needle == "" {
		return false
	}
	from := 0
	for {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(needle)
		okStart := i == 0 || !isWordByte(needle[0]) || !isWordByte(hay[i-1])
		okEnd := j == len(hay) || !isWordByte(needle[len(needle)-1]) || !isWordByte(hay[j])
		if okStart && okEnd {
			return true
		}
		from = i + 1
	}
}

// words splits s into its words (tokenize.Words).
func words(s string) []string { return tokenize.Words(s) }

// specificity counts the distinct rare-looking tokens of s (paths, dotted
// or snake_case names, camelCase, flags, numbers), capped at max.
func specificity(s string, limit int) int {
	var seen []string // a handful at most: a slice beats a map
	for f := range strings.FieldsSeq(s) {
		f = strings.Trim(f, "`'\"()[]{},;")
		if (tokenize.IsIdentLike(f) || isNumber(f)) && !slices.Contains(seen, f) {
			seen = append(seen, f)
			if len(seen) >= limit {
				break
			}
		}
	}
	return len(seen)
}

func isNumber(s string) bool {
	if len(s) < 2 {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '.' {
			return false
		}
	}
	return true
}

// term is one query term to look for in chunk texts.
type term struct {
	text   string  // lowercase (ASCII) form searched for
	weight float64 // informativeness
	base   bool    // a whole word of the query (not a camelCase part or a raw identifier)
	rare   bool    // identifier-like: a path, camelCase, snake_case, dotted name, flag
	// shape, set on the one term answerTerm adds (whose text is empty),
	// makes the term match any token of that shape: it places windows,
	// and no line holds it for any other count (hasTerm).
	shape answerShape
}

// answerShape is what a question's answer looks like when its words say
// so: "what is the commit hash of …" wants a hex hash, "how many tests …"
// a number. A window that holds such a token beside the question's words
// is more likely the answer than one that only repeats them.
type answerShape int

const (
	noShape answerShape = iota
	hashShape
	numberShape
)

// shapeCues are the phrases that ask for each shape, in lower case.
var shapeCues = []struct {
	shape answerShape
	cues  []string
}{
	{hashShape, []string{"commit hash", "hash of", "sha of", "commit id", "commit sha", "which commit", "what commit", "revision"}},
	{numberShape, []string{"how many", "how much", "how long", "how often", "what port", "which port", "what number", "number of", "what version", "which version", "count of"}},
}

// shapeOf returns the shape of the answer a query asks for.
func shapeOf(q string) answerShape {
	low := " " + strings.Join(strings.Fields(strings.ToLower(q)), " ") + " "
	for _, c := range shapeCues {
		for _, cue := range c.cues {
			if strings.Contains(low, " "+cue+" ") {
				return c.shape
			}
		}
	}
	return noShape
}

// answerTerm returns terms with, for a query that asks for a hash or a
// number, a term that any token of that shape matches, weighing what the
// query's terms weigh on average: windows (not the ranking, nor any
// threshold) take it into account.
func answerTerm(q string, terms []term) []term {
	sh := shapeOf(q)
	if sh == noShape || len(terms) == 0 {
		return terms
	}
	w := 0.0
	for _, t := range terms {
		w += t.weight
	}
	return append(slices.Clip(terms), term{weight: w / float64(len(terms)), shape: sh})
}

// shapeTokens returns the spans [start, end) of lower's tokens of shape
// sh, at most max: hex hashes of 7 to 40 digits with a letter and a
// digit, or numbers.
func shapeTokens(lower string, sh answerShape, max int) [][2]int {
	var out [][2]int
	for i := 0; i < len(lower) && len(out) < max; {
		if !isAlnum(lower[i]) {
			i++
			continue
		}
		j := i
		for j < len(lower) && isAlnum(lower[j]) {
			j++
		}
		tok := lower[i:j]
		switch sh {
		case hashShape:
			if len(tok) >= 7 && len(tok) <= 40 && isHexToken(tok) {
				out = append(out, [2]int{i, j})
			}
		case numberShape:
			if strings.Trim(tok, "0123456789") == "" {
				out = append(out, [2]int{i, j})
			}
		}
		i = j
	}
	return out
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// isHexToken reports whether tok is hex digits with both a letter and a
// digit, as a commit hash mostly is.
func isHexToken(tok string) bool {
	letter, digit := false, false
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f':
			letter = true
		default:
			return false
		}
	}
	return letter && digit
}

// queryTerms splits a query with package tokenize: raw identifier-like
// words ("config/test.exs", "SpotterWeb.Endpoint") are kept whole as rare
// terms, then every word and its camelCase/snake_case parts become terms.
// Stopwords and filler (tokenize.IsStopword, tokenize.IsFiller) and
// one-letter words are dropped: a prompt of filler recalls nothing.
func queryTerms(q string) []term {
	var terms []term
	seen := map[string]int{}
	add := func(t term) {
		if i, ok := seen[t.text]; ok {
			// The same text as a whole word and as a raw identifier:
			// keep the strongest reading of each flag.
			terms[i].base = terms[i].base || t.base
			terms[i].rare = terms[i].rare || t.rare
			terms[i].weight = max(terms[i].weight, t.weight)
			return
		}
		seen[t.text] = len(terms)
		terms = append(terms, t)
	}
	for raw := range strings.FieldsSeq(q) {
		raw = strings.Trim(raw, "`'\"()[]{},;:!?")
		raw = strings.TrimSuffix(raw, ".")
		if tokenize.IsIdentLike(raw) && hasWordOf(raw, 2) {
			add(term{text: lowerASCII(raw), weight: 3, rare: true})
		}
		for _, w := range words(raw) {
			lw := lowerASCII(w)
			if len(w) < 2 || skipWord(strings.ToLower(w)) {
				continue
			}
			rare := tokenize.IsIdentLike(w)
			// A long run of Han, Kana or Hangul is more often a sentence
			// (a question asked in Chinese) than a phrase a text holds:
			// its bigrams are its words, as the stores query them, and
			// the run itself only places a window.
			var bigrams []string
			tokenize.CJKRuns(w, func(bs []string) {
				if len(bs) >= tokenize.LongCJKRun {
					bigrams = append(bigrams, bs...)
				}
			})
			add(term{text: lw, weight: termWeight(lw, rare), base: len(bigrams) == 0, rare: rare})
			for _, b := range bigrams {
				add(term{text: b, weight: termWeight(b, false) / 2, base: true})
			}
			parts := tokenize.SplitIdent(w)
			if len(parts) < 2 {
				continue
			}
			for _, p := range parts {
				lp := lowerASCII(p)
				if len(lp) < 3 || skipWord(strings.ToLower(p)) {
					continue
				}
				add(term{text: lp, weight: termWeight(lp, false) / 2})
			}
		}
	}
	return terms
}

// skipWord reports whether a lowercased word of a prompt says nothing
// about what to look up.
func skipWord(w string) bool { return tokenize.IsStopword(w) || tokenize.IsFiller(w) }

// termWeight favours long and identifier-like terms: "secret_key_base"
// says more than "key".
func termWeight(t string, rare bool) float64 {
	w := 1 + float64(min(len(t), 12))/6
	if rare {
		w *= 1.5
	}
	return w
}

// hasWordOf reports whether s has a word of at least n bytes.
func hasWordOf(s string, n int) bool {
	for _, w := range words(s) {
		if len(w) >= n {
			return true
		}
	}
	return false
}
