package redact

import (
	"math"
	"strings"
)

// keyKeywords trigger the assignment parser: every secret-naming key
// contains one of them.
var keyKeywords = []string{"pass", "pwd", "secret", "token", "key", "auth", "credential"}

// maxKey bounds a key name's length.
const maxKey = 64

// csKey is what a key name is made of (--flag, X-Api-Key, db.password).
var csKey = newCharset("a-zA-Z0-9_.-")

// matchAssignment masks the value of KEY=value, key: value, "key": "value",
// key := "value", --key value, .netrc's "password value" and the like,
// when the key names a secret and the value is one.
func matchAssignment(sc *scan, i int, ru *rule) int {
	s := sc.s
	ks := i
	for ks > 0 && csKey[s[ks-1]] && !escapeEnd(s, ks) {
		if i-ks >= maxKey {
			// Inside base64 or a long identifier, not a key; so is every
			// later keyword of the run.
			return sc.run(i, csKey, len(s))
		}
		ks--
	}
	sc.work += i - ks
	if ks >= len(labelPrefix) && s[ks-len(labelPrefix):ks] == labelPrefix {
		return keyEnd(s, i) // the kind of a label: [REDACTED:password]
	}
	// A key holding several keywords is parsed from its first one only.
	for _, kw := range keyKeywords {
		if indexFold(s[ks:i], kw) >= 0 {
			return 0
		}
	}
	if strings.HasSuffix(s[:ks], "://") {
		return 0 // a URL's user name: the URL rule masks its password
	}
	ke := sc.run(i, csKey, maxKey+1)
	if ke-ks > maxKey {
		return ke
	}
	key := s[ks:ke]
	flag := strings.HasPrefix(key, "-")
	key = strings.TrimLeft(key, "-")
	kind, ok := secretKey(key)
	if !ok {
		return ke
	}
	if key == "PASS" && strings.HasSuffix(s[:ks], "--- ") {
		return ke // go test -v's "--- PASS: TestName", not a password
	}
	j := skipQuote(s, ke)
	quotedKey := j > ke
	if j < len(s) && s[j] == ']' { // ENV["SECRET"] = ...
		j++
	}
	j, spaced := afterSpaces(s, j)
	// lit: the value is surely a literal, not a variable of code: a
	// shell or .env assignment (KEY=value), a flag, a .netrc entry, or a
	// quoted string.
	lit := flag
	envKey := !quotedKey && isEnvKey(key)
	switch {
	case j >= len(s):
		return ke
	case s[j] == '\\' && !spaced && backslashEquals(s, j) > 0:
		// NAME\=value: a shell echoes the assignment it could not run
		// (its backslash doubled in JSON).
		j += backslashEquals(s, j)
		lit = true
	case s[j] == '=':
		if j+1 < len(s) && s[j+1] == '=' {
			return ke // a comparison
		}
		j++
		if j < len(s) && s[j] == '>' {
			j++
		}
		lit = lit || envKey && !spaced && j < len(s) && s[j] != ' ' || sc.iniEntry(ks)
	case s[j] == ':':
		if j+1 < len(s) && s[j+1] == ':' {
			return ke // Token::new
		}
		j++
		if j < len(s) && s[j] == '=' {
			j++
		} else if !quotedKey && (j >= len(s) || s[j] != ' ' && s[j] != '\t' && quoteLen(s, j) == 0) {
			return ke // not YAML (key: value) nor JSON: an ARN, a URL, a time
		}
		lit = lit || envKey // KEY: value, as in a compose file's environment
	case flag && spaced:
		// --password VALUE: the word after a flag may be an argument of
		// its own (mysql --password db prompts), so it is judged as code.
		lit = false
	case spaced && (key == "password" || key == "passwd") && netrc(s, ks):
		lit = true
	default:
		return ke
	}
	j, _ = afterSpaces(s, j)
	vs, ve, quoted, ok := value(s, j)
	if !ok {
		return ve
	}
	if strings.HasPrefix(s[ve:], labelPrefix) {
		return ve // what is left of a value whose rest is masked already
	}
	sc.work += judgeCost + ve - vs
	if secretValue(s[vs:ve], kind, lit || quoted) {
		sc.emit(span{start: vs, end: ve, kind: kind, prio: ru.prio})
	} else if _, br := lineBreakAt(s, ve); br && !quoted && kind != "password" && ve-vs < 20 && ve > vs {
		// A value split across lines (aws_secret_access_key=wJalrXUt
		// then the rest on the next line): judged joined.
		f := fold{ls: lineStartOf(s, ks)}
		// A few lines at most: the lines after may be assignments of
		// their own, which the rule must still read.
		if e2, _ := sc.foldedLines(ve, &f, csLong, true, 4); e2 > ve {
			if secretValue(unfold(s, vs, e2), kind, lit) {
				sc.emit(span{start: vs, end: e2, kind: kind, prio: ru.prio})
				return e2
			}
		}
	}
	if quoted {
		return j // a quoted value may hold assignments of its own
	}
	return ve
}

