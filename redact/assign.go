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
// key := "value", --key value and the like, when the key names a secret and
// the value looks random.
func matchAssignment(s string, i int, ru *rule, emit func(span)) int {
	ks := i
	for ks > 0 && csKey[s[ks-1]] {
		if i-ks >= maxKey {
			return 0 // inside base64 or a long identifier, not a key
		}
		ks--
	}
	// A key holding several keywords is parsed from its first one only.
	for _, kw := range keyKeywords {
		if k := indexFold(s[ks:i], kw); k >= 0 {
			return 0
		}
	}
	if strings.HasSuffix(s[:ks], "://") {
		return 0 // a URL's user name: the URL rule masks its password
	}
	ke := run(s, i, csKey, maxKey+1)
	if ke-ks > maxKey {
		return 0
	}
	key := s[ks:ke]
	flag := strings.HasPrefix(key, "-")
	key = strings.TrimLeft(key, "-")
	kind, ok := secretKey(key)
	if !ok {
		return 0
	}
	j := skipQuote(s, ke)
	quoted := j > ke
	if j < len(s) && s[j] == ']' { // ENV["SECRET"] = ...
		j++
	}
	j, spaced := afterSpaces(s, j)
	switch {
	case j >= len(s):
		return 0
	case s[j] == '=':
		if j+1 < len(s) && s[j+1] == '=' {
			return 0 // a comparison
		}
		j++
		if j < len(s) && s[j] == '>' {
			j++
		}
	case s[j] == ':':
		if j+1 < len(s) && s[j+1] == ':' {
			return 0 // Token::new
		}
		j++
		if j < len(s) && s[j] == '=' {
			j++
		} else if !quoted && (j >= len(s) || s[j] != ' ' && s[j] != '\t' && quoteLen(s, j) == 0) {
			return 0 // not YAML (key: value) nor JSON: an ARN, a URL, a time
		}
	case flag && spaced:
	default:
		return 0
	}
	j, _ = afterSpaces(s, j)
	vs, ve, ok := value(s, j)
	if !ok || ve < len(s) && s[ve] == '(' {
		return 0 // a call: token = Base.encode64(...)
	}
	if strings.HasPrefix(s[ve:], labelPrefix) {
		return 0 // what is left of a value whose rest is masked already
	}
	minLen := 10
	if kind == "password" {
		minLen = 8
	}
	if looksSecret(s[vs:ve], minLen) {
		emit(span{start: vs, end: ve, kind: kind, prio: ru.prio})
	}
	return 0
}

// value returns the bounds of the value starting at j: quoted (also with
// JSON-escaped quotes) or up to the next separator.
func value(s string, j int) (int, int, bool) {
	if j >= len(s) {
		return 0, 0, false
	}
	if n := quoteLen(s, j); n > 0 {
		q := s[j : j+n]
		vs := j + len(q)
		lim := s[vs:min(len(s), vs+512)]
		k := strings.Index(lim, q)
		if k < 0 || strings.IndexByte(lim[:k], '\n') >= 0 {
			return 0, 0, false
		}
		return vs, vs + k, true
	}
	e := j
	for e < len(s) && e-j < 512 && !valueStop[s[e]] {
		e++
	}
	return j, e, e > j
}

// secretKey reports whether a key names a secret, and the kind its value
// gets: "password", "aws-secret-access-key" or "secret".
func secretKey(key string) (string, bool) {
	var buf [16]string
	segs := splitKey(key, buf[:0])
	if len(segs) == 0 {
		return "", false
	}
	if benignLast[strings.ToLower(segs[len(segs)-1])] {
		return "", false
	}
	kind := ""
	hasAWS, hasSecret := false, false
	for n, seg := range segs {
		l := strings.ToLower(seg)
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
		case l == "key" && n > 0 && keyQualifiers[strings.ToLower(segs[n-1])]:
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
	if hasSecret && strings.EqualFold(segs[len(segs)-1], "key") && len(segs) >= 3 && strings.EqualFold(segs[len(segs)-2], "access") {
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
func splitKey(key string, segs []string) []string {
	start := 0
	flush := func(end int) {
		if end > start && len(segs) < cap(segs) {
			segs = append(segs, key[start:end])
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
	if len(v) < minLen || len(v) > 512 {
		return false
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

// placeholderParts mark a value as a template, a reference or an example.
var placeholderParts = []string{
	"changeme", "change_me", "change-me", "example", "placeholder", "redacted", "xxxx", "****", "your_", "your-",
	"yourpass", "yourtoken", "yoursecret", "yourkey", "dummy", "replace", "insert", "${", "$(", "{{", "}}",
	"%(", "%s", "getenv", "environ", "process.env", "secrets.", "vault:", "...", "…", "<", ">", "fake", "sample",
}

// isPlaceholder reports whether a value is a template, a reference or an
// example rather than a secret.
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '%', '<', '{', '[':
		return true
	}
	l := strings.ToLower(v)
	for _, p := range placeholderParts {
		if strings.Contains(l, p) {
			return true
		}
	}
	switch l {
	case "none", "null", "nil", "true", "false", "undefined", "string", "required", "optional", "hidden", "masked", "empty", "todo", "fixme":
		return true
	}
	return false
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var freq [256]int
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
