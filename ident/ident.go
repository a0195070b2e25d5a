// Package ident finds the specific identifiers in a text: paths, names with
// digits or underscores, ids, values and long names — the details a
// session types into its tool calls and that a compaction summary tends to
// drop. `carryover bench needed` measures a restore by them, and the
// restore's working set is built from them.
package ident

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// stopwords are common English words long enough to be tokens; made on
// first use rather than by every process that links the package.
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`about above across actually after again against almost already although always among
		another anyone anything around because become before behind being believe below besides better between beyond
		cannot change during either enough especially everything example except finally following further however
		instead itself little might myself neither nothing number others otherwise perhaps please probably rather really
		second should simply something sometimes statement though through together toward towards under unless until
		usually whatever whether which within without would yourself`) {
		m[w] = true
	}
	return m
})

// All returns the identifiers of text in order, repeats included: tokens
// that are not a plain lowercase word, a capitalised word, a number of
// four digits or fewer, or a common English word.
func All(text string) []string {
	var out []string
	for _, loc := range tokens(text) {
		if t := text[loc[0]:loc[1]]; isIdent(t) {
			out = append(out, t)
		}
	}
	return out
}

// Rooted is All, but an identifier that follows a slash keeps it: an
// absolute path stays absolute ("/home/u/x.go", which All gives as
// "home/u/x.go"), so that it can be shown relative to a project root.
func Rooted(text string) []string {
	var out []string
	for _, loc := range tokens(text) {
		t := text[loc[0]:loc[1]]
		if !isIdent(t) {
			continue
		}
		if loc[0] > 0 && text[loc[0]-1] == '/' {
			t = "/" + t
		}
		out = append(out, t)
	}
	return out
}

// tokens returns where the candidate identifiers of text are: runs of 6
// or more characters that start and end with a letter, digit or
// underscore (or start with ~), with path, URL and assignment punctuation
// inside. They are the matches of the expression
// [A-Za-z0-9_~][A-Za-z0-9_./:@#=+-]{4,}[A-Za-z0-9_], found in one pass
// (FuzzTokens compares them): the expression's backtracking over every
// tool input was most of chunking a session.
// A match starts at a byte of its first class; its middle is the run of
// middle-class bytes after it, given back to the last byte that may end
// a match (at least five bytes from the start). When none may, no start
// inside that run has a match either (its matches would end inside it
// too), and the search goes on where the run ends.
func tokens(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		if !tokenFirst(text[i]) {
			i++
			continue
		}
		r := i + 1
		for r < len(text) && tokenMiddle(text[r]) {
			r++
		}
		j := r - 1
		for j >= i+5 && !tokenLast(text[j]) {
			j--
		}
		if j < i+5 {
			i = max(r, i+1)
			continue
		}
		out = append(out, [2]int{i, j + 1})
		i = j + 1
	}
	return out
}

// The classes of token: its first byte, its middle and its last byte.
func tokenLast(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func tokenFirst(c byte) bool { return tokenLast(c) || c == '~' }

func tokenMiddle(c byte) bool {
	return tokenLast(c) || strings.IndexByte("./:@#=+-", c) >= 0
}

func isIdent(t string) bool {
	lower, capital, digits := true, true, true
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c < 'a' || c > 'z' {
			lower = false
		}
		if i == 0 && (c < 'A' || c > 'Z') || i > 0 && (c < 'a' || c > 'z') {
			capital = false
		}
		if c < '0' || c > '9' {
			digits = false
		}
	}
	switch {
	case lower, capital:
		return false
	case digits && len(t) <= 4:
		return false
	case stopwords()[strings.ToLower(t)]:
		return false
	}
	return true
}

// Specific reports whether an identifier is specific enough to be worth
// remembering: a path (a slash and 8 characters or more), an id or value
// with a digit (6 or more), a name with two underscores or more, or
// anything of 14 characters or more — and not boilerplate every commit or
// tool carries.
func Specific(t string) bool {
	if Boilerplate(t) {
		return false
	}
	switch {
	case strings.Contains(t, "/") && len(t) >= 8:
		return true
	case strings.ContainsAny(t, "0123456789") && len(t) >= 6:
		return true
	case strings.Count(t, "_") >= 2:
		return true
	}
	return len(t) >= 14
}

// Boilerplate reports identifiers every session carries: co-author lines,
// redaction placeholders, /dev/null.
func Boilerplate(t string) bool {
	l := strings.ToLower(t)
	switch {
	case strings.Contains(l, "dev/null"),
		strings.HasPrefix(l, "redacted"), strings.Contains(l, "redacted:"),
		strings.Contains(l, "noreply@anthropic.com"), strings.Contains(l, "co-authored-by"),
		strings.Contains(l, "claude.com/claude-code"), strings.Contains(l, "claude.ai/code"):
		return true
	}
	return false
}

// Specifics returns the specific identifiers of text, in order of first
// appearance, each once.
func Specifics(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range All(text) {
		if !seen[t] && Specific(t) {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// InputStrings returns every string value of a tool call's JSON input, in
// order, recursively: what the model typed.
func InputStrings(input json.RawMessage) []string {
	var out []string
	for _, v := range InputValues(input) {
		out = append(out, v.Text)
	}
	return out
}

// An InputValue is a string value of a tool call's input and where it is:
// under which object key, and whether that object is the input itself
// (Write's content is; a todo's content is not).
type InputValue struct {
	Key  string
	Top  bool
	Text string
}

// InputValues returns every string value of a tool call's JSON input, in
// order, recursively, with the key it is under.
func InputValues(input json.RawMessage) []InputValue {
	var v any
	if len(input) == 0 || json.Unmarshal(input, &v) != nil {
		return nil
	}
	var out []InputValue
	// top: v is a value of the input object itself.
	var walk func(v any, key string, top, root bool)
	walk = func(v any, key string, top, root bool) {
		switch x := v.(type) {
		case string:
			out = append(out, InputValue{Key: key, Top: top, Text: x})
		case []any:
			for _, e := range x {
				walk(e, key, false, false)
			}
		case map[string]any:
			// Map order is random: inputs are walked in key order so that
			// the result is deterministic.
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(x[k], k, root, false)
			}
		}
	}
	walk(v, "", false, true)
	return out
}
