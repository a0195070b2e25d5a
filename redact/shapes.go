package redact

import (
	"encoding/base64"
	"strings"
)

// matchSlackWebhook masks the path of a Slack incoming webhook URL.
func matchSlackWebhook(sc *scan, i int, ru *rule) int {
	s := sc.s
	j := i + len(ru.prefix)
	for _, p := range []string{"services/", "workflows/", "triggers/"} {
		if strings.HasPrefix(s[j:], p) {
			j += len(p)
			e := sc.run(j, csPath, maxToken)
			if e-j >= 20 {
				sc.emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
			}
			return e
		}
	}
	return 0
}

var csPath = newCharset("a-zA-Z0-9_/-")

// matchDiscordWebhook masks the token of a Discord webhook URL.
func matchDiscordWebhook(sc *scan, i int, ru *rule) int {
	s := sc.s
	if !strings.Contains(s[max(0, i-16):i], "discord") {
		return 0
	}
	j := sc.run(i+len(ru.prefix), csDigit, 32)
	if j == i+len(ru.prefix) || j >= len(s) || s[j] != '/' {
		return 0
	}
	e := sc.run(j+1, csURLSafe, maxToken)
	if e-(j+1) >= 40 {
		sc.emit(span{start: j + 1, end: e, kind: ru.kind, prio: ru.prio})
	}
	return e
}

