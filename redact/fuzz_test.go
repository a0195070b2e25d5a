package redact_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/redact"
)

// FuzzRedact: Redact never panics, is idempotent, and a secret planted on
// its own line between arbitrary texts is always gone.
func FuzzRedact(f *testing.F) {
	planted := secrets(rand.New(rand.NewPCG(3, 4)))
	for i, s := range lookalikes(rand.New(rand.NewPCG(5, 6)))[:40] {
		f.Add(s, "", uint8(i))
	}
	f.Add("password=", "x", uint8(0))
	f.Add(`{"token": "`, `"}`, uint8(7))
	f.Add("-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", uint8(60))
	f.Add("https://user:", "@host", uint8(12))
	r := redact.New(redact.Options{})
	f.Fuzz(func(t *testing.T, prefix, suffix string, which uint8) {
		s := planted[int(which)%len(planted)]
		in := prefix + "\n" + s.text + "\n" + suffix
		out, _ := r.Redact(in)
		for _, p := range s.parts {
			if strings.Contains(out, p) {
				t.Fatalf("%s left in %q -> %q", s.kind, in, out)
			}
		}
		if again, c := r.Redact(out); again != out {
			t.Fatalf("not idempotent (%v): %q -> %q -> %q", c, in, out, again)
		}
		bare, _ := r.Redact(prefix + suffix)
		if again, _ := r.Redact(bare); again != bare {
			t.Fatalf("not idempotent: %q -> %q -> %q", prefix+suffix, bare, again)
		}
	})
}
