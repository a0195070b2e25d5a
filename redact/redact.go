// Package redact masks secrets in text before carryover stores or injects
// it: cloud keys, API tokens, JWTs, private keys, passwords in URLs and
// headers, and high-entropy values assigned to secret-named keys.
//
// Detectors are value-shaped: a token's literal prefix and alphabet, a
// PEM block, a URL's userinfo, a key = value whose key names a secret and
// whose value looks random. Each secret becomes [REDACTED:<kind>] and the
// context around it (the key name, the URL's user and host, the header
// name) stays, so the text remains useful.
//
// It runs on every archived byte, so it is built for speed: one pass over
// the text dispatches on the first byte of each detector's literal prefix,
// and a detector's own checks run only where its prefix occurs.
package redact

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Pattern is an extra, user-supplied detector. When Re has a group named
// "secret", or else at least one group, only that group (the first) is
// masked; otherwise the whole match.
type Pattern struct {
	Kind string // the label's kind; "custom" when ""
	Re   *regexp.Regexp
}

// Options configure a Redactor.
type Options struct {
	// Extra detectors, run after the built-in ones.
	Extra []Pattern
}

// Redactor masks secrets. It is immutable and safe for concurrent use.
type Redactor struct {
	// byFirst lists the rules whose prefix starts with a byte (both cases
	// for case-insensitive rules).
	byFirst [256][]*rule
	// second holds, per first byte, the bytes that can follow it in a
	// prefix: most positions are rejected with two table lookups.
	second [256][4]uint64
	extra  []extraPattern
}

type extraPattern struct {
	kind    string
	re      *regexp.Regexp
	literal string // a literal prefix every match starts with, for a cheap pre-check
	group   int
}

// New returns a Redactor with the built-in detectors and opt.Extra.
func New(opt Options) *Redactor {
	r := &Redactor{}
	for _, ru := range builtinRules() {
		firsts := []byte{ru.prefix[0]}
		seconds := []byte{ru.prefix[1]}
		if ru.fold {
			firsts = append(firsts, upper(ru.prefix[0]))
			seconds = append(seconds, upper(ru.prefix[1]))
		}
		for k, c := range firsts {
			if k > 0 && c == firsts[0] {
				continue
			}
			r.byFirst[c] = append(r.byFirst[c], ru)
			for _, c2 := range seconds {
				r.second[c][c2>>6] |= 1 << (c2 & 63)
			}
		}
	}
	for _, p := range opt.Extra {
		if p.Re == nil {
			continue
		}
		e := extraPattern{kind: p.Kind, re: p.Re}
		if e.kind == "" {
			e.kind = "custom"
		}
		if lit, _ := p.Re.LiteralPrefix(); lit != "" {
			e.literal = lit
		}
		if i := p.Re.SubexpIndex("secret"); i > 0 {
			e.group = i
		} else if p.Re.NumSubexp() > 0 {
			e.group = 1
		}
		r.extra = append(r.extra, e)
	}
	return r
}

// Label is what a secret of a kind is replaced with.
func Label(kind string) string { return "[REDACTED:" + kind + "]" }

const labelPrefix = "[REDACTED:"

// maxPasses bounds the re-scans that make Redact idempotent: masking can
// create a context (a label's closing bracket before a token) in which a
// detector matches what it did not match before.
const maxPasses = 4

// Redact returns s with every secret found replaced by its label, and the
// number of secrets masked by kind (nil when none).
func (r *Redactor) Redact(s string) (string, map[string]int) {
	var counts map[string]int
	var spans []span
	for range maxPasses {
		spans = r.find(s, spans[:0])
		if len(spans) == 0 {
			break
		}
		if counts == nil {
			counts = map[string]int{}
		}
		s = apply(s, spans, counts)
	}
	return s, counts
}

// Contains reports whether s holds a secret Redact would mask.
func (r *Redactor) Contains(s string) bool {
	return len(r.find(s, nil)) > 0
}

