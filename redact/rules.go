package redact

import (
	"slices"
	"strings"
)

// rule is one detector, triggered where its literal prefix occurs.
type rule struct {
	prefix string // literal at the trigger position; lower-case when fold
	fold   bool   // prefix matches in any ASCII case
	kind   string
	prio   int
	idx    int // index in Redactor.rules
	// skipCovered: the rule is not tried inside a secret found already.
	skipCovered bool
	// match inspects sc.s around i, where prefix occurs, and emits the
	// secrets it finds. It returns the position before which the rule need
	// not be tried again (0: anywhere).
	match func(sc *scan, i int, ru *rule) int
	// token rules: the body after the prefix.
	body       *charset
	min, max   int  // body length; max 0: unbounded (capped at maxToken)
	strictMax  bool // a longer run is something else, not a token
	boundary   bool // the prefix must not follow a letter or digit
	rightBound bool // the body must not be followed by a letter or digit
	check      func(body string) bool
}

// Priorities of overlapping finds: the most specific names the kind.
const (
	prioToken   = 10 // a token recognised by its own prefix
	prioShape   = 20 // JWT, PEM, URL userinfo, headers
	prioKeyed   = 30 // a value assigned to a secret-named key
	prioCustom  = 5
	maxToken    = 1024
	maxPEMBytes = 20000
)

// charset is a set of bytes.
type charset [256]bool

func newCharset(ranges ...string) *charset {
	var c charset
	for _, r := range ranges {
		for i := 0; i < len(r); i++ {
			if i+2 < len(r) && r[i+1] == '-' {
				for b := r[i]; b <= r[i+2]; b++ {
					c[b] = true
				}
				i += 2
				continue
			}
			c[r[i]] = true
		}
	}
	return &c
}

var (
	csAlnum    = newCharset("a-zA-Z0-9")
	csUpperNum = newCharset("A-Z0-9")
	csHex      = newCharset("a-fA-F0-9")
	csWord     = newCharset("a-zA-Z0-9_")
	csURLSafe  = newCharset("a-zA-Z0-9_-")
	csDotted   = newCharset("a-zA-Z0-9_.-")
	csB64      = newCharset("a-zA-Z0-9+/=")
	csB64Any   = newCharset("a-zA-Z0-9+/=_-")
	csSAS      = newCharset("a-zA-Z0-9%+/=")
	csHexDash  = newCharset("a-fA-F0-9-")
	csDigit    = newCharset("0-9")
)

func isAlnum(c byte) bool { return csAlnum[c] }

// wordBefore reports whether the byte before i is one of cs that goes on
// a word, so that what starts at i is the tail of something longer rather
// than a token of its own. The letter that ends an escape is no word's: a
// JSON or C "\n" or "\t" (a tool printing JSON, a log, a transcript) and
// an ANSI colour code (coloured output, grep --color) put one right
// before a key.
func wordBefore(s string, i int, cs *charset) bool {
	return i > 0 && cs[s[i-1]] && !escapeEnd(s, i)
}

// escapeEnd reports whether s[:i] ends with a character escape (\n, \r,
// \t) or an ANSI CSI sequence (ESC [ digits and semicolons, then m or K;
// ESC itself possibly escaped as \u001b, \x1b or \033).
func escapeEnd(s string, i int) bool {
	switch c := s[i-1]; c {
	case 'n', 'r', 't':
		return i >= 2 && s[i-2] == '\\'
	case 'm', 'K':
		k := i - 2
		for k >= 0 && i-k < 16 && (csDigit[s[k]] || s[k] == ';') {
			k--
		}
		if k < 0 || s[k] != '[' {
			return false
		}
		esc := s[max(0, k-6):k]
		return strings.HasSuffix(esc, "\x1b") || hasSuffixFold(esc, `\u001b`) || hasSuffixFold(esc, `\x1b`) ||
			strings.HasSuffix(esc, `\033`)
	}
	return false
}

// hasSuffixFold reports whether s ends with suffix (lower-case ASCII),
// ignoring ASCII case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && hasPrefixFold(s[len(s)-len(suffix):], suffix)
}