// matchSendGrid masks SG.<22>.<43>.
func matchSendGrid(sc *scan, i int, ru *rule) int {
	s := sc.s
	if wordBefore(s, i, csAlnum) {
		return 0
	}
	a := i + len(ru.prefix)
	b := sc.run(a, csURLSafe, 64)
	if b-a < 16 || b >= len(s) || s[b] != '.' {
		return 0
	}
	e := sc.run(b+1, csURLSafe, maxToken)
	if e-(b+1) >= 30 {
		sc.emit(span{start: i, end: e, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

// matchTelegram masks <8-10 digits>:AA<33 chars>, triggered at ":AA".
func matchTelegram(sc *scan, i int, ru *rule) int {
	s := sc.s
	j := i
	for j > 0 && i-j < 11 && csDigit[s[j-1]] {
		j--
	}
	// A bot's URL puts "bot" right before the id: api.telegram.org/bot<id>:<token>.
	if n := i - j; n < 8 || n > 10 || wordBefore(s, j, csAlnum) && !strings.HasSuffix(s[:j], "/bot") {
		return 0
	}
	e := sc.run(i+1, csURLSafe, maxToken)
	if e-(i+1) >= 30 {
		sc.emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
	}
	return e
}

// matchJWT masks a JWS (header.payload.signature) or JWE (five parts)
// when its header decodes to a JSON object naming an algorithm: dotted
// base64 that is not a JWT stays. The payload may be anything (not only
// JSON claims), even empty (a detached payload).
func matchJWT(sc *scan, i int, ru *rule) int {
	s := sc.s
	if wordBefore(s, i, csURLSafe) {
		return 0
	}
	n := len(sc.spans)
	end := matchJWTLine(sc, i, ru)
	found := len(sc.spans) > n
	e := end
	if found {
		e = sc.spans[len(sc.spans)-1].end
	} else {
		e = run(s, i, csJWT, maxLong)
	}
	if _, ok := lineBreakAt(s, e); !ok {
		return end
	}
	// Folded across lines: the token's parts go on at the next lines.
	f := fold{ls: lineStartOf(s, i)}
	e2, _ := sc.foldedEnd(e, &f, csJWT, !found)
	if e2 == e {
		return end
	}
	if !found {
		sc.work += judgeCost + e2 - i
		// The lines of the fold's width are not read again from a later
		// line's trigger (each would read all the lines after it); its
		// last, shorter line is, where a JWT of its own may start.
		skip := e2
		if f.done {
			skip = f.ls
		}
		parts := strings.Split(unfold(s, i, e2), ".")
		if len(parts) < 3 || len(parts) > 5 || len(parts[0]) < 10 {
			return skip
		}
		hdr, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[0], "="))
		if err != nil || !strings.Contains(string(hdr), `"alg"`) {
			return skip
		}
	}
	sc.emit(span{start: i, end: e2, kind: ru.kind, prio: ru.prio})
	return e2
}

// csJWT is what a JWT is made of: its parts and the dots between them.
var csJWT = newCharset("a-zA-Z0-9_.-")

// matchJWTLine masks a JWT written on one line.
func matchJWTLine(sc *scan, i int, ru *rule) int {
	s := sc.s
	e1 := sc.run(i, csURLSafe, 4096)
	// A token cut in two ends a text: in its header, or before its
	// third part.
	cut := e1 == len(s)
	if e1-i < 10 || !cut && s[e1] != '.' {
		return 0
	}
	sc.work += judgeCost + e1 - i
	h := strings.TrimRight(s[i:e1], "=")
	if cut {
		h = h[:len(h)-len(h)%4]
	}
	hdr, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil || !strings.Contains(string(hdr), `"alg"`) && !(cut && strings.Contains(string(hdr), `"typ"`)) {
		return e1
	}
	end, dots := e1, 0
	for dots < 4 && end < len(s) && s[end] == '.' {
		e := sc.run(end+1, csURLSafe, 1<<16)
		dots++
		if e == end+1 && dots >= 2 {
			if dots == 2 {
				end = e // header.payload. (alg none): the dot is the token's
			}
			break
		}
		end = e
	}
	if dots < 2 && end < len(s) {
		return e1 // not three parts
	}
	sc.emit(span{start: i, end: end, kind: ru.kind, prio: ru.prio})
	return end
}

var csScheme = newCharset("a-zA-Z0-9+.-")

// urlEnd ends the part of a URL that can hold a password: white space,
// quotes and a backslash (an escape of the JSON around it).
var urlEnd = newCharset(" \t\r\n\"'`\\")

// csHost is what a URL's host is made of.
var csHost = newCharset("a-zA-Z0-9._%-")

// hostStop may follow a URL's host.
var hostStop = newCharset(":/?#\"'`\\ \t\r\n)]>,;|")

// matchURLPassword masks the password of scheme://user:password@host. The
// password may hold / ? # < > and even @: it runs from the first colon of
// the userinfo to the first @ that is followed by a host and the end of
// the authority.
func matchURLPassword(sc *scan, i int, ru *rule) int {
	s := sc.s
	j := i
	for j > 0 && i-j < 32 && csScheme[s[j-1]] {
		j--
	}
	if i-j < 2 {
		return 0
	}
	u := i + 3
	colon := -1
	lim := min(len(s), u+512)
	k := u
	defer func() { sc.work += k - u }()
	for ; k < lim; k++ {
		c := s[k]
		if urlEnd[c] {
			n := escapedChar(s, k)
			if n == 0 {
				return 0
			}
			k += n - 1 // an escaped < > or &, part of the password
			continue
		}
		switch c {
		case ':':
			if colon < 0 {
				colon = k
			}
			if k+2 < len(s) && s[k+1] == '/' && s[k+2] == '/' && k > u {
				return k // the next URL: its own trigger scans it
			}
		case '/', '?', '#':
			if colon < 0 {
				return 0 // a path before any colon: no userinfo
			}
		case '@':
			if colon < 0 {
				return 0 // user@host: no password
			}
			h := k + 1
			if h < len(s) && s[h] == '[' {
				h = strings.IndexByte(s[h:min(len(s), h+64)], ']')
				if h < 0 {
					continue
				}
				h += k + 2
			} else {
				h = run(s, h, csHost, 256)
			}
			if h == k+1 || h < len(s) && !hostStop[s[h]] {
				continue // not a host: the @ is part of the password
			}
			pw := s[colon+1 : k]
			sc.work += judgeCost
			if !portPath(pw) && !placeholderPassword(pw) {
				sc.emit(span{start: colon + 1, end: k, kind: ru.kind, prio: ru.prio})
			}
			return k
		}
	}
	return 0
}

// portPath reports whether what follows a URL's first colon is a port and
// a path (host:8443/x?mail=a@b.c), not a password.
func portPath(pw string) bool {
	n := run(pw, 0, csDigit, 6)
	return n > 0 && (n == len(pw) || pw[n] == '/' || pw[n] == '?' || pw[n] == '#')
}

// matchDSNPassword masks the password of a Go MySQL DSN,
// user:password@tcp(host)/db.
func matchDSNPassword(sc *scan, i int, ru *rule) int {
	s := sc.s
	// Looking back no further than the last DSN keeps repeated ones linear.
	low := max(i-512, sc.dsnLow)
	sc.dsnLow = i + len(ru.prefix)
	j := i
	for j > low && !urlEnd[s[j-1]] {
		j--
	}
	sc.work += i - j
	c := strings.IndexByte(s[j:i], ':')
	if c < 0 {
		return 0
	}
	p := j + c + 1
	sc.work += judgeCost
	if !placeholderPassword(s[p:i]) {
		sc.emit(span{start: p, end: i, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

func placeholderPassword(p string) bool {
	if p == "" || isPlaceholder(p) {
		return true
	}
	for _, w := range []string{"pass", "password", "passwd", "pwd", "secret", "token", "pw", "x", "***", "xxx", "passphrase"} {
		if strings.EqualFold(p, w) {
			return true
		}
	}
	return false
}

var csBearer = newCharset("a-zA-Z0-9._~+/=-")

// afterSpaces returns the index after the spaces or tabs at j, and whether
// there was at least one.
func afterSpaces(s string, j int) (int, bool) {
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	return k, k > j
}

// matchBearer masks the credential of "Bearer <token>".
func matchBearer(sc *scan, i int, ru *rule) int {
	s := sc.s
	if wordBefore(s, i, csAlnum) {
		return 0
	}
	j, ok := afterSpaces(s, i+len(ru.prefix))
	if !ok {
		return 0
	}
	e := sc.run(j, csBearer, maxToken)
	sc.work += judgeCost
	if looksSecret(s[j:e], 12) {
		sc.emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

// matchBasic masks the credential of "Basic <base64 of user:password>".
func matchBasic(sc *scan, i int, ru *rule) int {
	s := sc.s
	if wordBefore(s, i, csAlnum) {
		return 0
	}
	j, ok := afterSpaces(s, i+len(ru.prefix))
	if !ok {
		return 0
	}
	e := sc.run(j, csB64, maxToken)
	if e-j < 8 {
		return 0
	}
	sc.work += judgeCost + e - j
	tok := strings.TrimRight(s[j:e], "=")
	dec, err := base64.RawStdEncoding.DecodeString(tok)
	if err != nil {
		return e
	}
	c := strings.IndexByte(string(dec), ':')
	if c < 0 || c == len(dec)-1 {
		return e
	}
	for _, b := range dec {
		if b < 0x20 || b >= 0x7f {
			return e
		}
	}
	sc.emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
	return e
}

// matchAuthorization masks the credential of an Authorization header with
// a scheme other than Bearer and Basic (token, Bot, SSWS...) or none.
func matchAuthorization(sc *scan, i int, ru *rule) int {
	s := sc.s
	if wordBefore(s, i, csAlnum) {
		return 0
	}
	j := skipQuote(s, i+len(ru.prefix))
	j, _ = afterSpaces(s, j)
	if j >= len(s) || s[j] != ':' && s[j] != '=' {
		return 0
	}
	j, _ = afterSpaces(s, j+1)
	j = skipQuote(s, j)
	e := sc.run(j, csBearer, 64)
	if k, ok := afterSpaces(s, e); ok && k < len(s) && !valueStop[s[k]] {
		switch strings.ToLower(s[j:e]) {
		case "bearer", "basic":
			return 0
		}
		j = k
		e = sc.run(j, csBearer, maxToken)
	}
	sc.work += judgeCost
	if looksSecret(s[j:e], 12) {
		sc.emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

// skipQuote skips one quote at j, also a JSON-escaped one (\", \\\"...).
func skipQuote(s string, j int) int {
	if q := quoteLen(s, j); q > 0 {
		return j + q
	}
	return j
}

// quoteLen is the length of the quote at j: backslashes (JSON escaping,
// possibly nested) followed by ' or ", or a backquote; 0 when none.
func quoteLen(s string, j int) int {
	k := j
	for k < len(s) && k-j < 16 && s[k] == '\\' {
		k++
	}
	if k < len(s) && (s[k] == '"' || s[k] == '\'' || s[k] == '`' && k == j) {
		return k + 1 - j
	}
	return 0
}

// escapedChar is the length of a JSON \uXXXX escape at k (a character such
// as < > & that encoding/json escapes, part of the text it is in), 0 when
// there is none.
func escapedChar(s string, k int) int {
	if k+6 <= len(s) && s[k] == '\\' && s[k+1] == 'u' {
		for _, c := range []byte(s[k+2 : k+6]) {
			if !csHex[c] {
				return 0
			}
		}
		return 6
	}
	return 0
}

// matchDockerLogin masks the value of -p/--password on a docker login
// command line.
func matchDockerLogin(sc *scan, i int, ru *rule) int {
	s := sc.s
	end := i + len(ru.prefix)
	for end < len(s) && end-i < 400 && s[end] != '\n' && !strings.HasPrefix(s[end:], `\n`) {
		end++
	}
	sc.work += end - i
	line := s[i:end]
	for _, f := range []string{" -p ", " --password ", " --password="} {
		k := strings.Index(line, f)
		if k < 0 {
			continue
		}
		j := i + k + len(f)
		j, _ = afterSpaces(s, j)
		q := skipQuote(s, j)
		e := q
		for e < end && !valueStop[s[e]] {
			e++
		}
		sc.work += judgeCost
		if !placeholderPassword(s[q:e]) {
			sc.emit(span{start: q, end: e, kind: ru.kind, prio: ru.prio})
		}
	}
	// The whole line is done: a repeated "docker login" stays linear.
	return end
}

// valueStop ends a credential after a header or a flag.
var valueStop = newCharset(" \t\r\n\"'`,;&|<>(){}[]\\")
