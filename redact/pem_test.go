package redact_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/redact"
)

// TestPEMAfterCutBeginLine: a BEGIN line cut short (no closing dashes)
// before a whole key must not take the next marker's dashes and leave the
// key's body unmasked, with line numbers or without.
func TestPEMAfterCutBeginLine(t *testing.T) {
	r := redact.New(redact.Options{})
	n := 0
	for _, s := range secrets(rand.New(rand.NewPCG(3, 4))) {
		if s.kind != "private-key" {
			continue
		}
		for _, cut := range []string{"-----BEGIN PRIVATE KEY", "-----BEGIN RSA PRIVATE KEY-", "see -----BEGIN EC PRIVATE KEY"} {
			n++
			in := cut + "\n" + s.text + "\n"
			out, _ := r.Redact(in)
			for _, p := range s.parts {
				if strings.Contains(out, p) {
					t.Fatalf("after %q: %q left in\n%s", cut, p, out)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no private keys among the planted secrets")
	}
}