// run returns the end of the run of bytes in cs starting at i, at most
// limit bytes long.
func run(s string, i int, cs *charset, limit int) int {
	j := i
	for j < len(s) && j-i < limit && cs[s[j]] {
		j++
	}
	return j
}

// tok builds a token rule: prefix, then a body of min..max bytes of cs.
func tok(kind, prefix string, cs *charset, min, max int, opts ...func(*rule)) *rule {
	r := &rule{prefix: prefix, kind: kind, prio: prioToken, body: cs, min: min, max: max, match: matchToken}
	for _, o := range opts {
		o(r)
	}
	return r
}

func bounded(r *rule)      { r.boundary = true }
func strict(r *rule)       { r.strictMax, r.rightBound = true, true }
func rightBounded(r *rule) { r.rightBound = true }
func checked(f func(string) bool) func(*rule) {
	return func(r *rule) { r.check = f }
}

// matchToken masks prefix and body.
func matchToken(sc *scan, i int, ru *rule) int {
	s := sc.s
	if ru.boundary && wordBefore(s, i, csAlnum) {
		return 0
	}
	b := i + len(ru.prefix)
	limit := maxToken
	if ru.max > 0 && ru.strictMax {
		limit = ru.max + 1
	}
	e := sc.run(b, ru.body, limit)
	if e-b == maxToken {
		// Longer than any token of the kind: masked whole all the same,
		// length never switches masking off.
		e = sc.run(e, ru.body, maxLong)
	}
	n := e - b
	if _, ok := lineBreakAt(s, e); ok && (n < ru.min || !ru.strictMax) {
		// Wrapped: the token goes on at the next line's start.
		f := fold{ls: lineStartOf(s, i)}
		if e2, br := sc.foldedEnd(e, &f, ru.body, n < ru.min); e2 > e {
			e, n = e2, e2-b-br
		}
	}
	// A later occurrence of the prefix inside this run would only see a
	// suffix of it: shorter, failing the same checks (which are monotone),
	// or after a letter or digit (every strict rule is bounded). So the
	// rule skips to the run's end: repeated prefixes stay linear.
	// A body the end of the text cuts short is the first part of a token
	// cut in two, whose rest a Stream masks in the next text.
	cut := e == len(s) && n >= cutBody
	if n < ru.min && !cut || ru.strictMax && ru.max > 0 && n > ru.max {
		return e
	}
	if ru.rightBound && e < len(s) && isAlnum(s[e]) {
		return e
	}
	if ru.check != nil && !ru.check(s[b:e]) {
		return e
	}
	sc.emit(span{start: i, end: e, kind: ru.kind, prio: ru.prio})
	return e
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func hasDigitAndLetter(s string) bool {
	d, l := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			d = true
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			l = true
		}
	}
	return d && l
}

