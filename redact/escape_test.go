package redact_test

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/redact"
)

// TestSecretAfterEscape: a secret right after a character escape (the
// "\n" of JSON a tool prints, of a log line, of a transcript line read as
// text) or an ANSI colour code is masked as it is after a space, though
// the escape ends with a letter: a detector that wants no word before its
// secret took the "n" for one, and every such secret at the start of an
// escaped line stayed.
func TestSecretAfterEscape(t *testing.T) {
	r := redact.New(redact.Options{})
	for _, c := range []struct{ name, text, value string }{
		{"aws", "AKIAQ7ZXQ7ZXQ7ZXQ7ZX", ""},
		{"google-api-key", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", ""},
		{"huggingface", "hf_" + strings.Repeat("aB3", 12), ""},
		{"npm", "npm_" + strings.Repeat("aB3x", 10), ""},
		{"vault", "hvs." + strings.Repeat("aB3x", 8), ""},
		{"openai", "sk-" + strings.Repeat("aB3x", 12), ""},
		{"sendgrid", "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", ""},
		{"telegram", "123456789:AA" + strings.Repeat("xY7", 12), ""},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.bm90LWpzb24tcGF5bG9hZC1xdWl4b3Rl.c2lnbmF0dXJlLXF1aXhvdGUtMTIzNDU2Nzg5MA", ""},
		{"bearer", "Bearer Zx9Qw8Lk2Mn4Pq7Rs1Tu6Vw3", "Zx9Qw8Lk2Mn4Pq7Rs1Tu6Vw3"},
		{"basic", "Basic ZGVwbG95Omh1bnRlcjJ4eXo=", "ZGVwbG95Omh1bnRlcjJ4eXo"},
		{"authorization", "Authorization: token Zx9Qw8Lk2Mn4Pq7Rs1Tu6", "Zx9Qw8Lk2Mn4Pq7Rs1Tu6"},
		{"cookie", "Cookie: session=abc123sessZq9", "abc123sessZq9"},
		{"mysql", "mysql -u root -pmyPw42xyz shop", "myPw42xyz"},
		{"curl", "curl -u deploy:hunter2xyz https://ci.example.com", "hunter2xyz"},
		{"api_key", "api_key: Zq8xW3rT5yU7iO9pA1sD", "Zq8xW3rT5yU7iO9pA1sD"},
		{"aws secret", "aws_secret_access_key = Tz8nQ2vLp9XkR4wYb7HsD1fJc6GmE3aUo5iNtVqZ", "Tz8nQ2vLp9XkR4wYb7HsD1fJc6GmE3aUo5iNtVqZ"},
	} {
		value := c.value
		if value == "" {
			value = c.text
		}
		if out, _ := r.Redact("x " + c.text + " y"); strings.Contains(out, value) {
			t.Fatalf("%s: not masked even after a space: %s", c.name, out)
		}
		for _, ctx := range []string{`x\n%s y`, `x\t%s y`, `x\r\n%s\n`, `{"log":"loaded\n%s"}`, `x\\n%s`,
			"x\x1b[0m%s", "x\x1b[1;32m%s\x1b[0m", `x\u001b[32m%s`} {
			in := strings.Replace(ctx, "%s", c.text, 1)
			if out, counts := r.Redact(in); strings.Contains(out, value) || counts == nil {
				t.Errorf("%s after %q: not masked: %s", c.name, ctx[:strings.Index(ctx, "%s")], out)
			}
		}
	}
	// A letter that ends no escape is still a word the token would be
	// the tail of.
	for _, in := range []string{"xAKIAQ7ZXQ7ZXQ7ZXQ7ZX", "nAKIAQ7ZXQ7ZXQ7ZXQ7ZX", "[0mAKIAQ7ZXQ7ZXQ7ZXQ7ZX", "libcurl -u deploy:hunter2xyz"} {
		if out, counts := r.Redact(in); out != in || counts != nil {
			t.Errorf("%q changed: %s", in, out)
		}
	}
}

// BenchmarkContainsJSONTranscript looks for secrets in the real spotter
// transcripts' lines as the raw archive does before it masks one: each
// string decoded (ContainsJSON), against the line's text as it is
// (Contains). MB/s is the figure to report.
func BenchmarkContainsJSONTranscript(b *testing.B) {
	var ls [][]byte
	size := 0
	for _, f := range transcripts(b, "spotter") {
		for _, l := range lines(b, f) {
			ls = append(ls, []byte(l))
			size += len(l)
		}
	}
	r := redact.New(redact.Options{})
	b.Run("decoded", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, l := range ls {
				r.ContainsJSON(l)
			}
		}
	})
	texts := make([]string, len(ls))
	for i, l := range ls {
		texts[i] = string(l)
	}
	b.Run("text", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, l := range texts {
				r.Contains(l)
			}
		}
	})
}

// TestContainsJSONAsRedactJSON: ContainsJSON answers whether RedactJSON
// masks something, on the secrets and look-alike corpora as JSON lines,
// on invalid JSON, and where only the decoded strings show a secret (a
// user pattern for a line's start or one that spans a quote, which the
// document's text hides behind "\n" and "\"").
func TestContainsJSONAsRedactJSON(t *testing.T) {
	r := redact.New(redact.Options{Extra: []redact.Pattern{
		{Kind: "acme", Re: regexp.MustCompile(`(?m)^acme: (\S+)`)},
		{Kind: "quoted", Re: regexp.MustCompile(`ticket="(\w+)"`)},
	}})
	var docs []string
	for seed := range uint64(5) {
		texts, _ := plantAll(rand.New(rand.NewPCG(seed, 7)))
		docs = append(docs, texts...)
		docs = append(docs, lookalikes(rand.New(rand.NewPCG(seed, 11)))...)
	}
	for i, n := 0, len(docs); i < n; i++ {
		docs[i] = jsonLine(docs[i])
	}
	hidden := []string{
		jsonLine("build log\nacme: Zq8xW3rT5yU7\ndone"),
		jsonLine(`config: ticket="Zq8xW3rT5yU7" ok`),
	}
	docs = append(docs, hidden...)
	docs = append(docs, `{"a":"x\nacme: Zq8xW3rT5yU7"`, `not json AKIAQ7ZXQ7ZXQ7ZXQ7ZX`, `{}`, `"acme: Zq8xW3rT5yU7"`, ``)
	masked := 0
	for _, d := range docs {
		_, counts := r.RedactJSON([]byte(d))
		if got := r.ContainsJSON([]byte(d)); got != (counts != nil) {
			t.Errorf("ContainsJSON = %v, RedactJSON masks %v:\n%s", got, counts, d)
		}
		if counts != nil {
			masked++
		}
	}
	for _, d := range hidden {
		if !r.ContainsJSON([]byte(d)) {
			t.Errorf("a secret only the decoded string shows is not found:\n%s", d)
		}
	}
	if masked < len(docs)/4 {
		t.Errorf("fixture: %d of %d documents hold a secret", masked, len(docs))
	}
}
