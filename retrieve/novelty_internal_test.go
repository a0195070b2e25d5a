package retrieve

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGramSet: the filter never says a substring of the text is absent,
// and rules out most strings that are absent.
func TestGramSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghij /._-0123"
	var b strings.Builder
	for range 12000 {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	text := b.String()
	g := newGramSet(text)
	for range 5000 {
		i := r.IntN(len(text) - 1)
		j := i + 1 + r.IntN(min(60, len(text)-i-1))
		if !g.mayContain(text[i:j]) {
			t.Fatalf("substring %q ruled out", text[i:j])
		}
	}
	ruledOut := 0
	for range 2000 {
		s := "zz" + text[r.IntN(len(text)-20):][:18] + "qq" // z and q are not in the text
		if !g.mayContain(s) {
			ruledOut++
		}
	}
	if ruledOut < 1900 {
		t.Errorf("ruled out %d of 2000 absent strings, want most", ruledOut)
	}
	if !newGramSet("").mayContain("abc") || newGramSet("").mayContain("abcd") {
		t.Error("empty text: strings under 4 bytes may be in it, longer ones not")
	}
}

// TestNoveltyFilterSameAnswers: the filter changes no answer of seenText
// and seenIdent.
func TestNoveltyFilterSameAnswers(t *testing.T) {
	summary := "Files: internal/pdf/render.go was edited; the user ran `go test -race ./...` which passed. Error: undefined: fpdf.NewA4"
	n := newNovelty(summary, "/src/app")
	for _, tc := range []struct {
		s          string
		text, idnt bool
	}{
		{"internal/pdf/render.go", true, true},
		{"go test -race ./...", true, true},
		{"undefined: fpdf.NewA4", true, true},
		{"FPDF.NEWA4", true, true},
		{"internal/pdf/render_test.go", false, false},
		{"pdf/rend", false, true}, // inside a word: an identifier, not a statement
		{"go vet ./...", false, false},
	} {
		if got := n.seenText(tc.s); got != tc.text {
			t.Errorf("seenText(%q) = %v, want %v", tc.s, got, tc.text)
		}
		if got := n.seenIdent(tc.s); got != tc.idnt {
			t.Errorf("seenIdent(%q) = %v, want %v", tc.s, got, tc.idnt)
		}
	}
}