// keyEnd returns the end of the key characters at i.
func keyEnd(s string, i int) int { return run(s, i, csKey, maxKey) }

// isEnvKey reports whether a key is an environment variable's name:
// upper-case letters, digits and underscores.
func isEnvKey(key string) bool {
	letter := false
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case isUpperByte(c):
			letter = true
		case c == '_' || '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return letter && len(key) >= 2
}

// netrc reports whether the password keyword at ks follows "login <name>"
// or "machine <host>", as in a .netrc file.
func netrc(s string, ks int) bool {
	k := spaceBack(s, ks)
	if k == ks {
		return false
	}
	t := k
	for t > 0 && k-t < 256 && !isSpaceBack(s, t) {
		t--
	}
	w := spaceBack(s, t)
	if t == k || w == t {
		return false
	}
	v := w
	for v > 0 && w-v < 8 && isLowerByte(s[v-1]) && !isSpaceBack(s, v) {
		v--
	}
	switch s[v:w] {
	case "login", "machine", "account":
		return v == 0 || isSpaceBack(s, v)
	}
	return false
}

// isSpaceBack reports whether the text before k ends with white space or
// an escaped line break or tab.
func isSpaceBack(s string, k int) bool {
	if k == 0 {
		return false
	}
	switch s[k-1] {
	case ' ', '\t', '\n', '\r':
		return true
	case 'n', 't', 'r':
		return k >= 2 && s[k-2] == '\\'
	}
	return false
}

// spaceBack returns the position before the white space that ends s[:k].
func spaceBack(s string, k int) int {
	for n := 0; k > 0 && n < 64 && isSpaceBack(s, k); n++ {
		if c := s[k-1]; c == 'n' || c == 't' || c == 'r' {
			k--
			for k > 0 && s[k-1] == '\\' {
				k--
			}
			continue
		}
		k--
	}
	return k
}

// maxValue is the length up to which a value may hold any character. A
// longer one is a secret only when it is made of a token's alphabet (a
// kubeconfig's client-key-data, an AWS session token), up to maxLong:
// past maxValue a value's scan goes on only through csLong, so a text of
// repeated keys still costs a bounded amount a byte.
const (
	maxValue = 512
	maxLong  = 1 << 16
)

// csLong is what a value longer than maxValue is made of: base64 (also
// URL-safe), hex, a JWT's dots, a URL escape's percent.
var csLong = newCharset("a-zA-Z0-9+/=_.%-")

// value returns the bounds of the value starting at j: quoted (also with
// JSON-escaped quotes) or unquoted; ok is false when there is none, or
// when it is code (a call or a subscript), with ve where scanning stopped.
func value(s string, j int) (vs, ve int, quoted, ok bool) {
	if j >= len(s) {
		return j, j, false, false
	}
	if n := quoteLen(s, j); n > 0 {
		vs := j + n
		q := s[j : j+n]
		k := closingQuote(s, vs, min(len(s), vs+maxValue), q)
		if k < 0 && vs+maxValue < len(s) && longRun(s, vs, vs+maxValue) {
			// A long value: the token's alphabet up to its closing quote.
			e := run(s, vs+maxValue, csLong, maxLong)
			if strings.HasPrefix(s[e:], q) {
				k = e
			}
		}
		if k < 0 {
			return vs, vs, true, false
		}
		return vs, k, true, true
	}
	e, code := valueEnd(s, j, min(len(s), j+maxValue+1))
	if e > j+maxValue && !code && longRun(s, j, e) {
		e = run(s, e, csLong, maxLong)
	}
	return j, e, false, e > j && !code
}

