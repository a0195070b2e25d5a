package redact

import (
	"encoding/base64"
	"strings"
)

// matchSlackWebhook masks the path of a Slack incoming webhook URL.
func matchSlackWebhook(s string, i int, ru *rule, emit func(span)) int {
	j := i + len(ru.prefix)
	for _, p := range []string{"services/", "workflows/", "triggers/"} {
		if strings.HasPrefix(s[j:], p) {
			j += len(p)
			e := run(s, j, csPath, maxToken)
			if e-j >= 20 {
				emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
			}
			return 0
		}
	}
	return 0
}

var csPath = newCharset("a-zA-Z0-9_/-")

// matchDiscordWebhook masks the token of a Discord webhook URL.
func matchDiscordWebhook(s string, i int, ru *rule, emit func(span)) int {
	if !strings.Contains(s[max(0, i-16):i], "discord") {
		return 0
	}
	j := run(s, i+len(ru.prefix), csDigit, 32)
	if j == i+len(ru.prefix) || j >= len(s) || s[j] != '/' {
		return 0
	}
	e := run(s, j+1, csURLSafe, maxToken)
	if e-(j+1) >= 40 {
		emit(span{start: j + 1, end: e, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

// matchSendGrid masks SG.<22>.<43>.
func matchSendGrid(s string, i int, ru *rule, emit func(span)) int {
	if i > 0 && isAlnum(s[i-1]) {
		return 0
	}
	a := i + len(ru.prefix)
	b := run(s, a, csURLSafe, 64)
	if b-a < 16 || b >= len(s) || s[b] != '.' {
		return 0
	}
	e := run(s, b+1, csURLSafe, maxToken)
	if e-(b+1) >= 30 {
		emit(span{start: i, end: e, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

// matchTelegram masks <8-10 digits>:AA<33 chars>, triggered at ":AA".
func matchTelegram(s string, i int, ru *rule, emit func(span)) int {
	j := i
	for j > 0 && i-j < 11 && csDigit[s[j-1]] {
		j--
	}
	if n := i - j; n < 8 || n > 10 || j > 0 && isAlnum(s[j-1]) {
		return 0
	}
	e := run(s, i+1, csURLSafe, maxToken)
	if e-(i+1) >= 35 {
		emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

// matchJWT masks header.payload.signature when the header decodes to a
// JSON object naming an algorithm: dotted base64 that is not a JWT stays.
func matchJWT(s string, i int, ru *rule, emit func(span)) int {
	if i > 0 && csURLSafe[s[i-1]] {
		return 0
	}
	e1 := run(s, i, csURLSafe, 4096)
	if e1-i < 10 || e1+4 > len(s) || s[e1] != '.' || s[e1+1:e1+4] != "eyJ" {
		return 0
	}
	e2 := run(s, e1+1, csURLSafe, 1<<16)
	if e2-(e1+1) < 10 || e2 >= len(s) || s[e2] != '.' {
		return 0
	}
	e3 := run(s, e2+1, csURLSafe, 4096)
	hdr, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s[i:e1], "="))
	if err != nil || !strings.Contains(string(hdr), `"alg"`) {
		return 0
	}
	emit(span{start: i, end: e3, kind: ru.kind, prio: ru.prio})
	return 0
}

// csPEMBody is what an unterminated PEM body may hold: base64, line breaks
// (also JSON-escaped ones) and the headers of legacy encrypted keys.
var csPEMBody = newCharset("a-zA-Z0-9+/=", " \t\r\n\\:,-")

// matchPEM masks a whole private key block, or from its BEGIN line to the
// end of its body when the END line is missing (a truncated output).
func matchPEM(s string, i int, ru *rule, emit func(span)) int {
	h0 := i + len(ru.prefix)
	h := strings.Index(s[h0:min(len(s), h0+64)], "-----")
	if h < 0 || !strings.Contains(s[h0:h0+h], "PRIVATE KEY") {
		return 0
	}
	body := h0 + h + 5
	kind := ru.kind
	if strings.Contains(s[max(0, i-32):i], "private_key") {
		kind = "gcp-service-account-key"
	}
	limit := min(len(s), body+maxPEMBytes)
	if k := strings.Index(s[body:limit], "-----END "); k >= 0 {
		k += body + len("-----END ")
		if t := strings.Index(s[k:min(len(s), k+64)], "-----"); t >= 0 {
			emit(span{start: i, end: k + t + 5, kind: kind, prio: ru.prio})
			return 0
		}
	}
	e := run(s, body, csPEMBody, maxPEMBytes)
	emit(span{start: i, end: e, kind: kind, prio: ru.prio})
	return 0
}

var csScheme = newCharset("a-zA-Z0-9+.-")

// urlStop ends a URL's userinfo.
var urlStop = newCharset(" \t\r\n/?#\"'<>\\`")

// matchURLPassword masks the password of scheme://user:password@host.
func matchURLPassword(s string, i int, ru *rule, emit func(span)) int {
	j := i
	for j > 0 && i-j < 32 && csScheme[s[j-1]] {
		j--
	}
	if i-j < 2 {
		return 0
	}
	u := i + 3
	at := -1
	k := u
	for ; k < len(s) && k-u < 512 && !urlStop[s[k]]; k++ {
		if s[k] == '@' {
			at = k
		}
	}
	if at < 0 || at+1 >= len(s) || !(isAlnum(s[at+1]) || s[at+1] == '[') {
		return 0
	}
	c := strings.IndexByte(s[u:at], ':')
	if c < 0 {
		return 0
	}
	p := u + c + 1
	if !placeholderPassword(s[p:at]) {
		emit(span{start: p, end: at, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

// matchDSNPassword masks the password of a Go MySQL DSN,
// user:password@tcp(host)/db.
func matchDSNPassword(s string, i int, ru *rule, emit func(span)) int {
	j := i
	for j > 0 && i-j < 512 && !urlStop[s[j-1]] {
		j--
	}
	c := strings.IndexByte(s[j:i], ':')
	if c < 0 {
		return 0
	}
	p := j + c + 1
	if !placeholderPassword(s[p:i]) {
		emit(span{start: p, end: i, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

func placeholderPassword(p string) bool {
	if p == "" || isPlaceholder(p) {
		return true
	}
	switch strings.ToLower(p) {
	case "pass", "password", "passwd", "pwd", "secret", "token", "pw", "x", "***", "xxx":
		return true
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
func matchBearer(s string, i int, ru *rule, emit func(span)) int {
	if i > 0 && isAlnum(s[i-1]) {
		return 0
	}
	j, ok := afterSpaces(s, i+len(ru.prefix))
	if !ok {
		return 0
	}
	e := run(s, j, csBearer, maxToken)
	if looksSecret(s[j:e], 12) {
		emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
	}
	return 0
}

// matchBasic masks the credential of "Basic <base64 of user:password>".
func matchBasic(s string, i int, ru *rule, emit func(span)) int {
	if i > 0 && isAlnum(s[i-1]) {
		return 0
	}
	j, ok := afterSpaces(s, i+len(ru.prefix))
	if !ok {
		return 0
	}
	e := run(s, j, csB64, maxToken)
	if e-j < 8 {
		return 0
	}
	tok := strings.TrimRight(s[j:e], "=")
	dec, err := base64.RawStdEncoding.DecodeString(tok)
	if err != nil {
		return 0
	}
	c := strings.IndexByte(string(dec), ':')
	if c < 0 || c == len(dec)-1 {
		return 0
	}
	for _, b := range dec {
		if b < 0x20 || b >= 0x7f {
			return 0
		}
	}
	emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
	return 0
}

// valueStop ends an unquoted value.
var valueStop = newCharset(" \t\r\n\"'`,;&|<>(){}[]\\")

// matchAuthorization masks the credential of an Authorization header with
// a scheme other than Bearer and Basic (token, Bot, SSWS...) or none.
func matchAuthorization(s string, i int, ru *rule, emit func(span)) int {
	if i > 0 && isAlnum(s[i-1]) {
		return 0
	}
	j := skipQuote(s, i+len(ru.prefix))
	j, _ = afterSpaces(s, j)
	if j >= len(s) || s[j] != ':' && s[j] != '=' {
		return 0
	}
	j, _ = afterSpaces(s, j+1)
	j = skipQuote(s, j)
	e := run(s, j, csBearer, 64)
	if k, ok := afterSpaces(s, e); ok && k < len(s) && !valueStop[s[k]] {
		switch strings.ToLower(s[j:e]) {
		case "bearer", "basic":
			return 0
		}
		j = k
		e = run(s, j, csBearer, maxToken)
	}
	if looksSecret(s[j:e], 12) {
		emit(span{start: j, end: e, kind: ru.kind, prio: ru.prio})
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

// matchDockerLogin masks the value of -p/--password on a docker login
// command line.
func matchDockerLogin(s string, i int, ru *rule, emit func(span)) int {
	end := i + len(ru.prefix)
	for end < len(s) && end-i < 400 && s[end] != '\n' && !strings.HasPrefix(s[end:], `\n`) {
		end++
	}
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
		if !placeholderPassword(s[q:e]) {
			emit(span{start: q, end: e, kind: ru.kind, prio: ru.prio})
		}
	}
	return 0
}
