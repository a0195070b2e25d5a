package embedding

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/carryover-dev/carryover"
)

// SeedHashDim is the seed design's vector length.
const SeedHashDim = 768

// SeedHash is the seed design's "hash embedding" (createHashEmbedding in
// the claude-flow ADR on an infinite-context compaction bridge), reproduced
// faithfully as a measured baseline: for each dimension i, one 32-bit
// rolling hash of the whole lowercased, trimmed string with every UTF-16
// code unit multiplied by i+1, mapped through (sin(hash)+1)/2, then
// L2-normalised. It is not a similarity measure: any change to the text
// changes every component pseudo-randomly, so unrelated and related texts
// score alike. Do not use it for retrieval.
type SeedHash struct{}

var _ carryover.Embedder = SeedHash{}

// Name implements carryover.Embedder.
func (SeedHash) Name() string { return "seedhash-d768" }

// Dim implements carryover.Embedder.
func (SeedHash) Dim() int { return SeedHashDim }

// Embed implements carryover.Embedder.
func (SeedHash) Embed(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = seedHash(t)
	}
	return out
}

func seedHash(text string) []float32 {
	// JavaScript's toLowerCase, trim and charCodeAt: UTF-16 code units of
	// the lowercased string without surrounding white space. (Go's
	// ToLower differs from JavaScript's only in context-dependent special
	// casings such as a word-final sigma.)
	units := utf16.Encode([]rune(strings.TrimFunc(strings.ToLower(text), isJSSpace)))
	v := make([]float32, SeedHashDim)
	for i := range v {
		// "(hash << 5) - hash + c*(i+1) | 0" is exact in float64 before the
		// final ToInt32, so int32 arithmetic wrapping modulo 2^32 is the
		// same computation.
		var h int32
		m := int32(i + 1)
		for _, u := range units {
			h = h<<5 - h + int32(u)*m
		}
		v[i] = float32((math.Sin(float64(h)) + 1) / 2) // a Float32Array store
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	norm = math.Sqrt(norm)
	if norm > 0 {
		for i, x := range v {
			v[i] = float32(float64(x) / norm)
		}
	}
	return v
}

// isJSSpace reports whether String.prototype.trim removes r: ECMAScript's
// WhiteSpace (tab, vertical tab, form feed, the byte order mark, any space
// separator) and LineTerminator.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', '\ufeff', '\n', '\r', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}
