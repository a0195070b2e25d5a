package redact_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/redact/redacttest"
)

// TestRoundTwoShapes: long values, the command-line password forms of the
// family, secrets wrapped across lines and the shapes of real sessions are
// masked, as text and as a transcript's JSON line, and labelled with
// their kind; a token wrapped after a line is followed by text that stays.
func TestRoundTwoShapes(t *testing.T) {
	r := redact.New(redact.Options{})
	tried, masked := 0, 0
	for seed := range uint64(10) {
		for _, s := range redacttest.RoundTwo(rand.New(rand.NewPCG(seed, 28))) {
			for _, in := range []string{s.Text, jsonLine(s.Text)} {
				tried++
				out, counts := r.Redact(in)
				left := false
				for _, p := range s.Parts {
					left = left || strings.Contains(out, p)
				}
				if left {
					t.Errorf("%s left in:\n%s\n->\n%s", s.Kind, in, out)
					continue
				}
				masked++
				if counts[s.Kind] == 0 {
					t.Errorf("%s: masked as %v:\n%s", s.Kind, counts, out)
				}
				if again, _ := r.Redact(out); again != out {
					t.Errorf("not idempotent: %q -> %q", out, again)
				}
			}
		}
	}
	t.Logf("round-two shapes: %d tried, %d masked", tried, masked)
}

// TestRoundTwoLookalikes: lockfile hashes, image digests, git output,
// UUIDs, placeholder-only values and commands that take no password stay
// as they are, as text, as a JSON line, and through a Stream that has just
// seen a secret-generating command's output.
func TestRoundTwoLookalikes(t *testing.T) {
	r := redact.New(redact.Options{})
	total, changed := 0, 0
	for seed := range uint64(10) {
		for _, text := range redacttest.RoundTwoLookalikes(rand.New(rand.NewPCG(seed, 29))) {
			for _, in := range []string{text, jsonLine(text)} {
				total++
				if out, counts := r.Redact(in); out != in {
					changed++
					t.Errorf("look-alike changed (%v):\n%s\n->\n%s", counts, in, out)
				}
			}
		}
	}
	t.Logf("round-two look-alikes: %d texts, %d changed", total, changed)
	// A token that ends its line is not joined to the line after it when
	// that line is text (a short commit id and its subject).
	gh := "ghp_" + rs(rand.New(rand.NewPCG(1, 2)), alnum, 36)
	if out, _ := r.Redact("export GITHUB_TOKEN=" + gh + "\na1b2c3d fix: x\n"); out != "export GITHUB_TOKEN=[REDACTED:github-pat]\na1b2c3d fix: x\n" {
		t.Errorf("the line after a token changed: %q", out)
	}
}

// TestGeneratedCarried: what a secret-generating command prints in a
// later text (its tool result) is masked by a Stream, and the mark it
// carries survives a save of the Carry between runs; a Redactor alone, or
// a Stream that saw no such command, keeps the same texts.
func TestGeneratedCarried(t *testing.T) {
	r := redact.New(redact.Options{})
	for _, c := range redacttest.Carried(rand.New(rand.NewPCG(3, 28))) {
		st := r.Stream(redact.Carry{})
		var got []string
		for k, text := range c.Texts {
			if k == len(c.Texts)-1 {
				st = r.Stream(st.Carry()) // resumed, as ingest does
			}
			out, _ := st.Redact(text)
			got = append(got, out)
		}
		for _, p := range c.Parts {
			if strings.Contains(strings.Join(got, "\n"), p) {
				t.Errorf("%s left: %q", c.Kind, got)
			}
		}
		last := c.Texts[len(c.Texts)-1]
		if out, _ := r.Stream(redact.Carry{}).Redact(last); out != last {
			t.Errorf("masked without the command: %q", out)
		}
	}
}