// RedactJSON masks the secrets in the string values (and keys) of a JSON
// document, keeping it valid JSON. Text that holds no secret is returned
// as is; a document that does is re-encoded. Invalid JSON is masked as
// text.
func (r *Redactor) RedactJSON(raw []byte) ([]byte, map[string]int) {
	if len(raw) == 0 || !r.Contains(string(raw)) {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		out, counts := r.Redact(string(raw))
		return []byte(out), counts
	}
	counts := map[string]int{}
	v = r.walk(v, counts)
	if len(counts) == 0 {
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		out, c := r.Redact(string(raw))
		return []byte(out), c
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), counts
}

func (r *Redactor) walk(v any, counts map[string]int) any {
	switch x := v.(type) {
	case string:
		out, c := r.Redact(x)
		addCounts(counts, c)
		return out
	case []any:
		for i := range x {
			x[i] = r.walk(x[i], counts)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			k2, c := r.Redact(k)
			addCounts(counts, c)
			out[k2] = r.walk(e, counts)
		}
		return out
	}
	return v
}

func addCounts(dst, src map[string]int) {
	for k, n := range src {
		dst[k] += n
	}
}

// AddCounts adds src's counts to *dst, allocating it when needed.
func AddCounts(dst *map[string]int, src map[string]int) {
	if len(src) == 0 {
		return
	}
	if *dst == nil {
		*dst = map[string]int{}
	}
	addCounts(*dst, src)
}

// span is a secret found at s[start:end]; prio ranks overlapping finds
// (lower is more specific and names the kind).
type span struct {
	start, end int
	kind       string
	prio       int
}

// find appends the secrets in s to spans.
func (r *Redactor) find(s string, spans []span) []span {
	emit := func(sp span) {
		if sp.end > sp.start && !strings.HasPrefix(s[sp.start:], labelPrefix) {
			spans = append(spans, sp)
		}
	}
	var until map[*rule]int
	for i := 0; i+1 < len(s); i++ {
		c, c2 := s[i], s[i+1]
		if r.second[c][c2>>6]&(1<<(c2&63)) == 0 {
			continue
		}
		rules := r.byFirst[c]
		rest := s[i:]
		for _, ru := range rules {
			if len(rest) < len(ru.prefix) {
				continue
			}
			if ru.fold {
				if !hasPrefixFold(rest, ru.prefix) {
					continue
				}
			} else if rest[:len(ru.prefix)] != ru.prefix {
				continue
			}
			// A rule does not look again inside what it just found: a
			// text of repeated PEM headers stays linear.
			if i < until[ru] {
				continue
			}
			n := len(spans)
			skip := ru.match(s, i, ru, emit)
			if len(spans) > n {
				skip = max(skip, spans[len(spans)-1].end)
			}
			if skip > i {
				if until == nil {
					until = map[*rule]int{}
				}
				until[ru] = skip
			}
		}
	}
	for _, e := range r.extra {
		if e.literal != "" && !strings.Contains(s, e.literal) {
			continue
		}
		for _, m := range e.re.FindAllStringSubmatchIndex(s, -1) {
			a, b := m[0], m[1]
			if e.group > 0 {
				a, b = m[2*e.group], m[2*e.group+1]
			}
			if a >= 0 && b > a {
				emit(span{start: a, end: b, kind: e.kind, prio: prioCustom})
			}
		}
	}
	return spans
}

// apply replaces the spans (merged where they overlap) with their labels
// and counts them.
func apply(s string, spans []span, counts map[string]int) string {
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		j := i + 1
		for ; j < len(spans) && spans[j].start < cur.end; j++ {
			cur.end = max(cur.end, spans[j].end)
			if spans[j].prio < cur.prio {
				cur.kind, cur.prio = spans[j].kind, spans[j].prio
			}
		}
		b.WriteString(s[last:cur.start])
		b.WriteString(Label(cur.kind))
		counts[cur.kind]++
		last = cur.end
		i = j
	}
	b.WriteString(s[last:])
	return b.String()
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}

// hasPrefixFold reports whether s starts with prefix (lower-case ASCII),
// ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lower(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}
