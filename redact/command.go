package redact

import "strings"

// Passwords on command lines and session cookies.

// maxCommand bounds the command line a rule reads.
const maxCommand = 2048

// matchCommand masks the passwords given on the command line of curl
// (-u/--user and -U/--proxy-user user:password, -b/--cookie), mysql,
// mariadb and their tools (-pPASSWORD, --password=PASSWORD), sshpass (-p)
// and redis-cli (-a, --pass). Flags mean something else to other
// programs (docker run -u 1000:1000, mysql -p db prompts), so each program
// has its own.
func matchCommand(sc *scan, i int, ru *rule) int {
	s := sc.s
	if wordBefore(s, i, csWord) {
		return 0 // libcurl, pymysql
	}
	end := commandEnd(s, i, maxCommand)
	sc.work += end - i
	k := i + len(ru.prefix)
	for k < end && !isCmdSpace(s, k) {
		k++ // the program's name goes on: mysqldump, mariadb-dump
	}
	for k < end {
		for k < end && isCmdSpace(s, k) {
			k++
		}
		ts := k
		k = tokenEnd(s, k, end)
		if k-ts < 2 || s[ts] != '-' {
			continue
		}
		flag, attached := s[ts:k], ts+2
		// takes returns the value of the flag: attached (-pSECRET,
		// --user=x) or the next token.
		takes := func(long string) (int, int, bool) {
			if strings.HasPrefix(flag, long+"=") {
				a, b := unquote(s, ts+len(long)+1, k)
				return a, b, true
			}
			if flag != long {
				return 0, 0, false
			}
			for k < end && isCmdSpace(s, k) {
				k++
			}
			vs := k
			k = tokenEnd(s, k, end)
			a, b := unquote(s, vs, k)
			return a, b, b > a
		}
		var a, b int
		var ok bool
		switch ru.prefix {
		case "curl":
			if a, b, ok = takes("--user"); !ok {
				if a, b, ok = takes("--proxy-user"); !ok {
					a, b, ok = curlShort(s, flag, ts, &k, end, "uU")
				}
			}
			if ok {
				if c := strings.IndexByte(s[a:b], ':'); c >= 0 {
					sc.password(a+c+1, b, ru)
				}
				continue
			}
			if a, b, ok = takes("--cookie"); !ok {
				a, b, ok = curlShort(s, flag, ts, &k, end, "b")
			}
			if ok && strings.IndexByte(s[a:b], '=') > 0 {
				sc.cookies(a, b, ru.prio, false)
			}
		case "mysql", "mariadb":
			if strings.HasPrefix(flag, "--password=") {
				a, b = unquote(s, ts+len("--password="), k)
				sc.password(a, b, ru)
			} else if flag[1] == 'p' && len(flag) > 2 {
				// -pSECRET; a lone -p prompts, and the word after it is a database.
				a, b = unquote(s, attached, k)
				sc.password(a, b, ru)
			}
		case "sshpass":
			if flag[1] == 'p' {
				if len(flag) > 2 {
					a, b = unquote(s, attached, k)
				} else {
					a, b, _ = takes("-p")
				}
				sc.password(a, b, ru)
			}
		case "redis-cli":
			if a, b, ok = takes("--pass"); !ok {
				a, b, ok = takes("-a")
			}
			if ok {
				sc.password(a, b, ru)
			}
		}
	}
	// The command is done: a repeated program name stays linear.
	return end
}

// curlShort reads a short curl flag among letters (-u, -uVALUE, or last in
// a cluster such as -su) and its value.
func curlShort(s, flag string, ts int, k *int, end int, letters string) (int, int, bool) {
	if len(flag) < 2 || flag[1] == '-' {
		return 0, 0, false
	}
	if strings.IndexByte(letters, flag[1]) >= 0 && len(flag) > 2 {
		a, b := unquote(s, ts+2, *k)
		return a, b, b > a
	}
	last := flag[len(flag)-1]
	if strings.IndexByte(letters, last) < 0 {
		return 0, 0, false
	}
	for _, c := range []byte(flag[1 : len(flag)-1]) {
		if !isLowerByte(c) && !isUpperByte(c) {
			return 0, 0, false
		}
	}
	for *k < end && isCmdSpace(s, *k) {
		*k++
	}
	vs := *k
	*k = tokenEnd(s, *k, end)
	a, b := unquote(s, vs, *k)
	return a, b, b > a
}

// password masks s[a:b], a password, unless it is a placeholder or a
// reference ($PASS, <password>).
func (sc *scan) password(a, b int, ru *rule) {
	sc.work += judgeCost
	if b > a && !placeholderPassword(sc.s[a:b]) {
		sc.emit(span{start: a, end: b, kind: ru.kind, prio: ru.prio})
	}
}

