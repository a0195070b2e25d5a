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
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
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
	rules []*rule // the built-in detectors; a rule's idx is its index here
	// second holds, per first byte, the bytes that can follow it in a
	// prefix: most positions are rejected with two table lookups.
	second [256][4]uint64
	// byPair[byFirst[c]-1][c2] is 1 + the index in pairRules of the rules
	// whose prefix can start with the bytes c, c2 (0: none), in the order
	// of rules; byFirst[c] is 0 for a byte no prefix starts with. A byte
	// pair that passes second is the start of a prefix about once in ten:
	// what follows tries only the rules it can start. A row per first byte
	// rather than one for every pair: a table of all 65,536 pairs cost each
	// hook process 128 KB to clear.
	byFirst   [256]uint16
	byPair    [][256]uint16
	pairRules [][]*rule
	extra     []extraPattern
}

type extraPattern struct {
	kind    string
	re      *regexp.Regexp
	literal string // a literal prefix every match starts with, for a cheap pre-check
	group   int
}

// New returns a Redactor with the built-in detectors and opt.Extra.
func New(opt Options) *Redactor {
	r := &Redactor{rules: builtinRules()}
	// The byte pairs each rule's prefix can start with: the first bytes
	// are counted before their rows are made, a row being 512 bytes.
	pairs := make([][][2]byte, len(r.rules))
	rows := 0
	for n, ru := range r.rules {
		ru.idx = n
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
			for k2, c2 := range seconds {
				if k2 > 0 && c2 == seconds[0] {
					continue
				}
				pairs[n] = append(pairs[n], [2]byte{c, c2})
				if r.byFirst[c] == 0 {
					rows++
					r.byFirst[c] = uint16(rows)
				}
			}
		}
	}
	r.byPair = make([][256]uint16, rows)
	for n, ru := range r.rules {
		for _, p := range pairs[n] {
			c, c2 := p[0], p[1]
			r.second[c][c2>>6] |= 1 << (c2 & 63)
			row := &r.byPair[r.byFirst[c]-1]
			if row[c2] == 0 {
				r.pairRules = append(r.pairRules, nil)
				row[c2] = uint16(len(r.pairRules))
			}
			at := row[c2] - 1
			r.pairRules[at] = append(r.pairRules[at], ru)
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

// OmittedKind is the count's kind of a text replaced whole by
// [omitted: N bytes] because scanning it would have cost more than its
// budget: such a text is never kept unscanned.
const OmittedKind = "omitted"

// Omitted is what a text of n bytes is replaced with when it is omitted.
func Omitted(n int) string { return fmt.Sprintf("[omitted: %d bytes]", n) }

// maxPasses bounds the re-scans that make Redact idempotent: masking can
// create a context (a label's closing bracket before a token) in which a
// detector matches what it did not match before.
const maxPasses = 4

// The work budget of one text: the bytes the detectors may inspect beyond
// the one pass that looks for their prefixes, over all passes. Every
// detector is linear (each rule skips what it already scanned), so a real
// text uses a few bytes of work per byte; the budget is there so that no
// input, however made, costs more than a fixed multiple of its length.
const (
	workPerByte = 64
	workBase    = 256 << 10
)

// WorkBudget is the most work a text of n bytes may cost before it is
// omitted.
func WorkBudget(n int) int { return workPerByte*n + workBase }

// Redact returns s with every secret found replaced by its label, and the
// number of secrets masked by kind (nil when none).
func (r *Redactor) Redact(s string) (string, map[string]int) {
	out, counts, _ := r.redact(s, nil, "")
	return out, counts
}

// redact masks s and returns the work it cost; c, when not nil, is the
// state a Stream carries from one text to the next, and field is where s
// is for it: the JSON key of a string, "" for a plain text, keyField for a
// key itself.
func (r *Redactor) redact(s string, c *Carry, field string) (string, map[string]int, int) {
	return r.redactBudget(s, c, field, WorkBudget(len(s)))
}

func (r *Redactor) redactBudget(s string, c *Carry, field string, budget int) (string, map[string]int, int) {
	var counts map[string]int
	n := len(s)
	sc := scans.Get().(*scan)
	defer sc.release()
	sc.work, sc.budget = 0, budget
	// The first pass scans the whole text; the next ones only where a
	// label could have changed what a rule reads.
	windows := []window{{0, len(s)}}
	for pass := range maxPasses {
		sc.reset(s)
		if pass == 0 && c != nil {
			sc.continuePEM(c)
		}
		for _, w := range windows {
			sc.restart()
			if !r.find(sc, w.lo, w.hi) {
				if c != nil {
					*c = Carry{}
				}
				return Omitted(n), map[string]int{OmittedKind: 1}, sc.work
			}
		}
		r.findExtra(sc)
		if pass == 0 && c != nil {
			if sc.openPEM != "" {
				c.PEM, c.Left = sc.openPEM, carryTexts
			}
			sc.continueToken(c, field)
			sc.continueGen(c, field)
			sc.noteCut(c, field)
			if sc.genSeen || field == "command" && genCommand(s) {
				c.Gen, c.GenHashes = genTexts, nil
			}
		}
		if len(sc.spans) == 0 {
			break
		}
		if counts == nil {
			counts = map[string]int{}
		}
		s, windows = apply(s, sc.spans, counts, windows[:0])
	}
	return s, counts, sc.work
}

// window is a range of trigger positions to scan.
type window struct{ lo, hi int }

// How far a rule reads from where its prefix occurs: forward (a JWE's five
// parts) and backward (the body before a key's END line). A rule whose
// trigger is further than this from every label reads the same text as in
// the pass before, and finds nothing new.
const (
	reachAhead  = 4096 + 4*(1<<16+1)
	reachBehind = maxPEMBytes + 64
)

// Contains reports whether s holds a secret Redact would mask, or a
// command whose output a Stream masks in the texts after it.
func (r *Redactor) Contains(s string) bool {
	sc := scans.Get().(*scan)
	defer sc.release()
	sc.work, sc.budget = 0, WorkBudget(len(s))
	sc.reset(s)
	if !r.find(sc, 0, len(s)) {
		return true
	}
	r.findExtra(sc)
	return len(sc.spans) > 0 || sc.genSeen
}

// ContainsJSON reports whether RedactJSON would mask something in raw: a
// secret in a string of the document as decoded. Contains on the
// document's text is no answer: a JSON escape can hide a secret its
// decoded string shows (a user pattern for a line's start, or that spans
// a quote, meets "\n" and "\"" instead). It allocates nothing but a
// buffer for the escaped strings.
func (r *Redactor) ContainsJSON(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	s := unsafe.String(&raw[0], len(raw))
	if !validJSON(raw) {
		return r.Contains(s)
	}
	sc := scans.Get().(*scan)
	defer sc.release()
	buf := sc.dec[:0]
	defer func() { sc.dec = buf }()
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '"')
		if k < 0 {
			break
		}
		i += k
		// A valid document: the quote opens a string, which ends.
		end := jsonStringEnd(raw, i)
		text := s[i+1 : end-1]
		if strings.IndexByte(text, '\\') >= 0 {
			buf = appendUnquoteJSON(buf[:0], raw[i+1:end-1])
			text = bytesString(buf)
		}
		if bytes.HasSuffix(bytes.TrimRight(raw[:i], " "), []byte(`"command":`)) && genCommand(text) {
			return true // a Stream carries what the command prints
		}
		sc.work, sc.budget = 0, WorkBudget(len(text))
		sc.reset(text)
		if !r.find(sc, 0, len(text)) {
			return true // omitted
		}
		r.findExtra(sc)
		if len(sc.spans) > 0 || sc.genSeen {
			return true
		}
		i = end
	}
	return false
}

