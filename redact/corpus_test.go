package redact_test

import (
	"math/rand/v2"

	"github.com/carryover-dev/carryover/redact/redacttest"
)

// The test corpora are generated (package redacttest): synthetic secrets
// of every kind planted in realistic tool outputs, and look-alikes that
// must stay as they are.

const (
	lowerChars   = redacttest.Lower
	upperChars   = redacttest.Upper
	digitChars   = redacttest.Digits
	alnum        = redacttest.Alnum
	urlSafe      = redacttest.URLSafe
	b64Chars     = redacttest.B64
	readReminder = redacttest.ReadReminder
)

func rs(r *rand.Rand, chars string, n int) string { return redacttest.RS(r, chars, n) }

// secret is one planted secret: the text to plant, the kind its label must
// name, and the parts that must be gone afterwards.
type secret struct {
	kind   string
	text   string
	parts  []string
	inline bool
}

func secretsOf(ss []redacttest.Secret) []secret {
	out := make([]secret, len(ss))
	for i, s := range ss {
		out[i] = secret{kind: s.Kind, text: s.Text, parts: s.Parts, inline: s.Inline}
	}
	return out
}

func secrets(r *rand.Rand) []secret { return secretsOf(redacttest.Secrets(r)) }

func lookalikes(r *rand.Rand) []string { return redacttest.Lookalikes(r) }

func plantAll(r *rand.Rand) ([]string, []secret) {
	texts, want := redacttest.PlantAll(r)
	return texts, secretsOf(want)
}

func jsonLine(text string) string { return redacttest.JSONLine(text) }

func jwt(r *rand.Rand) string { return redacttest.JWT(r) }

func pemLines(r *rand.Rand, label string) []string { return redacttest.PEMLines(r, label) }

func numbered(ls []string, from int, sep string) string { return redacttest.Numbered(ls, from, sep) }
