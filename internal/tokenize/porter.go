package tokenize

import "bytes"

// porterMax is the longest token, in bytes, FTS5's porter tokenizer stems;
// longer tokens, and tokens shorter than 3 bytes, pass unchanged.
const porterMax = 64

// porterStem stems a folded token as FTS5's porter tokenizer does (M. F.
// Porter's 1980 algorithm), into dst, and returns the stem. It works on
// bytes: a byte beyond ASCII is a consonant, and a suffix is only ever
// ASCII.
func porterStem(dst, tok []byte) []byte {
	if len(tok) < 3 || len(tok) > porterMax {
		return append(dst, tok...)
	}
	w := &porterWord{append(dst, tok...)}
	w.step1a()
	if w.step1b() {
		w.step1b2()
	}
	// Step 1c: a final y after a vowel in the stem becomes i.
	if w.last() == 'y' && hasVowel(w.b[:len(w.b)-1]) {
		w.b[len(w.b)-1] = 'i'
	}
	w.rules(step2, measureAbove0)
	w.rules(step3, measureAbove0)
	w.rules(step4, measureAbove1)
	// Step 5a: a final e goes when the stem is long enough.
	if w.last() == 'e' {
		s := w.b[:len(w.b)-1]
		if m := measure(s, 2); m > 1 || m == 1 && !endsCVC(s) {
			w.b = s
		}
	}
	// Step 5b: -ll becomes -l in a long stem.
	if len(w.b) > 1 && w.last() == 'l' && w.at(len(w.b)-2) == 'l' && measure(w.b[:len(w.b)-1], 2) > 1 {
		w.b = w.b[:len(w.b)-1]
	}
	return w.b
}

// porterWord is a word being stemmed.
type porterWord struct{ b []byte }

func (w *porterWord) last() byte { return w.at(len(w.b) - 1) }

// at returns the byte at i, 0 before the start (FTS5 reads the byte before
// its buffer there, which is 0).
func (w *porterWord) at(i int) byte {
	if i < 0 {
		return 0
	}
	return w.b[i]
}

// cut reports whether the word ends with suffix and has something before
// it.
func (w *porterWord) cut(suffix string) bool {
	return len(w.b) > len(suffix) && bytes.HasSuffix(w.b, []byte(suffix))
}

// replace replaces the last n bytes with to.
func (w *porterWord) replace(n int, to string) {
	w.b = append(w.b[:len(w.b)-n], to...)
}

// step1a: -sses → -ss, -ies → -i, -s → (nothing), except -ss.
func (w *porterWord) step1a() {
	n := len(w.b)
	if w.b[n-1] != 's' {
		return
	}
	switch {
	case w.b[n-2] == 'e' && (n > 4 && w.b[n-4] == 's' && w.b[n-3] == 's' || n > 3 && w.b[n-3] == 'i'):
		w.b = w.b[:n-2]
	case w.b[n-2] == 'e' || w.b[n-2] != 's':
		w.b = w.b[:n-1]
	}
}

// step1b: -eed → -ee when the stem's measure is above 0; -ed and -ing go
// when the stem has a vowel, and then it reports true.
func (w *porterWord) step1b() bool {
	switch {
	case w.cut("eed"):
		if measure(w.b[:len(w.b)-3], 1) > 0 {
			w.b = w.b[:len(w.b)-1]
		}
	case w.cut("ed"):
		if hasVowel(w.b[:len(w.b)-2]) {
			w.b = w.b[:len(w.b)-2]
			return true
		}
	case w.cut("ing"):
		if hasVowel(w.b[:len(w.b)-3]) {
			w.b = w.b[:len(w.b)-3]
			return true
		}
	}
	return false
}

// step1b2 tidies a stem step1b cut: -at, -bl, -iz get their e back; a
// double consonant but l, s or z is undoubled; a short cvc stem gets an e.
func (w *porterWord) step1b2() {
	for _, s := range []string{"at", "bl", "iz"} {
		if w.cut(s) {
			w.b = append(w.b, 'e')
			return
		}
	}
	c := w.last()
	switch {
	case !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == w.at(len(w.b)-2):
		w.b = w.b[:len(w.b)-1]
	case measure(w.b, 2) == 1 && endsCVC(w.b):
		w.b = append(w.b, 'e')
	}
}

