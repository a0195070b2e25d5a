package redact_test

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/redact"
)

func TestKindsCount(t *testing.T) {
	if n := len(redact.Kinds()); n < 30 {
		t.Fatalf("%d kinds, want at least 30: %v", n, redact.Kinds())
	}
}

// TestSecretsCorpus plants synthetic secrets of every kind in realistic
// tool outputs, as plain text and as a transcript's JSON line: every
// planted value must be gone and labelled with its kind.
func TestSecretsCorpus(t *testing.T) {
	r := redact.New(redact.Options{})
	kinds := map[string]bool{}
	planted, leaked := 0, 0
	for seed := range uint64(20) {
		texts, want := plantAll(rand.New(rand.NewPCG(seed, 7)))
		for i, text := range texts {
			s := want[i]
			kinds[s.kind] = true
			for _, in := range []string{text, jsonLine(text)} {
				planted++
				out, counts := r.Redact(in)
				bad := false
				for _, p := range s.parts {
					if strings.Contains(out, p) {
						bad = true
					}
				}
				if bad {
					leaked++
					if leaked <= 10 {
						t.Errorf("%s left in:\n%s\n->\n%s", s.kind, in, out)
					}
					continue
				}
				if counts[s.kind] == 0 || !strings.Contains(out, redact.Label(s.kind)) {
					t.Errorf("%s: masked as %v, want kind %s:\n%s", s.kind, counts, s.kind, out)
				}
			}
		}
	}
	if len(kinds) < 30 {
		t.Errorf("corpus covers %d kinds, want at least 30", len(kinds))
	}
	t.Logf("secrets corpus: %d planted texts of %d kinds, %d with a secret left (recall %.4f)",
		planted, len(kinds), leaked, 1-float64(leaked)/float64(planted))
}

// TestLookalikes: hashes, UUIDs, images, commit ids, integrity strings,
// identifiers and placeholders stay as they are.
func TestLookalikes(t *testing.T) {
	r := redact.New(redact.Options{})
	total, changed := 0, 0
	for seed := range uint64(20) {
		for _, text := range lookalikes(rand.New(rand.NewPCG(seed, 11))) {
			for _, in := range []string{text, jsonLine(text)} {
				total++
				if out, counts := r.Redact(in); out != in || counts != nil {
					changed++
					if changed <= 10 {
						t.Errorf("look-alike changed (%v):\n%s\n->\n%s", counts, in, out)
					}
				}
			}
		}
	}
	t.Logf("look-alike corpus: %d texts, %d changed (false-positive rate %.4f)", total, changed, float64(changed)/float64(total))
}

func TestContextKept(t *testing.T) {
	r := redact.New(redact.Options{})
	for _, c := range []struct{ in, want string }{
		{"DB_PASSWORD=Xk9mP2qLvR7t", "DB_PASSWORD=[REDACTED:password]"},
		{`"client_secret": "a8Fj3kL0pQ9zX2vB7nM4"`, `"client_secret": "[REDACTED:secret]"`},
		{"postgres://admin:s3cr3tPa55@db.internal:5432/app", "postgres://admin:[REDACTED:url-password]@db.internal:5432/app"},
		{"> Authorization: Bearer abcDEF123456ghiJKL789", "> Authorization: Bearer [REDACTED:bearer-token]"},
		{"origin https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r.git (fetch)",
			"origin https://x-access-token:[REDACTED:github-app-token]@github.com/o/r.git (fetch)"},
		{"--api-token Zq8xW3rT5yU7iO9pA1sD", "--api-token [REDACTED:secret]"},
		{"aws_secret_access_key = Tz8nQ2vLp9XkR4wYb7HsD1fJc6GmE3aUo5iNtVqZ", "aws_secret_access_key = [REDACTED:aws-secret-access-key]"},
	} {
		if got, _ := r.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestIdempotent(t *testing.T) {
	r := redact.New(redact.Options{})
	texts, _ := plantAll(rand.New(rand.NewPCG(1, 2)))
	for _, in := range texts {
		once, _ := r.Redact(in)
		twice, counts := r.Redact(once)
		if twice != once || counts != nil {
			t.Errorf("not idempotent (%v):\n%s\n->\n%s", counts, once, twice)
		}
	}
}

func TestExtraPatterns(t *testing.T) {
	r := redact.New(redact.Options{Extra: []redact.Pattern{
		{Kind: "acme-token", Re: regexp.MustCompile(`ACME-[0-9a-f]{16}`)},
		{Re: regexp.MustCompile(`employee id: (\d{6})`)},
	}})
	out, counts := r.Redact("use ACME-0123456789abcdef for employee id: 123456 please")
	if want := "use [REDACTED:acme-token] for employee id: [REDACTED:custom] please"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if counts["acme-token"] != 1 || counts["custom"] != 1 {
		t.Errorf("counts %v", counts)
	}
}

func TestParsePatterns(t *testing.T) {
	ps, errs := redact.ParsePatterns(strings.NewReader("# comment\n\nACME-[0-9a-f]{16}\nbilling: BILL-(?P<secret>\\w+)\n(unclosed\n"))
	if len(ps) != 2 || len(errs) != 1 {
		t.Fatalf("patterns %v, errors %v; want 2 and 1", ps, errs)
	}
	if ps[1].Kind != "billing" || !strings.Contains(errs[0].Error(), "line 5") {
		t.Errorf("kind %q, error %v", ps[1].Kind, errs[0])
	}
}

func TestRedactJSON(t *testing.T) {
	r := redact.New(redact.Options{})
	tok := "ghp_" + strings.Repeat("aB3", 12)
	in := []byte(`{"command":"git push https://bob:` + tok + `@github.com/o/r.git","n":1.50,"list":["` + tok + `"]}`)
	out, counts := r.RedactJSON(in)
	if strings.Contains(string(out), tok) || counts["github-pat"] != 2 {
		t.Fatalf("got %s %v", out, counts)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("not JSON any more: %v: %s", err, out)
	}
	if !strings.Contains(string(out), `"n":1.50`) {
		t.Errorf("number changed: %s", out)
	}
	clean := []byte(`{"a": "nothing here"}`)
	if got, c := r.RedactJSON(clean); string(got) != string(clean) || c != nil {
		t.Errorf("clean JSON changed: %s", got)
	}
}

// TestAdversarialLinear: inputs made of repeated prefixes finish quickly
// (a hook has a deadline); a quadratic scan would take minutes here.
func TestAdversarialLinear(t *testing.T) {
	r := redact.New(redact.Options{})
	for _, unit := range []string{"-----BEGIN PRIVATE KEY-----", "sig=", "://a:b@", "password=", "eyJhbGciOiJIUzI1NiJ9.", "AKIA", "Bearer "} {
		in := strings.Repeat(unit, (1<<20)/len(unit))
		out, _ := r.Redact(in)
		if again, _ := r.Redact(out); again != out {
			t.Errorf("%q repeated: not idempotent", unit)
		}
	}
}
