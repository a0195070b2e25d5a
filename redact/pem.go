package redact

import "strings"

// Private keys in PEM and OpenSSH form. A key is masked whole from its
// BEGIN line to its END line; when one of them is missing (an output cut
// short, a file read in parts, a key split across two tool results), what
// is there of the body is masked, and a Stream carries the open block to
// the next texts. Bodies may be printed with line numbers (cat -n, Claude
// Code's Read tool: "    12\t", "    12→") or be JSON-escaped.

// pemBody is what a scan of a key's body found.
type pemBody struct {
	start, end int  // the first base64 byte and the end of the last; start < 0 when none
	stop       int  // the first byte that is not body
	chars      int  // base64 bytes
	wide       bool // a line of at least 48 base64 bytes in both cases, as a key's are
}

// pemLineMin is the shortest base64 line that makes a text the
// continuation of a key; real key lines are 64 or 70 bytes.
const pemLineMin = 48

// body scans the body of a key from j up to limit: lines of base64 (the
// first and the last may be partial), each after an optional line-number
// prefix or indentation, separated by line breaks (also escaped ones), and
// the header lines of legacy encrypted keys.
func (sc *scan) body(j, limit int) pemBody {
	s := sc.s
	p := pemBody{start: -1, stop: j}
	k := j
	for k < limit {
		k = linePrefix(s, k, limit)
		if isPEMHeader(s[k:min(limit, k+16)]) {
			for h := k; k < limit && s[k] != '\n' && s[k] != '\r' && s[k] != '\\' && k-h < 256; k++ {
			}
		} else if e := run(s, k, csB64, limit-k); e > k {
			if p.start < 0 {
				p.start = k
			}
			p.end = e
			p.chars += e - k
			if e-k >= pemLineMin && e-k <= 128 && mixedCase(s[k:e]) {
				p.wide = true
			}
			k = e
		}
		for k < limit && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		n := sepLen(s, k, limit)
		if n == 0 {
			break
		}
		k += n
	}
	p.stop = k
	if p.start < 0 {
		p.end = j
	}
	sc.work += k - j
	return p
}

func isPEMHeader(s string) bool {
	return hasPrefixFold(s, "proc-type:") || hasPrefixFold(s, "dek-info:") || hasPrefixFold(s, "comment:") ||
		hasPrefixFold(s, "version:")
}

func mixedCase(s string) bool {
	lo, up := false, false
	for i := 0; i < len(s); i++ {
		lo = lo || isLowerByte(s[i])
		up = up || isUpperByte(s[i])
	}
	return lo && up
}

// linePrefix returns the position after the indentation and line number
// ("    12\t", "    12→", also with an escaped tab or arrow) at k.
func linePrefix(s string, k, limit int) int {
	p := k
	for p < limit && p-k < 16 && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	d := p
	for d < limit && d-p < 9 && csDigit[s[d]] {
		d++
	}
	if d == p {
		return p
	}
	switch {
	case d < limit && s[d] == '\t':
		return d + 1
	case strings.HasPrefix(s[d:limit], "→"):
		return d + len("→")
	}
	b := d
	for b < limit && b-d < 8 && s[b] == '\\' {
		b++
	}
	switch {
	case b == d:
	case b < limit && s[b] == 't':
		return b + 1
	case strings.HasPrefix(s[b:limit], "u2192"):
		return b + len("u2192")
	}
	return p // digits that start a base64 line
}

// sepLen is the length of the line break at k: \n, \r\n, or their JSON
// escapes (with any number of backslashes); 0 when there is none.
func sepLen(s string, k, limit int) int {
	if k >= limit {
		return 0
	}
	switch s[k] {
	case '\n':
		return 1
	case '\r':
		if k+1 < limit && s[k+1] == '\n' {
			return 2
		}
		return 1
	case '\\':
		b := k
		for b < limit && b-k < 8 && s[b] == '\\' {
			b++
		}
		if b < limit && s[b] == 'n' {
			return b + 1 - k
		}
		if b < limit && s[b] == 'r' {
			if n := sepLen(s, b+1, limit); n > 0 && s[b+1] == '\\' {
				return b + 1 + n - k
			}
			return b + 1 - k
		}
	}
	return 0
}

// pemMarker returns the end of the marker line whose label starts at h
// ("RSA PRIVATE KEY-----"), or -1 when it is not a private key's. The
// label is capitals and spaces on one line: a BEGIN line cut short must
// not reach into the next marker and take its "-----" (the key after it
// would then be left unseen).
func pemMarker(s string, h int) int {
	t := strings.Index(s[h:min(len(s), h+64)], "-----")
	if t < 0 || !strings.Contains(s[h:h+t], "PRIVATE KEY") {
		return -1
	}
	for k := h; k < h+t; k++ {
		if c := s[k]; c != ' ' && (c < 'A' || c > 'Z') {
			return -1
		}
	}
	return h + t + 5
}