// longRun reports whether s[a:b] is all of csLong: the start of a long
// value.
func longRun(s string, a, b int) bool { return run(s, a, csLong, b-a) == b }

// closingQuote returns the position of the quote q that closes a value
// starting at vs, or -1 (none before limit, or a line break first).
func closingQuote(s string, vs, limit int, q string) int {
	if len(q) == 1 {
		for k := vs; k < limit; k++ {
			switch s[k] {
			case '\n':
				return -1
			case '\\':
				k++ // an escaped character, the quote too
			case q[0]:
				return k
			}
		}
		return -1
	}
	k := strings.Index(s[vs:limit], q)
	if k < 0 || strings.IndexByte(s[vs:vs+k], '\n') >= 0 {
		return -1
	}
	return vs + k
}

var (
	// hardStop always ends an unquoted value; ESC starts the colour code
	// after a coloured one.
	hardStop = newCharset(" \t\r\n\"'`\\\x1b")
	// softStop ends an unquoted value only where it plainly ends it: a
	// password may hold any of them.
	softStop = newCharset(",;&|<>(){}[]")
	csName   = newCharset("a-zA-Z0-9_.-")
)

// valueEnd returns the end of the unquoted value at j: up to white space, a
// quote or a backslash (a JSON escape, except an escaped < > &), and
// through the punctuation a password may hold unless it ends the value
// (at the end of the word, before the next name=, a closing bracket that
// was not opened). code is true when the value is a call or a subscript.
func valueEnd(s string, j, limit int) (e int, code bool) {
	depth := 0
	for e = j; e < limit; e++ {
		c := s[e]
		if hardStop[c] {
			if n := escapedChar(s, e); n > 0 {
				e += n - 1
				continue
			}
			return e, false
		}
		if !softStop[c] {
			continue
		}
		switch c {
		case '(', '[':
			if isIdentPath(s[j:e]) {
				return e, true // f(x), args[0]
			}
			depth++
		case '{', '<':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return e, false
			}
			depth--
		case '>':
			if depth > 0 {
				depth--
			} else if e+1 >= len(s) || hardStop[s[e+1]] {
				return e, false
			}
		default: // , ; & |
			// The value ends before the next name= or where the
			// punctuation ends the word; otherwise it is the password's.
			k := e + 1
			for k < len(s) && k-e < 8 && softStop[s[k]] {
				k++
			}
			if depth == 0 && (k >= len(s) || hardStop[s[k]] && escapedChar(s, k) == 0 || namePair(s, e+1)) {
				return e, false
			}
		}
	}
	return e, false
}

// namePair reports whether a name= pair starts at k (the next parameter
// of a query string or a connection string).
func namePair(s string, k int) bool {
	if k >= len(s) || !(isLowerByte(s[k]) || isUpperByte(s[k]) || s[k] == '_') {
		return false
	}
	e := run(s, k, csName, 64)
	return e < len(s) && s[e] == '='
}

// isIdentPath reports whether v is an identifier or a dotted path of them
// (cfg.db.password).
func isIdentPath(v string) bool {
	if v == "" {
		return false
	}
	start := true
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '.':
			if start {
				return false
			}
			start = true
		case isLowerByte(c) || isUpperByte(c) || c == '_' || c == '$':
			start = false
		case '0' <= c && c <= '9':
			if start {
				return false
			}
		default:
			return false
		}
	}
	return !start
}

// refRoots start a dotted value that reads a variable: self.password,
// cfg.db.password, process.env.X.
var refRoots = map[string]bool{
	"self": true, "this": true, "cls": true, "cfg": true, "conf": true, "config": true, "settings": true,
	"args": true, "opts": true, "options": true, "params": true, "env": true, "os": true, "process": true,
	"request": true, "req": true, "ctx": true, "context": true, "app": true, "data": true, "user": true,
	"form": true, "props": true, "state": true, "input": true, "values": true, "secrets": true, "vault": true,
	"credentials": true, "creds": true, "db": true, "database": true, "model": true, "module": true,
	"window": true, "flags": true, "session": true, "store": true, "client": true, "auth": true,
	"account": true, "profile": true, "payload": true, "body": true, "vars": true, "var": true, "item": true,
	"row": true, "record": true, "result": true, "event": true, "opt": true, "conn": true, "spec": true,
}

