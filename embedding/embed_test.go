package embedding

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
)

func norm2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

var samples = []string{
	"Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
	"Fixed parseHTTPResponse in src/net/http_client.go; `go test ./net/...` passes now",
	"naïve café — 日本語 😀 ﬁle",
	strings.Repeat("the quick brown fox jumps over the lazy dog ", 40),
}

func TestUnitAndDeterministic(t *testing.T) {
	for _, e := range []carryover.Embedder{DefaultHashed(), NewHashed(1024), NewHashed(64).WithWeights(1, 0, 2), SeedHash{}} {
		t.Run(e.Name(), func(t *testing.T) {
			a, b := e.Embed(samples), e.Embed(samples)
			if len(a) != len(samples) {
				t.Fatalf("%d vectors for %d texts", len(a), len(samples))
			}
			for i := range a {
				if len(a[i]) != e.Dim() {
					t.Fatalf("text %d: len %d, Dim %d", i, len(a[i]), e.Dim())
				}
				if n := norm2(a[i]); math.Abs(n-1) > 1e-5 {
					t.Errorf("text %d: norm %v", i, n)
				}
				for j := range a[i] {
					if a[i][j] != b[i][j] {
						t.Fatalf("text %d differs between calls at %d", i, j)
					}
				}
				// One text alone embeds as it does in a batch: no state
				// leaks from one text to the next.
				if one := e.Embed(samples[i : i+1])[0]; Dot(one, a[i]) < 0.99999 {
					t.Errorf("text %d embeds differently alone", i)
				}
			}
		})
	}
}

func TestHashedNothingToEmbed(t *testing.T) {
	for _, text := range []string{"", "   ", "the of and to", "!!! ... ---"} {
		v := DefaultHashed().Embed([]string{text})[0]
		if n := norm2(v); n != 0 {
			t.Errorf("%q: norm %v, want the zero vector", text, n)
		}
	}
}

func TestHashedSimilarity(t *testing.T) {
	h := DefaultHashed()
	cases := []struct{ query, near, far string }{
		{"When did Melanie paint a sunrise?",
			"Melanie: Yeah, I painted that lake sunrise last year! It's special to me.",
			"Caroline: I'm researching adoption agencies for my future family."},
		{"which test failed in the http client",
			"FAIL TestHTTPClientTimeout in src/net/http_client_test.go",
			"Updated README.md with installation instructions for Homebrew"},
		{"parse_config error",
			"parseConfig returned an error: unexpected EOF in config.toml",
			"the deploy to staging finished in 42 seconds"},
		{"painting classes",
			"She signed up for a pottery and painting class",
			"We drove to the beach and had a picnic"},
	}
	for _, c := range cases {
		v := h.Embed([]string{c.query, c.near, c.far})
		near, far := Dot(v[0], v[1]), Dot(v[0], v[2])
		if near <= far+0.05 {
			t.Errorf("%q: near %.3f, far %.3f", c.query, near, far)
		}
	}
	// Morphology through character n-grams: related forms share a lot,
	// unrelated words of the same length little.
	v := h.Embed([]string{"painting", "painted", "cabinets"})
	if Dot(v[0], v[1]) < 0.2 || Dot(v[0], v[2]) > 0.1 {
		t.Errorf("painting~painted %.3f, painting~cabinets %.3f", Dot(v[0], v[1]), Dot(v[0], v[2]))
	}
}

// TestHashedIdentifiers checks the code-aware tokenisation: identifier
// parts match the words they are made of, and a path matches its parts.
func TestHashedIdentifiers(t *testing.T) {
	h := DefaultHashed()
	v := h.Embed([]string{"retryBackoffMillis", "retry backoff millis", "kitchen table wood"})
	if Dot(v[0], v[1]) < 0.5 {
		t.Errorf("camelCase vs words: %.3f", Dot(v[0], v[1]))
	}
	if Dot(v[0], v[2]) > 0.1 {
		t.Errorf("unrelated: %.3f", Dot(v[0], v[2]))
	}
	a := analyze("see src/app/main.go and parse_HTTPResponse-v2.")
	want := map[string]bool{"src/app/main.go": true, "parse_httpresponse-v2": true, "parse_httpresponse": true}
	for _, w := range a.wholes {
		delete(want, w)
	}
	if len(want) > 0 {
		t.Errorf("wholes %q miss %v", a.wholes, want)
	}
	if got := strings.Join(a.tokens, " "); got != "see src app main go parse http response v2" {
		t.Errorf("tokens %q", got)
	}
}

// TestSeedHashReference compares SeedHash with values printed by the seed
// design's JavaScript function under Node.js (components 0–3, 100, 767).
func TestSeedHashReference(t *testing.T) {
	ref := []struct {
		text string
		want [6]float32
	}{
		{"  Hello World  ", [6]float32{0.0111459699, 0.00708845723, 0.0589886680, 0.0586541630, 0.0445642434, 0.0391749293}},
		{"Caroline: I went to a LGBTQ support group yesterday.", [6]float32{0.0566000789, 0.0230382141, 0.0539110340, 0.0171858780, 0.0335592180, 0.0326421335}},
		{"naïve café — 日本語 😀 ΣΑ", [6]float32{0.0329876728, 0.0100739216, 0.00757312775, 0.00538310455, 0.0520329103, 0.00688985921}},
		{"", [6]float32{0.0360843912, 0.0360843912, 0.0360843912, 0.0360843912, 0.0360843912, 0.0360843912}},
	}
	for _, r := range ref {
		v := SeedHash{}.Embed([]string{r.text})[0]
		got := [6]float32{v[0], v[1], v[2], v[3], v[100], v[767]}
		for i := range got {
			if math.Abs(float64(got[i]-r.want[i])) > 1e-8 {
				t.Errorf("%q: got %v, want %v", r.text, got, r.want)
				break
			}
		}
	}
}