// matchPEM masks a whole private key block, or from its BEGIN line to the
// end of its body when the END line is missing (a truncated output, the
// first part of a key read in parts).
func matchPEM(sc *scan, i int, ru *rule) int {
	s := sc.s
	body := pemMarker(s, i+len(ru.prefix))
	sc.work += 64
	if body < 0 {
		return 0
	}
	kind := ru.kind
	if strings.Contains(s[max(0, i-32):i], "private_key") {
		kind = "gcp-service-account-key"
	}
	limit := min(len(s), body+maxPEMBytes)
	if k := sc.nextEnd(body, limit); k >= 0 {
		if e := pemMarker(s, k+len("-----END ")); e >= 0 {
			sc.emit(span{start: i, end: e, kind: kind, prio: ru.prio})
			return e
		}
	}
	p := sc.body(body, limit)
	if p.start >= 0 {
		sc.emit(span{start: i, end: p.end, kind: kind, prio: ru.prio})
	}
	// A BEGIN line alone holds nothing secret (its body is in a later
	// text, or nowhere): it stays, and the stream carries the open key.
	sc.openPEM = kind
	return max(body, p.end)
}

// nextEnd returns the position of the first "-----END " at or after from
// and before limit, or -1. It remembers what it searched, so that repeated
// BEGIN lines without an END stay linear.
func (sc *scan) nextEnd(from, limit int) int {
	s := sc.s
	start, base := from, from
	if sc.endTo > 0 && from >= sc.endFrom {
		if sc.endAt >= from {
			if sc.endAt < limit {
				return sc.endAt
			}
			return -1
		}
		if sc.endAt < 0 && from <= sc.endTo {
			if limit <= sc.endTo {
				return -1
			}
			start, base = sc.endTo, sc.endFrom
		}
	}
	sc.work += limit - start
	if k := strings.Index(s[start:limit], "-----END "); k >= 0 {
		sc.endFrom, sc.endAt, sc.endTo = from, start+k, start+k+1
		return start + k
	}
	sc.endFrom, sc.endAt, sc.endTo = base, -1, limit
	return -1
}

// csPEMBack is what the body of a key before its END line may hold: base64,
// white space, line numbers and their tab or arrow, escapes.
var csPEMBack = func() *charset {
	c := newCharset("a-zA-Z0-9+/=", " \t\r\n\\")
	for _, b := range []byte("→") {
		c[b] = true
	}
	return c
}()

// matchPEMEnd masks the body before an END line whose BEGIN line is not in
// the text: the second part of a key cut in two.
func matchPEMEnd(sc *scan, i int, ru *rule) int {
	s := sc.s
	end := pemMarker(s, i+len(ru.prefix))
	if end < 0 {
		return 0
	}
	low := max(0, i-maxPEMBytes, sc.covered)
	a := i
	for a > low && csPEMBack[s[a-1]] {
		a--
	}
	sc.work += i - a
	// The body is the run of lines that reaches the END line: start at
	// each line in turn until one does.
	for a < i {
		p := sc.body(a, i)
		if p.stop == i {
			if p.chars >= 16 {
				sc.emit(span{start: p.start, end: end, kind: ru.kind, prio: ru.prio})
			}
			break
		}
		a = nextLine(s, p.stop, i)
	}
	return end
}

// nextLine returns the position after the first line break at or after k,
// or limit.
func nextLine(s string, k, limit int) int {
	for ; k < limit; k++ {
		if n := sepLen(s, k, limit); n > 0 {
			return k + n
		}
	}
	return limit
}

// continuePEM masks the start of the text when it continues a key an
// earlier text of the stream left open, and updates c.
func (sc *scan) continuePEM(c *Carry) {
	if c.PEM == "" {
		return
	}
	s := sc.s
	if len(s) < 16 {
		return // too short to tell: neither a continuation nor a miss
	}
	p := sc.body(0, min(len(s), maxPEMBytes))
	if strings.HasPrefix(s[p.stop:], "-----END ") {
		if e := pemMarker(s, p.stop+len("-----END ")); e >= 0 {
			if p.start >= 0 {
				sc.emit(span{start: p.start, end: e, kind: c.PEM, prio: prioShape})
			}
			*c = Carry{}
			return
		}
	}
	if !p.wide {
		if c.Left--; c.Left <= 0 {
			*c = Carry{}
		}
		return
	}
	sc.emit(span{start: p.start, end: p.end, kind: c.PEM, prio: prioShape})
	// Without its END line, the key may go on in the next texts still
	// (the same lines in a structured result, a third part).
	c.Left = carryTexts
}
