package tokenize

import "sort"

//go:generate go run gen_fts_tables.go

// The SQLite store's full-text index tokenizes with FTS5's "porter
// unicode61 remove_diacritics 2 tokenchars '_'". FTS reproduces it, token
// for token, so that a store without FTS5 (PostgreSQL) indexes the same
// tokens and computes the same BM25. Beyond ASCII, which code points start,
// continue or separate tokens and what they fold to is SQLite's own
// (older) reading of Unicode, recorded in fts_tables.go by asking the
// SQLite carryover links; TestFTSMatchesIndex in package sqlite checks the
// whole of it, and the stemmer, against that SQLite.

// ftsMaxToken is the longest token FTS5 indexes, in bytes; longer ones are
// cut.
const ftsMaxToken = 32768

// Classes of the code points beyond ASCII in ftsClasses.
const (
	ftsStarts    = iota + 1 // a token character
	ftsContinues            // a diacritic: continues a token, folded away
)

type ftsRange struct {
	lo, hi rune
	class  uint8
}

type ftsFold struct {
	from, to rune
}

// ftsClass returns the class of a code point beyond ASCII (0: a
// separator).
func ftsClass(c rune) uint8 {
	i := sort.Search(len(ftsClasses), func(i int) bool { return ftsClasses[i].hi >= c })
	if i < len(ftsClasses) && ftsClasses[i].lo <= c {
		return ftsClasses[i].class
	}
	return 0
}

// ftsFoldRune returns what a code point beyond ASCII is indexed as: its
// lower case without diacritics, 0 when it is dropped.
func ftsFoldRune(c rune) rune {
	i := sort.Search(len(ftsFolds), func(i int) bool { return ftsFolds[i].from >= c })
	if i < len(ftsFolds) && ftsFolds[i].from == c {
		return ftsFolds[i].to
	}
	return c
}

// isASCIITokenChar reports whether an ASCII byte is part of a token:
// letters, digits and '_'.
func isASCIITokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// readRune decodes the code point at s[i:] the way SQLite reads UTF-8,
// which is lenient: a lone continuation byte is read as the code point of
// its value, a lead byte takes every continuation byte after it, and a
// result below 0x80, a surrogate, U+FFFE or U+FFFF reads as U+FFFD. It
// returns the code point and the index after it.
func readRune(s string, i int) (rune, int) {
	c := uint32(s[i])
	i++
	if c < 0xC0 {
		return rune(c), i
	}
	switch {
	case c < 0xE0:
		c &= 0x1F
	case c < 0xF0:
		c &= 0x0F
	case c < 0xF8:
		c &= 0x07
	case c < 0xFC:
		c &= 0x03
	case c < 0xFE:
		c &= 0x01
	default:
		c = 0
	}
	for i < len(s) && s[i]&0xC0 == 0x80 {
		c = c<<6 + uint32(s[i]&0x3F)
		i++
	}
	if c < 0x80 || c&0xFFFFF800 == 0xD800 || c&0xFFFFFFFE == 0xFFFE {
		c = 0xFFFD
	}
	return rune(c), i
}

// FTS calls fn with each token of text, in order, as the SQLite store's
// full-text index holds it: runs of letters, digits (and the rest of
// Unicode's L*, N* and Co, by SQLite's tables) and '_', lowercased,
// diacritics removed, then stemmed by FTS5's Porter stemmer. tok is only
// valid during the call. A token's position in its field is the number of
// calls before it.
func FTS(text string, fn func(tok []byte)) {
	var buf []byte
	stem := make([]byte, 0, porterMax+64)
	i := 0
	for i < len(text) {
		// Skip separators. A token that starts beyond ASCII starts with
		// c, already read.
		var c rune
		start, wide := false, false
		for i < len(text) {
			if b := text[i]; b < 0x80 {
				if isASCIITokenChar(b) {
					start = true
					break
				}
				i++
				continue
			}
			c, i = readRune(text, i)
			if ftsClass(c) == ftsStarts {
				start, wide = true, true
				break
			}
		}
		if !start {
			return
		}
		buf = buf[:0]
		if wide {
			if f := ftsFoldRune(c); f != 0 {
				buf = appendRune(buf, f)
			}
		}
		for i < len(text) {
			b := text[i]
			if b < 0x80 {
				if !isASCIITokenChar(b) {
					break
				}
				if 'A' <= b && b <= 'Z' {
					b += 'a' - 'A'
				}
				buf = append(buf, b)
				i++
				continue
			}
			c, next := readRune(text, i)
			if ftsClass(c) == 0 {
				i = next
				break
			}
			i = next
			if f := ftsFoldRune(c); f != 0 {
				buf = appendRune(buf, f)
			}
		}
		if len(buf) > ftsMaxToken {
			buf = buf[:ftsMaxToken]
		}
		fn(porterStem(stem[:0], buf))
	}
}

// FTSTokens returns the tokens FTS finds in text.
func FTSTokens(text string) []string {
	var out []string
	FTS(text, func(tok []byte) { out = append(out, string(tok)) })
	return out
}

// appendRune appends c to b in UTF-8, as SQLite writes it (a code point
// beyond U+10FFFF gets four bytes too).
func appendRune(b []byte, c rune) []byte {
	switch {
	case c < 0x80:
		return append(b, byte(c))
	case c < 0x800:
		return append(b, 0xC0+byte(c>>6&0x1F), 0x80+byte(c&0x3F))
	case c < 0x10000:
		return append(b, 0xE0+byte(c>>12&0x0F), 0x80+byte(c>>6&0x3F), 0x80+byte(c&0x3F))
	}
	return append(b, 0xF0+byte(c>>18&0x07), 0x80+byte(c>>12&0x3F), 0x80+byte(c>>6&0x3F), 0x80+byte(c&0x3F))
}