// builtinRules returns the built-in detectors. Kinds are what labels and
// counts show.
func builtinRules() []*rule {
	rs := []*rule{
		// Cloud providers.
		tok("aws-access-key-id", "AKIA", csUpperNum, 16, 16, bounded, strict, checked(hasDigit)),
		tok("aws-access-key-id", "ASIA", csUpperNum, 16, 16, bounded, strict, checked(hasDigit)),
		tok("aws-access-key-id", "ABIA", csUpperNum, 16, 16, bounded, strict, checked(hasDigit)),
		tok("aws-access-key-id", "ACCA", csUpperNum, 16, 16, bounded, strict, checked(hasDigit)),
		tok("google-api-key", "AIza", csURLSafe, 35, 35, bounded),
		tok("google-oauth-token", "ya29.", csDotted, 20, 0, bounded),
		tok("google-oauth-client-secret", "GOCSPX-", csURLSafe, 20, 0),
		tok("google-refresh-token", "1//0", csURLSafe, 30, 0, bounded),
		tok("azure-storage-key", "AccountKey=", csB64, 40, 0),
		tok("azure-service-bus-key", "SharedAccessKey=", csB64, 20, 0),
		tok("azure-sas-signature", "sig=", csSAS, 30, 0, checked(hasDigitAndLetter)),
		tok("digitalocean-token", "dop_v1_", csHex, 64, 0),
		tok("digitalocean-token", "doo_v1_", csHex, 64, 0),
		tok("digitalocean-token", "dor_v1_", csHex, 64, 0),
		tok("heroku-api-key", "HRKU-", csURLSafe, 20, 0),
		tok("databricks-token", "dapi", csHex, 32, 0, bounded, rightBounded),
		tok("supabase-token", "sbp_", csHex, 40, 0),
		tok("vault-token", "hvs.", csURLSafe, 24, 0, bounded),
		tok("vault-token", "hvb.", csURLSafe, 24, 0, bounded),
		tok("pulumi-token", "pul-", csHex, 40, 0, bounded),
		tok("doppler-token", "dp.pt.", csAlnum, 40, 0),
		tok("doppler-token", "dp.st.", csAlnum, 40, 0),
		// AI providers.
		tok("anthropic-api-key", "sk-ant-", csURLSafe, 20, 0),
		tok("openai-api-key", "sk-proj-", csURLSafe, 20, 0),
		tok("openai-api-key", "sk-svcacct-", csURLSafe, 20, 0),
		tok("openai-api-key", "sk-admin-", csURLSafe, 20, 0),
		tok("openai-api-key", "sk-None-", csURLSafe, 20, 0),
		tok("openai-api-key", "sk-", csAlnum, 32, 0, bounded, rightBounded, checked(hasDigitAndLetter)),
		tok("huggingface-token", "hf_", csAlnum, 30, 0, bounded),
		tok("groq-api-key", "gsk_", csAlnum, 40, 0, bounded),
		tok("xai-api-key", "xai-", csAlnum, 60, 0, bounded),
		tok("replicate-token", "r8_", csAlnum, 30, 0, bounded),
		// Code hosting and packages.
		tok("github-pat", "ghp_", csAlnum, 30, 0),
		tok("github-oauth-token", "gho_", csAlnum, 30, 0),
		tok("github-app-token", "ghu_", csAlnum, 30, 0),
		tok("github-app-token", "ghs_", csAlnum, 30, 0),
		tok("github-refresh-token", "ghr_", csAlnum, 30, 0),
		tok("github-fine-grained-pat", "github_pat_", csWord, 40, 0),
		tok("gitlab-token", "glpat-", csURLSafe, 20, 0),
		tok("gitlab-token", "gldt-", csURLSafe, 20, 0),
		tok("gitlab-token", "glrt-", csURLSafe, 20, 0),
		tok("gitlab-token", "glptt-", csURLSafe, 20, 0),
		tok("gitlab-token", "GR1348941", csURLSafe, 20, 0),
		tok("npm-token", "npm_", csAlnum, 36, 0, bounded),
		tok("pypi-token", "pypi-AgE", csURLSafe, 50, 0),
		tok("dockerhub-token", "dckr_pat_", csURLSafe, 20, 0),
		tok("dockerhub-token", "dckr_oat_", csURLSafe, 20, 0),
		tok("atlassian-api-token", "ATATT3", csB64Any, 100, 0),
		tok("atlassian-api-token", "ATCTT3", csB64Any, 100, 0),
		tok("linear-api-key", "lin_api_", csAlnum, 40, 0),
		tok("notion-token", "ntn_", csAlnum, 40, 0, bounded),
		tok("notion-token", "secret_", csAlnum, 43, 43, bounded, strict),
		tok("sentry-token", "sntrys_", csB64Any, 50, 0),
		tok("sentry-token", "sntryu_", csHex, 64, 0),
		tok("postman-api-key", "PMAK-", csHexDash, 50, 0),
		tok("grafana-token", "glsa_", csWord, 32, 0),
		tok("grafana-token", "glc_", csB64, 32, 0, bounded),
		tok("newrelic-key", "NRAK-", csUpperNum, 27, 0),
		// Messaging, payments, e-mail.
		tok("slack-token", "xoxb-", csURLSafe, 10, 0),
		tok("slack-token", "xoxp-", csURLSafe, 10, 0),
		tok("slack-token", "xoxa-", csURLSafe, 10, 0),
		tok("slack-token", "xoxo-", csURLSafe, 10, 0),
		tok("slack-token", "xoxs-", csURLSafe, 10, 0),
		tok("slack-token", "xoxr-", csURLSafe, 10, 0),
		tok("slack-token", "xoxe.xox", csURLSafe, 10, 0),
		tok("slack-token", "xapp-", csURLSafe, 10, 0),
		{prefix: "hooks.slack.com/", kind: "slack-webhook", prio: prioToken, match: matchSlackWebhook},
		{prefix: "/api/webhooks/", kind: "discord-webhook", prio: prioToken, match: matchDiscordWebhook},
		tok("stripe-secret-key", "sk_live_", csAlnum, 10, 0),
		tok("stripe-secret-key", "sk_test_", csAlnum, 10, 0),
		tok("stripe-secret-key", "rk_live_", csAlnum, 10, 0),
		tok("stripe-secret-key", "rk_test_", csAlnum, 10, 0),
		tok("stripe-webhook-secret", "whsec_", csB64, 24, 0),
		tok("twilio-api-key", "SK", csHex, 32, 32, bounded, strict),
		{prefix: "SG.", kind: "sendgrid-api-key", prio: prioToken, match: matchSendGrid},
		tok("mailgun-api-key", "key-", csHex, 32, 32, bounded, strict),
		tok("square-token", "sq0atp-", csURLSafe, 22, 0),
		tok("square-token", "sq0csp-", csURLSafe, 40, 0),
		tok("square-token", "EAAA", csURLSafe, 60, 0, bounded),
		tok("shopify-token", "shpat_", csHex, 32, 0),
		tok("shopify-token", "shpss_", csHex, 32, 0),
		tok("shopify-token", "shpca_", csHex, 32, 0),
		tok("shopify-token", "shppa_", csHex, 32, 0),
		{prefix: ":AA", kind: "telegram-bot-token", prio: prioToken, match: matchTelegram},
		tok("mapbox-secret-token", "sk.eyJ", csDotted, 50, 0, bounded),
		tok("age-secret-key", "AGE-SECRET-KEY-1", csUpperNum, 50, 0),
		// Shapes.
		{prefix: "eyJ", kind: "jwt", prio: prioShape, match: matchJWT},
		{prefix: "-----BEGIN ", kind: "private-key", prio: prioShape, match: matchPEM},
		{prefix: "-----END ", kind: "private-key", prio: prioShape, match: matchPEMEnd, skipCovered: true},
		{prefix: "://", kind: "url-password", prio: prioShape, match: matchURLPassword},
		{prefix: "@tcp(", kind: "url-password", prio: prioShape, match: matchDSNPassword},
		{prefix: "@unix(", kind: "url-password", prio: prioShape, match: matchDSNPassword},
		{prefix: "bearer", fold: true, kind: "bearer-token", prio: prioShape, match: matchBearer},
		{prefix: "basic", fold: true, kind: "basic-auth", prio: prioShape, match: matchBasic},
		{prefix: "authorization", fold: true, kind: "authorization-header", prio: prioShape, match: matchAuthorization},
		{prefix: "docker login", fold: true, kind: "password", prio: prioShape, match: matchDockerLogin},
		{prefix: "cookie", fold: true, kind: "session-cookie", prio: prioShape, match: matchCookie},
		// Passwords on command lines.
		{prefix: "curl", kind: "password", prio: prioShape, match: matchCommand},
		{prefix: "mysql", kind: "password", prio: prioShape, match: matchCommand},
		{prefix: "mariadb", kind: "password", prio: prioShape, match: matchCommand},
		{prefix: "sshpass", kind: "password", prio: prioShape, match: matchCommand},
		{prefix: "redis-cli", kind: "password", prio: prioShape, match: matchCommand},
	}
	rs = append(rs, cmdRules()...)
	rs = append(rs, genRules()...)
	// Values of secret-named keys: each keyword triggers the same parser.
	for _, kw := range keyKeywords {
		rs = append(rs, &rule{prefix: kw, fold: true, kind: "secret", prio: prioKeyed, match: matchAssignment})
	}
	return rs
}

// Kinds lists the kinds of the built-in detectors, sorted and distinct.
func Kinds() []string {
	seen := map[string]bool{"password": true, "secret": true, "aws-secret-access-key": true, "gcp-service-account-key": true}
	for _, r := range builtinRules() {
		seen[r.kind] = true
	}
	var ks []string
	for k := range seen {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