// porterRule replaces a suffix when the stem before it passes the step's
// condition (and, with st, ends in s or t).
type porterRule struct {
	suffix, to string
	st         bool
}

// Only the first rule whose suffix the word ends with (with something
// before it) applies, whether or not its condition holds.
var (
	step2 = []porterRule{
		{"ational", "ate", false}, {"tional", "tion", false}, {"enci", "ence", false}, {"anci", "ance", false}, {"izer", "ize", false},
		{"logi", "log", false}, {"bli", "ble", false}, {"alli", "al", false}, {"entli", "ent", false}, {"eli", "e", false}, {"ousli", "ous", false},
		{"ization", "ize", false}, {"ation", "ate", false}, {"ator", "ate", false}, {"alism", "al", false}, {"iveness", "ive", false},
		{"fulness", "ful", false}, {"ousness", "ous", false}, {"aliti", "al", false}, {"iviti", "ive", false}, {"biliti", "ble", false},
	}
	step3 = []porterRule{
		{"ical", "ic", false}, {"ness", "", false}, {"icate", "ic", false}, {"iciti", "ic", false}, {"ful", "", false}, {"ative", "", false}, {"alize", "al", false},
	}
	step4 = []porterRule{
		{"al", "", false}, {"ance", "", false}, {"ence", "", false}, {"er", "", false}, {"ic", "", false}, {"able", "", false}, {"ible", "", false},
		{"ant", "", false}, {"ement", "", false}, {"ment", "", false}, {"ent", "", false}, {"ion", "", true}, {"ou", "", false}, {"ism", "", false},
		{"ate", "", false}, {"iti", "", false}, {"ous", "", false}, {"ive", "", false}, {"ize", "", false},
	}
)

func measureAbove0(stem []byte) bool { return measure(stem, 1) > 0 }

func measureAbove1(stem []byte) bool { return measure(stem, 2) > 1 }

// rules applies the first rule whose suffix matches, if cond holds for
// the stem before it.
func (w *porterWord) rules(rules []porterRule, cond func([]byte) bool) {
	for _, r := range rules {
		if !w.cut(r.suffix) {
			continue
		}
		stem := w.b[:len(w.b)-len(r.suffix)]
		ok := cond(stem)
		if r.st {
			ok = ok && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
		}
		if ok {
			w.replace(len(r.suffix), r.to)
		}
		return
	}
}

// isVowel reports whether c is a vowel: a, e, i, o, u, and y when yVowel
// (after a consonant).
func isVowel(c byte, yVowel bool) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	case 'y':
		return yVowel
	}
	return false
}

// measure returns the number of vowel-consonant sequences in s, [C](VC)^m[V],
// counting up to limit: a y after a consonant is a vowel.
func measure(s []byte, limit int) int {
	m := 0
	prevCons := false // at the start, y is a consonant
	inVowels := false
	for _, c := range s {
		cons := !isVowel(c, prevCons)
		if !cons {
			inVowels = true
		} else if inVowels {
			m++
			inVowels = false
			if m == limit {
				return m
			}
		}
		prevCons = cons
	}
	return m
}

// hasVowel reports whether s has a vowel, y counting as one anywhere but
// at the start (FTS5's reading of Porter's *v*).
func hasVowel(s []byte) bool {
	for i, c := range s {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

// endsCVC reports whether s ends consonant, vowel, consonant, the last not
// w, x or y (Porter's *o).
func endsCVC(s []byte) bool {
	n := len(s)
	if n < 3 {
		return false
	}
	if c := s[n-1]; c == 'w' || c == 'x' || c == 'y' {
		return false
	}
	cons := make([]bool, n)
	prev := false
	for i, c := range s {
		cons[i] = !isVowel(c, prev)
		prev = cons[i]
	}
	return cons[n-3] && !cons[n-2] && cons[n-1]
}

// Stem returns the Porter stem of a lowercase word, as the full-text
// index stems it.
func Stem(w string) string {
	return string(porterStem(nil, []byte(w)))
}
