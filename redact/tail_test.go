package redact_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/redact"
)

// cutToken is a token and the literal prefix it is recognised by; what
// follows the prefix is the secret.
type cutToken struct {
	name, prefix, token string
}

func cutTokens(r *rand.Rand) []cutToken {
	j := jwt(r)
	return []cutToken{
		{"anthropic", "sk-ant-api03-", "sk-ant-api03-" + rs(r, urlSafe, 93) + "AA"},
		{"github", "ghp_", "ghp_" + rs(r, alnum, 36)},
		{"aws", "AKIA", "AKIA" + rs(r, upperChars+"234567", 15) + "7"},
		{"slack", "xoxb-", "xoxb-" + rs(r, digitChars, 12) + "-" + rs(r, digitChars, 12) + "-" + rs(r, alnum, 24)},
		{"jwt", "eyJ", j},
	}
}

// cuts are where a token is cut: at least 8 characters of its secret on
// each side, and for a JWT in its header, its payload and its signature.
func cuts(c cutToken) []int {
	n, p := len(c.token), len(c.prefix)
	out := []int{p + 8, p + (n-p)/2, n - 8}
	if c.name == "jwt" {
		dot := strings.IndexByte(c.token, '.')
		out = append(out, dot-6, dot+1, dot+12, strings.LastIndexByte(c.token, '.')+5)
	}
	return out
}

// fragments are the pieces of the token's secret, 8 characters long,
// that must be stored nowhere.
func fragments(c cutToken) []string {
	var out []string
	secret := c.token[len(c.prefix):]
	for k := 0; k+8 <= len(secret); k++ {
		out = append(out, secret[k:k+8])
	}
	return out
}

// bashCall is a Bash tool call's input.
func bashCall(cmd string) part {
	b, _ := json.Marshal(map[string]any{"command": cmd, "description": "Print the rest of the file"})
	return part{text: string(b), json: true}
}

// tailTexts are the texts of a transcript whose Bash output stops inside
// a token and whose next Bash output goes on with it, in the order the
// ingest's stream masks them: the tool result's text, its structured
// result, the assistant's text, the next call, its result and structured
// result.
func tailTexts(token string, cut int) []part {
	first := "# service settings\nendpoint https://api.example.com\nvalue " + token[:cut]
	second := token[cut:] + "\nregion us-east-1\nretries 3\n"
	return []part{{text: first}, bashResult(first), {text: between}, bashCall("tail -c +301 service.conf"),
		{text: second}, bashResult(second), {text: "Both parts of the file are printed."}}
}

// TestStreamTokenTail: a token cut across two tool outputs, whose second
// part has no prefix to recognise it by, is masked in both parts, in
// their texts and structured results, whether the stream runs at once or
// is resumed from its Carry after every text; the texts around stay.
func TestStreamTokenTail(t *testing.T) {
	r := redact.New(redact.Options{})
	n := 0
	for seed := range uint64(4) {
		for _, c := range cutTokens(rand.New(rand.NewPCG(seed, 31))) {
			for _, cut := range cuts(c) {
				for _, carry := range []bool{false, true} {
					n++
					outs := mask(t, r, tailTexts(c.token, cut), carry)
					all := strings.Join(outs, "\n")
					// Both parts get the same label.
					at := strings.LastIndex(outs[0], "[REDACTED:")
					if at < 0 {
						t.Fatalf("%s cut at %d: first part not masked: %q", c.name, cut, outs[0])
					}
					if label := outs[0][at:]; !strings.HasPrefix(outs[4], label) {
						t.Errorf("%s cut at %d: first part %s, second %q", c.name, cut, label, outs[4])
					}
					for _, f := range fragments(c) {
						if strings.Contains(all, f) {
							t.Fatalf("%s cut at %d (carry %v): %q left in\n%s", c.name, cut, carry, f, all)
						}
					}
					for _, k := range []string{between, "tail -c +301 service.conf", "Print the rest of the file",
						"region us-east-1", "Both parts of the file are printed.", `"stderr":""`} {
						if !strings.Contains(all, k) {
							t.Errorf("%s cut at %d: %q lost:\n%s", c.name, cut, k, all)
						}
					}
				}
			}
		}
	}
	t.Logf("cut tokens: %d streams, no fragment left", n)
}

// TestStreamTokenTailNeedsCarry: the second part of a cut token is kept
// by a text masked on its own, so the test above tests the carry.
func TestStreamTokenTailNeedsCarry(t *testing.T) {
	r := redact.New(redact.Options{})
	for _, c := range cutTokens(rand.New(rand.NewPCG(1, 1))) {
		cut := len(c.prefix) + 8
		if out, _ := r.Redact(c.token[cut:] + "\nregion us-east-1"); !strings.Contains(out, c.token[cut:cut+8]) {
			t.Errorf("%s: the tail alone was masked: %s", c.name, out)
		}
	}
}

// TestStreamTokenTailLookalikes: the start of a text is masked as a
// token's tail only after a secret ran to the very end of an earlier text
// of the same field, only when it looks random, and not for ever.
func TestStreamTokenTailLookalikes(t *testing.T) {
	r := redact.New(redact.Options{})
	rng := rand.New(rand.NewPCG(5, 5))
	gh := "ghp_" + rs(rng, alnum, 36)
	sha := "3f2c1a7e9b fix: handle the empty token list"
	words := []string{
		"Let me read the rest of the file.",
		"README.md\ngo.mod\nmain.go\n",
		"2026-11-20 10:00:00 deploy started",
		"ok  example.com/widget 0.3s",
		"Done.",
	}
	same := func(st *redact.Stream, in string) {
		t.Helper()
		if out, c := st.Redact(in); out != in || c != nil {
			t.Errorf("changed (%v): %q -> %q", c, in, out)
		}
	}

	// After an ordinary word, or a secret that does not run to the end.
	for _, first := range []string{"the build used value abc", "token " + gh + "\n", "token " + gh + " is revoked"} {
		st := r.Stream(redact.Carry{})
		st.Redact(first)
		if !st.Carry().IsZero() {
			t.Errorf("carry after %q: %+v", first, st.Carry())
		}
		same(st, sha)
	}

	// After a secret that ran to the end: words stay, a name in another
	// field (a command, a JSON key) stays.
	st := r.Stream(redact.Carry{})
	if out, _ := st.Redact("export TOKEN=" + gh); strings.Contains(out, gh) || st.Carry().IsZero() {
		t.Fatalf("not masked or not carried: %q %+v", out, st.Carry())
	}
	for _, w := range words {
		same(st, w)
	}
	for _, doc := range []string{`{"command":"a1b2c3d4e5 is the commit","a1b2c3d4e5f6":"x"}`, `{"stdout":"Done."}`} {
		if out, c := st.RedactJSON([]byte(doc)); string(out) != doc || c != nil {
			t.Errorf("changed (%v): %s -> %s", c, doc, out)
		}
	}
	if out, _ := st.Redact(sha); strings.Contains(out, "3f2c1a7e9b") {
		t.Errorf("tail not masked: %q", out)
	}
	// Found, the tail ends the carry.
	same(st, sha)

	// The carry runs out.
	st = r.Stream(redact.Carry{})
	st.Redact("export TOKEN=" + gh)
	for k := range 40 {
		st.Redact(fmt.Sprintf("step %d of the build", k))
	}
	same(st, sha)
	if !st.Carry().IsZero() {
		t.Errorf("carry still open: %+v", st.Carry())
	}
}
