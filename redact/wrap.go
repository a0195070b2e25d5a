package redact

// Secrets wrapped across lines: a JWT folded at 50 columns, a key's value
// split after a few characters, a token wrapped by a terminal or by fold.
// A token's run of characters that ends at a line break goes on at the
// next line's start when the lines look folded: lines as wide as the
// first (from its start), then a shorter last one that ends its line.

// fold is the state of a folded run: where the current line starts, and
// the fold's width (0 until the first break sets it).
type fold struct {
	ls, w int
	done  bool // a last, shorter line was joined: no further break is
}

// lineBreakAt returns the start of the next line when a line break
// ("\n", "\r\n", or an escaped "\n" in a text holding JSON) is at e.
func lineBreakAt(s string, e int) (int, bool) {
	switch {
	case e < len(s) && s[e] == '\n':
		return e + 1, true
	case e+1 < len(s) && s[e] == '\r' && s[e+1] == '\n':
		return e + 2, true
	case e+1 < len(s) && s[e] == '\\' && s[e+1] == 'n' && (e == 0 || s[e-1] != '\\'):
		return e + 2, true
	}
	return e, false
}

// lineStartOf returns where the line holding i starts (looking back at
// most 4 KB).
func lineStartOf(s string, i int) int {
	k := i
	for k > 0 && i-k < 4096 && s[k-1] != '\n' && !(k >= 2 && s[k-2] == '\\' && s[k-1] == 'n') {
		k--
	}
	return k
}

// minFold is the narrowest fold joined.
const minFold = 8

// foldedEnd returns where a run of cs that ends at e (at a line break)
// ends when its lines are folded; breaks counts the bytes of the line
// breaks inside. need: the run is no secret without a continuation (a
// token shorter than its kind's minimum, a JWT without its parts), so that
// its last line may be of any width; otherwise the last line must look
// like a token's tail and the fold be a terminal's (40 columns or more).
func (sc *scan) foldedEnd(e int, f *fold, cs *charset, need bool) (end, breaks int) {
	return sc.foldedLines(e, f, cs, need, 1024)
}

// foldedLines is foldedEnd over at most max further lines.
func (sc *scan) foldedLines(e int, f *fold, cs *charset, need bool, max int) (end, breaks int) {
	s := sc.s
	for lines := 0; lines < max && !f.done; lines++ {
		n, ok := lineBreakAt(s, e)
		if !ok {
			break
		}
		// The first line may hold more than the token (a prompt, a key):
		// the fold's width is the first line's or, when the token's
		// second line is full, the second's.
		first := f.w == 0
		if first {
			f.w = e - f.ls
		} else if e-f.ls != f.w {
			break
		}
		r := sc.run(n, cs, maxLong)
		p := r - n
		if p == 0 {
			break
		}
		_, eol := lineBreakAt(s, r)
		ends := eol || r == len(s) || quoteLen(s, r) > 0
		switch {
		case eol && (p == f.w || first && p >= minFold && p < f.w):
			f.w = p
		case ends && (need || f.w >= 40 && tailLike(s[n:r], "")):
			f.done = true
		default:
			return e, breaks
		}
		breaks += n - e
		e, f.ls = r, n
	}
	return e, breaks
}

// unfold returns s[a:b] without its line breaks.
func unfold(s string, a, b int) string {
	out := make([]byte, 0, b-a)
	for k := a; k < b; {
		if n, ok := lineBreakAt(s, k); ok {
			k = n
			continue
		}
		out = append(out, s[k])
		k++
	}
	return string(out)
}

// atLineStart reports whether a line starts at k: the text's start, a
// line break (also an escaped one) or the quote of a JSON string before
// it.
func atLineStart(s string, k int) bool {
	return k == 0 || s[k-1] == '\n' || s[k-1] == '"' || k >= 2 && s[k-2] == '\\' && s[k-1] == 'n'
}