// secretWords are the keywords that make an identifier a variable holding
// a secret rather than the secret.
var secretWords = []string{"pass", "pwd", "secret", "token", "key", "auth", "cred"}

// isReference reports whether v reads a variable: a dotted path from a
// known root (or a one-letter one), or an identifier naming a secret
// (password, db_pass, self.token).
func isReference(v string) bool {
	if !isIdentPath(v) {
		return false
	}
	segs := strings.Split(v, ".")
	if len(segs) > 1 && (refRoots[strings.ToLower(segs[0])] || len(segs[0]) == 1) {
		return true
	}
	last := strings.ToLower(segs[len(segs)-1])
	for _, w := range secretWords {
		if strings.Contains(last, w) {
			return true
		}
	}
	return false
}

// typeNames are what follows "password:" in a type annotation.
var typeNames = map[string]bool{
	"str": true, "string": true, "int": true, "integer": true, "bool": true, "boolean": true, "bytes": true,
	"byte": true, "number": true, "float": true, "double": true, "any": true, "object": true, "char": true,
	"text": true, "varchar": true, "optional": true, "secretstr": true, "secretstring": true, "list": true,
	"dict": true, "map": true, "uuid": true, "date": true, "datetime": true, "void": true, "unknown": true,
	"never": true, "charfield": true, "passwordfield": true, "securestring": true, "sensitive": true,
}

var tlds = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true, "local": true, "internal": true,
	"localhost": true, "lan": true, "co": true, "app": true, "cloud": true, "svc": true, "cluster": true,
}

// secretValue reports whether v, assigned to a key of kind, is a secret.
// A random-looking value always is; a password also when it is short or
// made of words, if it is a literal (lit) or does not read like code.
func secretValue(v, kind string, lit bool) bool {
	if v == "" {
		return false
	}
	if len(v) > maxValue {
		return longSecret(v)
	}
	if kind != "password" {
		if isPlaceholder(v) {
			return false
		}
		if looksSecret(v, 10) {
			return true
		}
		// A short literal secret: letters and digits mixed (TOKEN=abc123).
		return lit && len(v) >= 6 && hasDigitAndLetter(v) && !isPath(v) && !isReference(v) && !hasSpace(v)
	}
	if placeholderPassword(v) {
		return false
	}
	if looksSecret(v, 8) {
		return true
	}
	if len(v) < 4 || v[0] == '-' || isPath(v) || hasSpace(v) || isReference(v) ||
		typeNames[strings.ToLower(strings.TrimSuffix(v, "!"))] {
		return false
	}
	if passphrase(v) || lit {
		return true
	}
	// In code, an unquoted word may be a variable: only a value with a
	// digit or a symbol is surely a literal.
	for i := 0; i < len(v); i++ {
		c := v[i]
		if '0' <= c && c <= '9' || !isLowerByte(c) && !isUpperByte(c) && c != '_' && c != '.' && c != '-' {
			return true
		}
	}
	return false
}

// passphrase reports whether v is words joined by dots
// (correct.horse.battery.staple), not a host name nor a file.
func passphrase(v string) bool {
	segs := strings.Split(v, ".")
	if len(segs) < 3 || tlds[strings.ToLower(segs[len(segs)-1])] || hasFileExt(v) {
		return false
	}
	for _, seg := range segs {
		if len(seg) < 2 {
			return false
		}
		for i := 0; i < len(seg); i++ {
			if !isLowerByte(seg[i]) && !isUpperByte(seg[i]) {
				return false
			}
		}
	}
	return true
}

func hasSpace(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] >= 0x7f {
			return true
		}
	}
	return false
}

// isPath reports whether v is a file path or a URL.
func isPath(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") ||
		strings.HasPrefix(v, "~/") || strings.Contains(v, "://") || hasFileExt(v)
}

