package retrieve

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
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

// TestNoveltyContains: the rare-byte scan answers as strings.Contains does,
// for substrings at every place (the ends included), near misses, strings
// longer than the text and bytes the text lacks.
func TestNoveltyContains(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "aaaaeeeetttsrl_./0Q"
	for _, size := range []int{0, 1, 5, 300, 4000} {
		var b strings.Builder
		for range size {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		n := novelty{summary: b.String(), freq: newByteFreq(b.String())}
		text := n.summary
		var probes []string
		for range 3000 {
			if len(text) > 0 {
				i := r.IntN(len(text))
				j := i + r.IntN(min(40, len(text)-i)+1)
				probes = append(probes, text[i:j])
				if j > i {
					mut := []byte(text[i:j])
					mut[r.IntN(len(mut))] = alphabet[r.IntN(len(alphabet))]
					probes = append(probes, string(mut))
				}
			}
			var p strings.Builder
			for range 1 + r.IntN(8) {
				p.WriteByte((alphabet + "zX")[r.IntN(len(alphabet)+2)])
			}
			probes = append(probes, p.String())
		}
		probes = append(probes, text, text+"a", "", "zz")
		if len(text) > 2 {
			probes = append(probes, text[:2], text[len(text)-2:], text[1:])
		}
		for _, p := range probes {
			if got, want := n.contains(p), strings.Contains(text, p); got != want {
				t.Fatalf("size %d: contains(%q) = %v, strings.Contains %v", size, p, got, want)
			}
		}
	}
}

// TestNormSpaceByRune: normSpace's ASCII path gives what lowering and
// collapsing rune by rune gives, for white space of every kind, non-ASCII
// letters and invalid bytes.
func TestNormSpaceByRune(t *testing.T) {
	byRune := func(s string) string {
		var b strings.Builder
		space := false
		for _, r := range s {
			if unicode.IsSpace(r) {
				space = true
				continue
			}
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		}
		return b.String()
	}
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "Z", "Q_x", "/", " ", "\t", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u2003", "\u3000",
		"É", "ß", "Σ", "İ", "漢", "\xff", "\xe2\x82", "\x00", "\x1c", "0", "~"}
	for range 5000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		if got, want := normSpace(b.String()), byRune(b.String()); got != want {
			t.Fatalf("normSpace(%q) = %q, want %q", b.String(), got, want)
		}
	}
}
