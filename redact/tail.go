package redact

import (
	"slices"
	"strings"
)

// Tokens cut in two: a Bash output cut short, a file printed in parts.
// The first part ends a text and is recognised by its prefix; the rest
// starts a later text with nothing to recognise it by. When a secret runs
// to the very end of a text, a Stream notes its kind and the text's field
// (the JSON key of the string, "" for a plain text); the token characters
// that start a later text of the same field are masked as its tail when
// they look random rather than like a word. Fields keep the tail to its
// place: the next output (and its copy in the structured result), not the
// ids, times and names that come between.

// csTail is what a token's tail may hold: the tokens' alphabets, base64
// and a JWT's dots.
var csTail = newCharset("a-zA-Z0-9_.+/=-")

// tailTexts is how many texts of a noted field may come before the one
// that starts with the tail: the assistant's words and thoughts, the
// outputs of tools run alongside. Few: in a field of tool outputs, the
// next one that starts with random characters (a commit's hash) is taken
// for the tail.
const tailTexts = 8

// maxFields bounds the fields a Carry notes; maxFieldLen a field's name.
const (
	maxFields   = 8
	maxFieldLen = 32
)

// keyField is the field of a JSON object's key: a name, never a tail.
const keyField = "\x00key"

// cutBody is the least a token's body, cut by the end of a text before
// its rule's minimum length, must hold to be masked as the first part of
// a token: a shorter one shows little of the secret.
const cutBody = 8

// continueToken masks the start of the text when it continues a token an
// earlier text of the field ended with, and updates c. It runs after the
// detectors: the tail ends where a secret they found starts (a field that
// holds the same secret in every line, a branch name, is not a tail).
func (sc *scan) continueToken(c *Carry, field string) {
	if len(c.Tails) == 0 || sc.s == "" || field == keyField {
		return
	}
	at := slices.IndexFunc(c.Tails, func(t Tail) bool { return t.Field == field })
	if at < 0 {
		return
	}
	e := sc.run(0, csTail, maxToken)
	for _, sp := range sc.spans {
		e = min(e, sp.start)
	}
	// A new slice: a Carry returned earlier shares the old one.
	tails := slices.Clone(c.Tails)
	t := &tails[at]
	if tailLike(sc.s[:e], t.Kind) {
		sc.emit(span{start: 0, end: e, kind: t.Kind, prio: prioShape})
		// The field's tail is found: what starts its later texts is not
		// (a tail that runs to the end of this text is noted again).
		t.Left = 0
	} else {
		t.Left--
	}
	if t.Left <= 0 {
		tails = slices.Delete(tails, at, at+1)
	}
	c.Tails = tails
	if len(tails) == 0 {
		c.Tails = nil
	}
}

// noteCut notes in c a secret found that runs to the very end of the text
// (a whole private key ends with its END line: no tail follows it).
func (sc *scan) noteCut(c *Carry, field string) {
	n := len(sc.s)
	for _, sp := range sc.spans {
		if sp.end != n || sp.kind == genKind {
			continue // a generator's value is a whole line, not cut
		}
		if field == keyField || !fieldName(field) || strings.HasSuffix(sc.s, "-----") {
			return
		}
		// The field goes last; the one noted longest ago goes when there
		// are too many. A new slice: a Carry returned earlier shares the
		// old one.
		ts := make([]Tail, 0, maxFields)
		for _, t := range c.Tails {
			if t.Field != field {
				ts = append(ts, t)
			}
		}
		c.Tails = append(ts[max(0, len(ts)-maxFields+1):], Tail{Field: strings.Clone(field), Kind: sp.kind, Left: tailTexts})
		return
	}
}

// fieldName reports whether a JSON key may be noted in a Carry, which is
// saved as it is: a short name of letters and underscores, which no
// secret is.
func fieldName(f string) bool {
	if len(f) > maxFieldLen {
		return false
	}
	for i := 0; i < len(f); i++ {
		if c := f[i]; !isLowerByte(c) && !isUpperByte(c) && c != '_' {
			return false
		}
	}
	return true
}

// tailLike reports whether t, the token characters a text starts with,
// look like the rest of a token of the kind rather than a word, a number,
// a date or a path: letters and digits mixed, or a capital after a small
// letter. Only a JWT's tail starts with a dot; none with a slash (a
// base64 token cut right before one keeps its tail).
func tailLike(t, kind string) bool {
	if len(t) < 4 || t[0] == '/' || t[0] == '.' && kind != "jwt" {
		return false
	}
	letter, digit := false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case csDigit[c]:
			digit = true
		case isUpperByte(c):
			if i > 0 && isLowerByte(t[i-1]) {
				return true
			}
			letter = true
		case isLowerByte(c):
			letter = true
		}
	}
	return letter && digit
}