// secretKey reports whether a key names a secret, and the kind its value
// gets: "password", "aws-secret-access-key" or "secret".
func secretKey(key string) (string, bool) {
	var buf [16]string
	// Lower-cased once: an upper-case key (PGPASSWORD) costs one
	// allocation, not one per part.
	segs := splitKeyOf(key, strings.ToLower(key), buf[:0])
	if len(segs) == 0 {
		return "", false
	}
	if benignLast[segs[len(segs)-1]] {
		return "", false
	}
	kind := ""
	hasAWS, hasSecret := false, false
	for n, l := range segs {
		switch {
		case strings.Contains(l, "password") || strings.Contains(l, "passwd") || strings.Contains(l, "passphrase") ||
			l == "pass" || l == "pwd" || strings.HasSuffix(l, "pwd"):
			return "password", true
		case strings.Contains(l, "secret"):
			hasSecret = true
			kind = "secret"
			if strings.Contains(l, "secretaccesskey") {
				return "aws-secret-access-key", true
			}
		case l == "token" || strings.HasSuffix(l, "token") || strings.Contains(l, "credential") || l == "auth":
			kind = "secret"
		case l == "key" && n > 0 && keyQualifiers[segs[n-1]]:
			kind = "secret"
		case strings.HasSuffix(l, "apikey") || strings.HasSuffix(l, "accesskey") || strings.HasSuffix(l, "privatekey") ||
			strings.HasSuffix(l, "secretkey") || strings.HasSuffix(l, "authkey"):
			kind = "secret"
		case l == "aws":
			hasAWS = true
		}
	}
	if kind == "" {
		return "", false
	}
	if hasAWS && hasSecret {
		return "aws-secret-access-key", true
	}
	if hasSecret && segs[len(segs)-1] == "key" && len(segs) >= 3 && segs[len(segs)-2] == "access" {
		return "aws-secret-access-key", true
	}
	return kind, true
}

// keyQualifiers make "<qualifier> key" name a secret (api_key, signingKey);
// a bare "key" or a sort_key does not.
var keyQualifiers = map[string]bool{
	"api": true, "access": true, "secret": true, "private": true, "signing": true, "sign": true, "encryption": true,
	"enc": true, "master": true, "client": true, "app": true, "account": true, "license": true, "licence": true,
	"service": true, "session": true, "admin": true, "webhook": true, "auth": true, "deploy": true,
	"subscription": true, "consumer": true, "storage": true, "shared": true, "root": true, "hmac": true, "jwt": true,
	"cookie": true, "crypto": true, "aes": true, "gpg": true, "pgp": true, "ssh": true, "write": true, "read": true,
	"live": true, "test": true, "server": true, "bot": true, "integration": true, "ingest": true, "dsn": true,
}

// benignLast are last key segments that name something about a secret,
// not the secret itself (token_type, password_file, api_key_id).
var benignLast = map[string]bool{
	"id": true, "ids": true, "name": true, "names": true, "type": true, "types": true, "file": true, "files": true,
	"path": true, "dir": true, "url": true, "uri": true, "endpoint": true, "length": true, "len": true, "count": true,
	"size": true, "ttl": true, "expiry": true, "expires": true, "expiration": true, "exp": true, "env": true,
	"var": true, "field": true, "header": true, "prefix": true, "suffix": true, "hint": true, "policy": true,
	"mode": true, "usage": true, "limit": true, "provider": true, "kind": true, "label": true, "version": true,
	"format": true, "hash": true, "location": true, "ref": true, "arn": true, "enabled": true, "required": true,
	"min": true, "max": true, "regex": true, "pattern": true, "store": true, "source": true, "method": true,
	"scheme": true, "class": true, "config": true, "manager": true, "index": true, "idx": true, "at": true,
	"created": true, "updated": true, "fingerprint": true, "cmd": true, "command": true, "helper": true,
	"param": true, "input": true, "placeholder": true, "tokens": true, "budget": true, "key_id": true,
}

// splitKey splits a key into its words: at _ . - and at case changes
// (apiKey, APIKey, DBPassword).
func splitKey(key string, segs []string) []string { return splitKeyOf(key, key, segs) }