// RedactJSON masks the secrets in the string values (and keys) of a JSON
// document, keeping it valid JSON: each string is masked as text, in the
// order of the document, and only the strings that change are re-encoded
// (numbers, spacing and the other strings stay byte for byte). Invalid
// JSON is masked as text.
func (r *Redactor) RedactJSON(raw []byte) ([]byte, map[string]int) {
	return r.redactJSON(raw, nil)
}

func (r *Redactor) redactJSON(raw []byte, c *Carry) ([]byte, map[string]int) {
	if len(raw) == 0 {
		return raw, nil
	}
	if !validJSON(raw) {
		out, counts, _ := r.redact(string(raw), c, "")
		if counts == nil {
			return raw, nil
		}
		return []byte(out), counts
	}
	// Not copied: nothing here or in the masking keeps s, and raw is
	// not written while it is read. What changes is copied into out.
	s := unsafe.String(&raw[0], len(raw))
	var out []byte
	var counts map[string]int
	last := 0
	// field is the key of the strings that follow it, for a Stream's
	// tails; a key is a name.
	field := ""
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		// A valid document: every string closes, and a quote inside one
		// is escaped.
		j, esc := i+1, false
		for s[j] != '"' {
			if s[j] == '\\' {
				esc = true
				j++
			}
			j++
		}
		text := s[i+1 : j]
		if esc {
			text = unquoteJSON(raw[i+1 : j])
		}
		f := field
		if k := skipJSONSpace(raw, j+1); k < len(raw) && raw[k] == ':' {
			f, field = keyField, text
		}
		masked, cnt, _ := r.redact(text, c, f)
		if cnt != nil {
			if counts == nil {
				counts = map[string]int{}
			}
			addCounts(counts, cnt)
			out = append(out, s[last:i]...)
			out = appendJSONString(out, masked)
			last = j + 1
		}
		i = j
	}
	if out == nil {
		return raw, nil
	}
	return append(out, s[last:]...), counts
}

