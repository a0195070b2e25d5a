package embedding

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/internal/tokenize"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer follows the store's full-text rules (sqlite/terms.go), so
// that the vector and the BM25 side of a hybrid search see the same words:
// NFKC, runs of letters, digits and '_' are words, tokenize.IsCompound identifiers
// (camelCase, snake_case) also yield their parts, and words joined by
// connectors (paths, file names, kebab-case, versions) are also kept whole.

// analysis is what the features of a text are drawn from.
type analysis struct {
	tokens []string // content words and identifier parts, lowercased, in order
	wholes []string // whole tokenize.IsCompound identifiers and connector-joined tokenize.Compounds, lowercased
	ws     []string // scratch: the words of one compound
	parts  []string // scratch: the parts of one identifier
}

// analyze splits text into lowercased content tokens (tokenize.Stopwords and
// one-rune tokens dropped) and the whole forms of its tokenize.Compounds.
func analyze(text string) analysis {
	var a analysis
	a.analyze(text)
	return a
}

// analyze fills a from text, reusing its memory. It gives what
// tokenize.Compounds and tokenize.SplitIdent give (analyze_test.go compares them)
// while allocating only for the tokens it must lowercase: every text of
// every chunk stored goes through it.
func (a *analysis) analyze(text string) {
	a.tokens, a.wholes = a.tokens[:0], a.wholes[:0]
	if !isASCII(text) && !norm.NFKC.IsNormalString(text) {
		text = norm.NFKC.String(text) // ASCII text is NFKC already
	}
	// tokenize.Compounds: runs of word runes joined by single connectors.
	ws := a.ws[:0]
	start, end := -1, -1 // byte range of the current compound
	wstart := -1         // start of the current word
	prevConnector := false
	flush := func() {
		if len(ws) > 0 {
			a.compound(text[start:end], ws)
		}
		ws, start, end = ws[:0], -1, -1
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		word := false
		if r < utf8.RuneSelf {
			word = asciiWord(byte(r))
		} else {
			r, size = utf8.DecodeRuneInString(text[i:])
			word = tokenize.IsWordRune(r)
		}
		if word {
			if wstart < 0 {
				wstart = i
				if start < 0 {
					start = i
				}
			}
			prevConnector = false
			i += size
			continue
		}
		if wstart >= 0 {
			ws = append(ws, text[wstart:i])
			end = i
			wstart = -1
		}
		if tokenize.IsConnector(r) && !prevConnector && len(ws) > 0 && end == i {
			prevConnector = true
			i += size
			continue
		}
		prevConnector = false
		flush()
		i += size
	}
	if wstart >= 0 {
		ws = append(ws, text[wstart:])
		end = len(text)
	}
	flush()
	a.ws = ws
}

// compound adds one compound c made of the words ws.
func (a *analysis) compound(c string, ws []string) {
	if len(ws) > 1 {
		a.wholes = append(a.wholes, strings.ToLower(c))
	}
	for _, w := range ws {
		if !tokenize.IsCompound(w) {
			a.keep(&a.tokens, w) // its only part: no need to split it
			continue
		}
		parts := splitIdent(w, a.parts[:0])
		a.parts = parts
		if len(parts) > 1 {
			a.keep(&a.wholes, w)
		}
		for _, p := range parts {
			a.keep(&a.tokens, p)
		}
	}
}

// splitIdent appends to parts what tokenize.SplitIdent returns for a compound
// word (split at '_', then at case changes), as substrings of w: a word
// holds no invalid UTF-8, so they are the bytes SplitIdent re-encodes.
func splitIdent(w string, parts []string) []string {
	for {
		seg, rest, more := strings.Cut(w, "_")
		parts = splitCase(seg, parts)
		if !more {
			return parts
		}
		w = rest
	}
}

// splitCase splits seg before an upper-case letter that follows a
// lower-case letter or a digit, and before the last capital of a run of
// capitals followed by a lower-case letter (HTTPResponse: HTTP, Response).
func splitCase(seg string, parts []string) []string {
	if seg == "" {
		return parts
	}
	start := 0
	prev, i := utf8.DecodeRuneInString(seg)
	for i < len(seg) {
		cur, n := utf8.DecodeRuneInString(seg[i:])
		split := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur)
		if !split && unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+n < len(seg) {
			next, _ := utf8.DecodeRuneInString(seg[i+n:])
			split = unicode.IsLower(next)
		}
		if split {
			parts = append(parts, seg[start:i])
			start = i
		}
		prev = cur
		i += n
	}
	return append(parts, seg[start:])
}

// keep appends t lowercased to *dst unless it is one rune or a stopword.
func (a *analysis) keep(dst *[]string, t string) {
	t = strings.ToLower(t) // allocates only when t has upper case
	if len(t) < 2 || len(t) <= maxStopword && tokenize.IsStopword(t) || utf8.RuneCountInString(t) < 2 {
		return
	}
	*dst = append(*dst, t)
}

// maxStopword is the length of the longest tokenize.Stopwords entry: longer
// tokens skip the map lookup (analyze_test.go checks it).
const maxStopword = 7

// asciiWord reports whether tokenize.IsWordRune accepts the ASCII byte c
// (analyze_test.go checks that it agrees).
func asciiWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// isASCII reports whether s is all ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64([]byte(s[i:i+8]))&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