// splitKeyOf splits key as splitKey does, and returns the same parts of
// text, a string of the same length (key in lower case).
func splitKeyOf(key, text string, segs []string) []string {
	start := 0
	flush := func(end int) {
		if end > start && len(segs) < cap(segs) {
			segs = append(segs, text[start:end])
		}
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '_' || c == '.' || c == '-':
			flush(i)
			start = i + 1
		case i > start && isUpperByte(c) && !isUpperByte(key[i-1]):
			flush(i)
			start = i
		case i > start+1 && !isUpperByte(c) && isLowerByte(c) && isUpperByte(key[i-1]) && isUpperByte(key[i-2]):
			flush(i - 1)
			start = i - 1
		}
	}
	flush(len(key))
	return segs
}

func isUpperByte(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerByte(c byte) bool { return 'a' <= c && c <= 'z' }

// indexFold is strings.Index ignoring ASCII case; sub is lower-case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if hasPrefixFold(s[i:], sub) {
			return i
		}
	}
	return -1
}

// looksSecret reports whether a value assigned to a secret-named key (or
// sent as a bearer credential) looks like a real secret: long enough, not
// a placeholder, a reference or an identifier, and random enough.
func looksSecret(v string, minLen int) bool {
	if len(v) < minLen {
		return false
	}
	if len(v) > maxValue {
		return longSecret(v)
	}
	var lo, up, dg, special int
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c <= ' ' || c >= 0x7f:
			return false
		case 'a' <= c && c <= 'z':
			lo++
		case 'A' <= c && c <= 'Z':
			up++
		case '0' <= c && c <= '9':
			dg++
		case c == '_' || c == '.' || c == '-' || c == '/':
		default:
			special++
		}
	}
	if dg == len(v) || lo+up == 0 && special == 0 {
		return false
	}
	if dg == 0 && (special == 0 && (len(v) < 32 || lo == 0 || up == 0) || strings.Contains(v, ".")) {
		return false // an identifier, a dotted reference, a file name
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/") ||
		strings.Contains(v, "://") || hasFileExt(v) {
		return false
	}
	need := 3.2
	switch {
	case len(v) < 12:
		need = 2.5
	case len(v) < 20:
		need = 3.0
	}
	return entropy(v) >= need && !isPlaceholder(v)
}

func hasFileExt(v string) bool {
	k := strings.LastIndexByte(v, '.')
	if k < 0 {
		return false
	}
	switch strings.ToLower(v[k+1:]) {
	case "json", "yaml", "yml", "txt", "pem", "key", "env", "toml", "ini", "conf", "cfg", "crt", "cer", "p12", "pfx", "jks", "gpg", "asc", "go", "py", "js", "ts", "rb", "sh":
		return true
	}
	return false
}

// placeholderRefs mark a value as a template or a reference wherever
// they occur in it.
var placeholderRefs = []string{
	"redacted", "****", "${", "$(", "{{", "}}", "%(", "%s", "getenv", "environ", "process.env", "secrets.",
	"vault:", "...", "…",
}

// placeholderWords are the words of an example value. A value made of them
// (and of letters joined to them: your_api_key_here, MyChangeMe, a short
// number: changeme123) is not a secret; one that carries more beside them
// is (Acme2025ChangeMe).
var placeholderWords = []string{
	"changeme", "change_me", "change-me", "example", "placeholder", "xxx", "your_", "your-", "yourpass",
	"yourtoken", "yoursecret", "yourkey", "dummy", "replace", "insert", "fake", "sample",
}

// placeholderFirst indexes the parts (0: a reference, 1: a word) by their
// first byte, so that a value is checked against all of them in one pass.
var placeholderFirst = func() (idx [2][256][]string) {
	for _, p := range placeholderRefs {
		idx[0][p[0]] = append(idx[0][p[0]], p)
	}
	for _, p := range placeholderWords {
		idx[1][p[0]] = append(idx[1][p[0]], p)
	}
	return idx
}()