// TestSeedHashIsNotSimilarity documents why it is only a baseline: a
// one-character edit moves the vector as far as an unrelated text does.
func TestSeedHashIsNotSimilarity(t *testing.T) {
	v := SeedHash{}.Embed([]string{
		"Melanie painted a lake sunrise last year",
		"Melanie painted a lake sunrise last year!",
		"Caroline is researching adoption agencies",
	})
	edit, unrelated := Dot(v[0], v[1]), Dot(v[0], v[2])
	if math.Abs(float64(edit-unrelated)) > 0.05 {
		t.Errorf("edit %.3f vs unrelated %.3f: expected both near the random baseline", edit, unrelated)
	}
}

func TestDot(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5}
	b := []float32{5, 4, 3, 2, 1}
	if got := Dot(a, b); got != 35 {
		t.Errorf("Dot = %v, want 35", got)
	}
}

// text1K is about 1 KB of transcript-like text.
var text1K = func() string {
	s := "Ran `go test ./sqlite/...` and TestSearchRanksPaths failed: expected src/app/main.go first, got README.md. " +
		"The tokenizer splits camelCase identifiers like parseHTTPResponse but kept snake_case_names whole. " +
		"Fixed it in sqlite/terms.go by splitting at underscores too, then reran the suite and everything passed. "
	for len(s) < 1024 {
		s += s
	}
	return s[:1024]
}()

func BenchmarkHashed1K(b *testing.B) {
	h := DefaultHashed()
	texts := []string{text1K}
	b.SetBytes(int64(len(text1K)))
	for b.Loop() {
		h.Embed(texts)
	}
}

func BenchmarkSeedHash1K(b *testing.B) {
	texts := []string{text1K}
	b.SetBytes(int64(len(text1K)))
	for b.Loop() {
		SeedHash{}.Embed(texts)
	}
}

func BenchmarkDot512(b *testing.B) {
	v := DefaultHashed().Embed([]string{text1K, samples[0]})
	for b.Loop() {
		Dot(v[0], v[1])
	}
}

func TestQuantizeRoundTrip(t *testing.T) {
	h := DefaultHashed()
	vs := h.Embed([]string{
		"The websocket client now reconnects with exponential backoff.",
		"go test ./internal/store -run TestMigrate",
		"",
	})
	for i, v := range vs[:2] {
		b := Quantize(v)
		if len(b) != h.Dim() {
			t.Fatalf("%d bytes, want %d", len(b), h.Dim())
		}
		u := Dequantize(nil, b)
		if c := Dot(u, v); c < 0.99 {
			t.Errorf("text %d: cosine %v between a vector and its round trip, want ≥ 0.99", i, c)
		}
		if n := Dot(u, u); n < 0.999 || n > 1.001 {
			t.Errorf("text %d: dequantised length² %v, want 1", i, n)
		}
	}
	// Similarity survives: the two texts stay as (dis)similar as they were.
	a, b := Dequantize(nil, Quantize(vs[0])), Dequantize(nil, Quantize(vs[1]))
	if d := Dot(a, b) - Dot(vs[0], vs[1]); d > 0.02 || d < -0.02 {
		t.Errorf("cosine changed by %v in the round trip", d)
	}
	for _, x := range Dequantize(nil, Quantize(vs[2])) {
		if x != 0 {
			t.Fatal("the zero vector did not round-trip to zero")
		}
	}
}

// BenchmarkHashedBatch embeds 64 texts of about 2 KB in one call, as a
// store embeds a batch of chunks (the scratch space is reused).
func BenchmarkHashedBatch(b *testing.B) {
	h := DefaultHashed()
	texts := make([]string, 64)
	size := 0
	for i := range texts {
		texts[i] = strings.Repeat(fmt.Sprintf("chunk %d of the batch: ", i), 3) + text1K + samples[i%len(samples)]
		size += len(texts[i])
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		h.Embed(texts)
	}
}

// TestRound32 compares round32 with math.Round on the float32 values that
// Quantize can meet (|x| ≤ 127.5): every one near each half, and a sweep.
func TestRound32(t *testing.T) {
	check := func(x float32) {
		if got, want := round32(x), int64(math.Round(float64(x))); got != want {
			t.Fatalf("round32(%v) = %d, math.Round gives %d", x, got, want)
		}
	}
	for k := -128; k <= 128; k++ {
		half := float32(k) + 0.5
		x := half
		for range 64 {
			check(x)
			check(-x)
			x = math.Nextafter32(x, 0)
		}
		x = half
		for range 64 {
			check(x)
			x = math.Nextafter32(x, float32(math.Inf(1)))
		}
	}
	for _, x := range []float32{0, float32(math.Copysign(0, -1)), 1e-45, 1e-30, 0.49999997, 0.5, 127, 127.49999, -127.5} {
		check(x)
	}
	for b := uint32(0); b < 0x43000000; b += 4099 { // all magnitudes up to 128
		check(math.Float32frombits(b))
		check(-math.Float32frombits(b))
	}
}