// isCmdSpace reports whether the byte at k separates words of a command:
// white space, or a backslash that continues the line.
func isCmdSpace(s string, k int) bool {
	switch s[k] {
	case ' ', '\t', '\r', '\n':
		return true
	case '\\':
		return k+1 < len(s) && (s[k+1] == '\n' || s[k+1] == '\\' || s[k+1] == 'n')
	}
	return false
}

// commandEnd returns the end of the shell command at i: a line break that
// does not continue it (also an escaped one), ; | or && outside quotes, or
// limit bytes.
func commandEnd(s string, i, limit int) int {
	lim := min(len(s), i+limit)
	var q byte
	for k := i; k < lim; k++ {
		c := s[k]
		if c == '\n' && (k == i || s[k-1] != '\\') {
			return k
		}
		if c == '\\' {
			b := k
			for b < lim && s[b] == '\\' {
				b++
			}
			if q != 0 && b+1 < lim && s[b] == 'n' && s[b+1] == q {
				k = b // printf 'user:pass\n': a \n that ends a quoted word is text
				continue
			}
			if b < lim && s[b] == 'n' && (b-k)%2 == 1 && b-k != 3 {
				return k // an escaped line break; \\\n is an escaped continuation
			}
			k = b - 1
			continue
		}
		if q != 0 {
			if c == q {
				q = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			q = c
		case ';', '|':
			return k
		case '&':
			if k+1 < lim && s[k+1] == '&' {
				return k
			}
		}
	}
	return lim
}

// tokenEnd returns the end of the shell word at k: up to white space,
// with quoted parts whole.
func tokenEnd(s string, k, end int) int {
	for k < end && !isCmdSpace(s, k) {
		if c := s[k]; c == '\'' || c == '"' {
			if e := strings.IndexByte(s[k+1:end], c); e >= 0 {
				k += e + 2
				continue
			}
			return end
		}
		k++
	}
	return k
}

// unquote returns the bounds of s[a:b] without the quotes around it (also
// JSON-escaped ones).
func unquote(s string, a, b int) (int, int) {
	if q := quoteLen(s, a); q > 0 && b-a >= 2*q && s[b-q:b] == s[a:a+q] {
		return a + q, b - q
	}
	return a, b
}

// matchCookie masks the session values of a Cookie or Set-Cookie header,
// also as a JSON or dict key, curl's --cookie and document.cookie.
func matchCookie(sc *scan, i int, ru *rule) int {
	s := sc.s
	if wordBefore(s, i, csAlnum) {
		return 0
	}
	set := i >= 4 && hasPrefixFold(s[i-4:i], "set-")
	j := skipQuote(s, i+len(ru.prefix))
	j, spaced := afterSpaces(s, j)
	switch {
	case j < len(s) && (s[j] == ':' || s[j] == '='):
		j++
	case i >= 2 && s[i-2:i] == "--" && spaced:
	default:
		return 0
	}
	j, _ = afterSpaces(s, j)
	j = skipQuote(s, j)
	return sc.cookies(j, min(len(s), j+4096), ru.prio, set)
}

var (
	csCookieName = newCharset("a-zA-Z0-9!#$%&*+.^_|~-")
	cookieStop   = newCharset(";, \t\r\n\"'`\\")
)

// cookies masks the session values of the name=value pairs at j (only
// the first when first: the attributes of a Set-Cookie follow it), and
// returns where they end.
func (sc *scan) cookies(j, limit, prio int, first bool) int {
	s := sc.s
	for {
		ns := j
		ne := run(s, j, csCookieName, min(256, limit-j))
		if ne == ns || ne >= limit || s[ne] != '=' {
			return ne
		}
		vs := ne + 1
		ve := vs
		for ve < limit && !cookieStop[s[ve]] {
			ve++
		}
		sc.work += judgeCost + ve - ns
		if cookieSecret(s[ns:ne], s[vs:ve]) {
			sc.emit(span{start: vs, end: ve, kind: "session-cookie", prio: prio})
		}
		if first || ve >= limit || s[ve] != ';' {
			return ve
		}
		j, _ = afterSpaces(s, ve+1)
	}
}

// sessionParts name a cookie that holds a session or a credential.
var sessionParts = []string{"session", "sessid", "token", "auth", "jwt", "csrf", "xsrf", "secret", "remember", "login", "cred"}

// cookieSecret reports whether a cookie's value is a secret: any real
// value of a session cookie, or a random-looking one.
func cookieSecret(name, value string) bool {
	if value == "" || isPlaceholder(value) || strings.EqualFold(value, "deleted") {
		return false
	}
	l := strings.ToLower(name)
	session := false
	for _, p := range sessionParts {
		session = session || strings.Contains(l, p)
	}
	var buf [16]string
	for _, seg := range splitKey(name, buf[:0]) {
		switch strings.ToLower(seg) {
		case "sid", "sess", "key":
			session = true
		}
	}
	if session && len(value) >= 4 {
		return true
	}
	return looksSecret(value, 16)
}