// appendJSONString appends s as a JSON string, without the HTML escaping
// of encoding/json (the text is not HTML, and < > & stay readable).
func appendJSONString(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		// The common case, in one pass: a tool's output of megabytes
		// costs milliseconds.
		dst = slices.Grow(dst, len(s)+2)
		dst = append(dst, '"')
		last := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 0x20 && c != '"' && c != '\\' {
				continue
			}
			dst = append(dst, s[last:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			}
			last = i + 1
		}
		dst = append(dst, s[last:]...)
		return append(dst, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return append(dst, `""`...) // a Go string always encodes; never reached
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

const hexDigits = "0123456789abcdef"

// Carry is what a Stream passes from one text to the next: a private key
// block that a text left open (a cat output cut in two, a file read in
// parts), which the texts after it may continue, and a token a text ended
// with, which may go on at the start of a later one. It is small and
// plain, holding no part of a secret, to be saved between runs (ingest
// keeps it with its cursor).
type Carry struct {
	PEM  string `json:"pem,omitempty"`  // the open block's kind; "" when none
	Left int    `json:"left,omitempty"` // further texts that may still continue it
	// Tails are the secrets texts ended with, whose tails later texts of
	// the same fields may start with.
	Tails []Tail `json:"tails,omitempty"`
	// Gen counts the further texts that may hold what a command that
	// generates secrets (openssl rand) printed.
	Gen int `json:"gen,omitempty"`
	// GenHashes are short hashes of the values the command printed, once
	// found: only their copies are masked after.
	GenHashes []string `json:"gen_hashes,omitempty"`
}

// Tail is a secret that ran to the end of a text: its kind, where the
// text was (its JSON key, "" for a plain text), and how many more texts
// of that field may come before the one its tail starts.
type Tail struct {
	Field string `json:"field"`
	Kind  string `json:"kind"`
	Left  int    `json:"left"`
}

// IsZero reports whether c carries nothing.
func (c Carry) IsZero() bool { return c.PEM == "" && len(c.Tails) == 0 && c.Gen == 0 }

// carryTexts is how many texts (of 16 bytes or more) after the one that
// left a key open may continue it: enough for the tool call, the
// assistant's text and the structured result between two outputs.
const carryTexts = 64

// Stream masks a sequence of texts that may continue one another, such as
// the fields of a transcript's entries in order: a private key begun in
// one text and continued in the next is masked in both, and so is a token
// cut in two. A Stream is not safe for concurrent use.
type Stream struct {
	r *Redactor
	c Carry
}

// Stream returns a Stream that starts from c (the zero Carry for a new
// sequence, or the Carry of an earlier Stream to resume it).
func (r *Redactor) Stream(c Carry) *Stream { return &Stream{r: r, c: c} }

// Redact masks the next text of the stream, as Redactor.Redact does, and
// also the continuation of a key an earlier text left open.
func (st *Stream) Redact(s string) (string, map[string]int) {
	out, counts, _ := st.r.redact(s, &st.c, "")
	return out, counts
}

// RedactJSON masks the strings of the next JSON document of the stream, in
// document order, as Redactor.RedactJSON does.
func (st *Stream) RedactJSON(raw []byte) ([]byte, map[string]int) {
	return st.r.redactJSON(raw, &st.c)
}

// ContinuingKey returns a Stream that reads its texts as the continuation
// of a private key an earlier text left open: for a text known to hold
// part of one (another reading of it found a secret) when the stream that
// read it had given the key up.
func (r *Redactor) ContinuingKey() *Stream {
	return r.Stream(Carry{PEM: "private-key", Left: carryTexts})
}

// Carry returns the state to resume the stream from later.
func (st *Stream) Carry() Carry { return st.c }

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

// Work charged beyond the bytes scanned: judging a candidate (placeholder,
// entropy and reference checks, decoding) and recording a secret (its
// label), so that work follows time.
const (
	judgeCost = 64
	spanCost  = 32
)

// scans keeps scan states for reuse: most texts are short, and their
// rules' state would otherwise be most of what masking them allocates.
var scans = sync.Pool{New: func() any { return new(scan) }}

// scan is the state of one pass over one text.
type scan struct {
	s     string
	spans []span
	// covered is the end of the furthest span found so far.
	covered int
	// until holds, per rule, the position before which it is not tried
	// again: a rule does not look again inside what it just scanned.
	until []int
	// untilSet: until holds a position to clear before the next window
	// (most texts set none, and clearing a slot per rule for each of a
	// transcript's many short strings showed in profiles).
	untilSet bool
	// work counts the bytes the rules inspected, against budget.
	work, budget int
	// openPEM is the kind of a private key block left open at the end of
	// the text ("" when none).
	openPEM string
	// The first "-----END " at or after endFrom is at endAt; endAt < 0:
	// there is none before endTo (endTo == 0: nothing searched yet).
	endFrom, endAt, endTo int
	// dsnLow is where the last DSN rule's backward scan may stop.
	dsnLow int
	// iniFrom is where the search for an INI [section] line goes on;
	// iniAt is the last one found (-1: none).
	iniFrom, iniAt int
	// cmdStart is where the command holding cmdAt starts.
	cmdStart, cmdAt int
	// genSeen: a command that generates secrets is in the text.
	genSeen bool
	// dec holds a JSON string decoded for ContainsJSON, kept for reuse.
	dec []byte
}

func (sc *scan) reset(s string) {
	sc.s, sc.spans, sc.openPEM, sc.genSeen = s, sc.spans[:0], "", false
	sc.restart()
}

// release puts sc back in the pool, without the text it held.
func (sc *scan) release() {
	sc.s = ""
	if cap(sc.spans) > 1<<12 {
		sc.spans = nil // a huge text's spans
	}
	if cap(sc.dec) > 1<<20 {
		sc.dec = nil
	}
	scans.Put(sc)
}

// restart clears what the rules remember of the positions they scanned,
// before a window of a later pass.
func (sc *scan) restart() {
	sc.covered, sc.endFrom, sc.endAt, sc.endTo, sc.dsnLow = 0, 0, -1, 0, 0
	sc.iniFrom, sc.iniAt, sc.cmdStart, sc.cmdAt = 0, -1, 0, 0
	if sc.untilSet {
		clear(sc.until)
		sc.untilSet = false
	}
}

// emit records a secret, unless it is a label already.
func (sc *scan) emit(sp span) {
	if sp.end > sp.start && !strings.HasPrefix(sc.s[sp.start:], labelPrefix) {
		sc.work += spanCost
		sc.spans = append(sc.spans, sp)
		sc.covered = max(sc.covered, sp.end)
	}
}

// run returns the end of the run of bytes in cs starting at i, at most
// limit bytes long, and counts them as work.
func (sc *scan) run(i int, cs *charset, limit int) int {
	j := run(sc.s, i, cs, limit)
	sc.work += j - i
	return j
}

// find adds the secrets of sc.s whose rules trigger in [lo, hi) to
// sc.spans. It returns false when the work budget ran out before the end.
func (r *Redactor) find(sc *scan, lo, hi int) bool {
	s := sc.s
	hi = min(hi, len(s)-1)
	if lo >= hi {
		return true
	}
	// The pair at position i is t[i-lo], t[i-lo+1]: indexed so, the loop
	// that passes over nearly every position has no bounds checks.
	t := s[lo : hi+1]
	second := &r.second
	c2 := t[0]
	for k := 1; k < len(t); k++ {
		c := c2
		c2 = t[k]
		if second[c][c2>>6]&(1<<(c2&63)) == 0 {
			continue
		}
		i := lo + k - 1
		// second passed: c starts a prefix, so it has a row.
		at := r.byPair[r.byFirst[c]-1][c2]
		if at == 0 {
			continue
		}
		rest := s[i:]
		for _, ru := range r.pairRules[at-1] {
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
			if sc.until != nil && i < sc.until[ru.idx] || ru.skipCovered && i < sc.covered {
				continue
			}
			sc.work += len(ru.prefix)
			n := len(sc.spans)
			skip := ru.match(sc, i, ru)
			if len(sc.spans) > n {
				skip = max(skip, sc.spans[len(sc.spans)-1].end)
			}
			if skip > i {
				if sc.until == nil {
					sc.until = make([]int, len(r.rules))
				}
				sc.until[ru.idx], sc.untilSet = skip, true
			}
			if sc.work > sc.budget {
				return false
			}
		}
	}
	return true
}

// findExtra adds the matches of the user patterns in the whole text.
func (r *Redactor) findExtra(sc *scan) {
	s := sc.s
	// User patterns are Go regexps: linear in the text by construction, so
	// they are not counted against the budget.
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
				sc.emit(span{start: a, end: b, kind: e.kind, prio: prioCustom})
			}
		}
	}
}

// apply replaces the spans (merged where they overlap) with their labels
// and counts them. It returns the new text and, appended to ws, the
// windows of trigger positions a next pass must scan again.
func apply(s string, spans []span, counts map[string]int, ws []window) (string, []window) {
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
		w := window{max(0, b.Len()-reachAhead), 0}
		b.WriteString(Label(cur.kind))
		w.hi = b.Len() + reachBehind
		if n := len(ws); n > 0 && w.lo <= ws[n-1].hi {
			ws[n-1].hi = w.hi
		} else {
			ws = append(ws, w)
		}
		counts[cur.kind]++
		last = cur.end
		i = j
	}
	b.WriteString(s[last:])
	return b.String(), ws
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
