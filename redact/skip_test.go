package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// withoutSkip is r scanning every position, as find did before it stepped
// over those that cannot start a prefix.
func withoutSkip(r *Redactor) *Redactor {
	plain := *r
	plain.skip = nil
	return &plain
}

// sameAsEveryPosition checks that masking s, alone and as the second text
// of a stream, gives the same text, counts, work and carry with the
// skipping scan as with the scan of every position.
func sameAsEveryPosition(t *testing.T, r, plain *Redactor, s string) {
	t.Helper()
	got, gotCounts, gotWork := r.redact(s, nil)
	want, wantCounts, wantWork := plain.redact(s, nil)
	if got != want || gotWork != wantWork || len(gotCounts) != len(wantCounts) {
		t.Fatalf("%q:\n got %q %v work %d\nwant %q %v work %d", s, got, gotCounts, gotWork, want, wantCounts, wantWork)
	}
	for k, n := range wantCounts {
		if gotCounts[k] != n {
			t.Fatalf("%q: counts %v, want %v", s, gotCounts, wantCounts)
		}
	}
	open := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
	gs, ps := r.Stream(Carry{}), plain.Stream(Carry{})
	gs.Redact(open)
	ps.Redact(open)
	g, _ := gs.Redact(s)
	p, _ := ps.Redact(s)
	if g != p || gs.Carry() != ps.Carry() {
		t.Fatalf("%q after an open key: got %q %+v, want %q %+v", s, g, gs.Carry(), p, ps.Carry())
	}
	if r.Contains(s) != plain.Contains(s) {
		t.Fatalf("%q: Contains differs", s)
	}
}

// prefixPieces are the rules' prefixes, in both cases, and the pieces
// around them that make their rules match or nearly match.
func prefixPieces(r *Redactor) []string {
	var ps []string
	for _, ru := range r.rules {
		ps = append(ps, ru.prefix, strings.ToUpper(ru.prefix), ru.prefix[:2], ru.prefix[1:], ru.prefix[:len(ru.prefix)-1])
	}
	return append(ps, contexts...)
}

// contexts are what surrounds or follows a prefix when its rule matches.
var contexts = []string{"SK0123456789abcdef0123456789abcdef", "=", ": ", "\"", "'", "\n", " ", "@", "://u:p@h/", "AKIAIOSFODNN7EXAMPLE", "hunter2hunter2",
	"9f8e7d6c5b4a39281706f5e4d3c2b1a0", "-----END PRIVATE KEY-----", "\\n", "→", "\t", "x", "ab"}

// TestSkipAsEveryPosition: on texts made of the rules' prefixes, their
// pieces and what surrounds secrets, the skipping scan masks exactly what
// the scan of every position masks.
func TestSkipAsEveryPosition(t *testing.T) {
	r := New(Options{})
	plain := withoutSkip(r)
	pieces := prefixPieces(r)
	rng := rand.New(rand.NewPCG(7, 8))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		sameAsEveryPosition(t, r, plain, b.String())
	}
}

// FuzzSkipAsEveryPosition: whatever the text, the skipping scan masks
// exactly what the scan of every position masks.
func FuzzSkipAsEveryPosition(f *testing.F) {
	r := New(Options{})
	for _, p := range prefixPieces(r) {
		f.Add(p)
	}
	f.Add("password=hunter2hunter2 AKIAIOSFODNN7EXAMPLE")
	plain := withoutSkip(r)
	f.Fuzz(func(t *testing.T, s string) {
		sameAsEveryPosition(t, r, plain, s)
	})
}