// isPlaceholder reports whether a value is a template, a reference or an
// example rather than a secret.
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	if strings.Contains(v, `\u00`) {
		v = jsonChars.Replace(v) // <password> as encoding/json writes it
	}
	switch v[0] {
	case '$', '%', '<', '{', '[':
		return true
	case '!': // a YAML tag: !vault, !Ref
		if isIdentPath(v[1:]) {
			return true
		}
	}
	if angleWord(v) {
		return true // <your-password>, pass<PASSWORD>word
	}
	if strings.Contains(v, "EXAMPLE") {
		return true // AWS's documented keys: AKIAIOSFODNN7EXAMPLE
	}
	var buf [maxValue]byte
	l := buf[:0]
	for i := 0; i < len(v) && i < len(buf); i++ {
		l = append(l, lower(v[i]))
	}
	// word[i]: l[i] belongs to a placeholder word or to letters joined to it.
	var word [maxValue]bool
	words := false
	for i, c := range l {
		for _, p := range placeholderFirst[0][c] {
			if len(l)-i >= len(p) && string(l[i:i+len(p)]) == p {
				return true
			}
		}
		for _, p := range placeholderFirst[1][c] {
			if len(l)-i >= len(p) && string(l[i:i+len(p)]) == p {
				words = true
				a, b := i, i+len(p)
				for a > 0 && joined(l[a-1]) {
					a--
				}
				for b < len(l) && joined(l[b]) {
					b++
				}
				for k := a; k < b; k++ {
					word[k] = true
				}
			}
		}
	}
	if words {
		rest := 0
		for i, c := range l {
			if !word[i] && csAlnum[c] {
				rest++
			}
		}
		if rest < 4 {
			return true
		}
	}
	switch string(l) {
	case "none", "null", "nil", "true", "false", "undefined", "string", "required", "optional", "hidden", "masked", "empty", "todo", "fixme":
		return true
	}
	return false
}

var jsonChars = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")

// angleWord reports whether v holds a word in angle brackets: <token>,
// <YOUR API KEY>; a password with < and > in it (s<s>) does not.
func angleWord(v string) bool {
	for k := strings.IndexByte(v, '<'); k >= 0; {
		e := strings.IndexByte(v[k+1:], '>')
		if e < 0 {
			return false
		}
		w := v[k+1 : k+1+e]
		if len(w) >= 2 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_- ") == "" {
			return true
		}
		n := strings.IndexByte(v[k+1:], '<')
		if n < 0 {
			return false
		}
		k += 1 + n
	}
	return false
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var freq [256]uint32
	for i := 0; i < len(s); i++ {
		freq[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// longSecret reports whether v, a value longer than maxValue, is a
// secret: the token alphabet throughout, letters and digits mixed, and
// random (a repeated or a word-made run is not). Length never makes a
// value safe.
func longSecret(v string) bool {
	if run(v, 0, csLong, len(v)) != len(v) || !hasDigitAndLetter(v) || strings.Contains(v, "://") {
		return false
	}
	return entropy(v) >= 3.5 && !isPlaceholder(v)
}

// joined reports whether c goes on a placeholder word: a letter or a
// separator (your_api_key_here).
func joined(c byte) bool { return isLowerByte(c) || c == '_' || c == '-' }

// iniEntry reports whether the key at ks starts a line of an INI file: a
// [section] line comes before it in the text. What is searched is
// remembered, so that the keys of a long text cost a pass in all.
func (sc *scan) iniEntry(ks int) bool {
	s := sc.s
	ls := ks
	for ls > 0 && (s[ls-1] == ' ' || s[ls-1] == '\t') {
		ls--
	}
	if !atLineStart(s, ls) {
		return false
	}
	from := max(sc.iniFrom, ks-maxIniGap)
	sc.work += ks - from
	for k := from; k < ks; k++ {
		if s[k] != '[' || !atLineStart(s, k) {
			continue
		}
		e := k + 1
		for e < ks && s[e] != ']' && s[e] != '\n' && s[e] != '\\' && e-k < 128 {
			e++
		}
		if e < ks && s[e] == ']' && e > k+1 {
			if _, ok := lineBreakAt(s, e+1); ok {
				sc.iniAt = k
			}
		}
	}
	sc.iniFrom = ks
	return sc.iniAt >= 0 && ks-sc.iniAt < maxIniGap
}

// maxIniGap bounds how far a [section] line is looked for before a key.
const maxIniGap = 1 << 14

// backslashEquals is the length of the backslashes and = at j (\=, or \\=
// in JSON), 0 when there are none.
func backslashEquals(s string, j int) int {
	k := j
	for k < len(s) && k-j < 4 && s[k] == '\\' {
		k++
	}
	if k > j && k < len(s) && s[k] == '=' {
		return k + 1 - j
	}
	return 0
}
