// Package embed holds carryover's embedders: Hashed, the default, which
// needs no model files, and SeedHash, the seed design's hash embedding, kept
// only as a measured baseline.
package embedding

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
)

// Feature groups, each hashed with its own tag so that a word and a
// character n-gram with the same letters do not share a bucket.
const (
	tagWord   = 'w'
	tagBigram = 'b'
	tagChar   = 'c'
)

// Hashed is a feature-hashing embedder (the hashing trick): word unigrams
// (identifier parts, and whole identifiers and paths), word bigrams and
// character 3–5-grams of each word, each hashed to one of Dim buckets with
// a hashed sign, weighted by sublinear term frequency (1 + ln tf). Each
// group is L2-normalised on its own and weighted, and the sum is
// L2-normalised again, so a long text's many character n-grams cannot drown
// its words. Stopwords and one-rune words are dropped.
//
// Document vectors carry no IDF: it needs corpus statistics, and stored
// vectors would go stale as they change. EmbedQuery applies it on the
// query side instead.
//
// The zero value is not usable; use NewHashed or DefaultHashed.
type Hashed struct {
	dim                   int
	wordW, bigramW, charW float64
	minN, maxN            int
}

var _ carryover.Embedder = Hashed{}

// DefaultDim is the dimension of DefaultHashed. Collisions cost recall:
// on the LoCoMo benchmark turn R@10 is 0.39 at 256, 0.46 at 512, 0.52 at
// 1024 and 0.56 at 4096 buckets (word features only); 1024 float32 is 4 KB
// a vector.
const DefaultDim = 1024

// DefaultHashed returns the default embedder: DefaultDim buckets, words
// weighted 1, bigrams 0.25, character n-grams 1.5 (tuned on LoCoMo, where
// character n-grams, which match inflections, help most and bigrams little,
// since questions paraphrase).
func DefaultHashed() Hashed {
	return NewHashed(DefaultDim)
}

// NewHashed returns a Hashed embedder with dim buckets (at least 16) and
// the default weights.
func NewHashed(dim int) Hashed {
	return Hashed{dim: max(dim, 16), wordW: 1, bigramW: 0.25, charW: 1.5, minN: 3, maxN: 5}
}

// WithWeights returns h with other group weights (negative ones count as
// zero); a changed weight changes Name.
func (h Hashed) WithWeights(word, bigram, char float64) Hashed {
	h.wordW, h.bigramW, h.charW = max(word, 0), max(bigram, 0), max(char, 0)
	return h
}

// Name implements carryover.Embedder.
func (h Hashed) Name() string {
	return fmt.Sprintf("hashed-v1-d%d-w%g-b%g-c%g-n%d%d", h.dim, h.wordW, h.bigramW, h.charW, h.minN, h.maxN)
}

// Dim implements carryover.Embedder.
func (h Hashed) Dim() int { return h.dim }

// Embed implements carryover.Embedder.
func (h Hashed) Embed(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	var fs features
	for i, t := range texts {
		out[i] = h.embed(t, &fs)
	}
	return out
}

// features is the scratch space of one embedding, reused across texts.
type features struct {
	words, bigrams, chars []feature
	acc                   []float64
	fold                  foldScratch
	gram                  []byte // "<word>" for charGrams
	text                  analysis
	// The distinct tokens of a text, with their weight and count: a
	// token's character n-grams are hashed once, not per occurrence.
	distinct map[string]int
	tokens   []tokenCount
}

type tokenCount struct {
	t string
	w float64
	n int
}

// feature is n occurrences of a hashed feature with its term weight.
type feature struct {
	hash uint64
	w    float64
	n    int
}

// EmbedQuery embeds a query with each word's features weighted by idf(word)
// (a bigram by the mean of its words', a character n-gram by its word's):
// the SMART lnc.ltc scheme, where documents carry log tf and queries log tf
// × idf, so that the words rare in the archive decide the match, as in
// BM25. idf comes from the archive's statistics (see DF); nil means 1.
func (h Hashed) EmbedQuery(text string, idf func(term string) float64) []float32 {
	var fs features
	return h.embedWeighted(text, &fs, idf)
}

func (h Hashed) embed(text string, fs *features) []float32 {
	return h.embedWeighted(text, fs, nil)
}

func (h Hashed) embedWeighted(text string, fs *features, idf func(string) float64) []float32 {
	a := &fs.text
	a.analyze(text)
	weight := func(t string) float64 {
		if idf == nil {
			return 1
		}
		return idf(t)
	}
	fs.words, fs.bigrams, fs.chars = fs.words[:0], fs.bigrams[:0], fs.chars[:0]
	fs.tokens = fs.tokens[:0]
	if fs.distinct == nil {
		fs.distinct = map[string]int{}
	}
	clear(fs.distinct)
	prevW := 0.0
	for i, t := range a.tokens {
		w := weight(t)
		fs.words = append(fs.words, feature{hashString(tagWord, t), w, 1})
		if i > 0 {
			fs.bigrams = append(fs.bigrams, feature{hashPair(a.tokens[i-1], t), (prevW + w) / 2, 1})
		}
		if h.charW > 0 {
			// idf is a function of the word: a repeat has the same weight.
			if k, ok := fs.distinct[t]; ok {
				fs.tokens[k].n++
			} else {
				fs.distinct[t] = len(fs.tokens)
				fs.tokens = append(fs.tokens, tokenCount{t, w, 1})
			}
		}
		prevW = w
	}
	for _, tc := range fs.tokens {
		fs.chars = h.charGrams(fs.chars, tc.t, tc.w, tc.n, &fs.gram)
	}
	for _, t := range a.wholes {
		fs.words = append(fs.words, feature{hashString(tagWord, t), weight(t), 1})
	}
	if cap(fs.acc) < h.dim {
		fs.acc = make([]float64, h.dim)
	}
	acc := fs.acc[:h.dim]
	clear(acc)
	h.add(acc, fs.words, &fs.fold, h.wordW)
	h.add(acc, fs.bigrams, &fs.fold, h.bigramW)
	h.add(acc, fs.chars, &fs.fold, h.charW)
	return normalized(acc)
}

// charGrams appends the minN..maxN-rune n-grams of "<t>", the brackets
// marking the word's start and end, with weight w, each counted count
// times. Words shorter than minN runes have none (the word feature covers
// them). The n-grams starting at one position are hashed as one growing
// hash (FNV-1a extends byte by byte), over "<t>" built in buf.
func (h Hashed) charGrams(dst []feature, t string, w float64, count int, buf *[]byte) []feature {
	g := append(append(append((*buf)[:0], '<'), t...), '>')
	*buf = g
	n := utf8.RuneCountInString(t)
	if n < h.minN {
		return dst
	}
	x0 := fnvByte(fnvOffset, tagChar)
	if n == len(t) {
		// One byte per rune (ASCII): position q of "<t>" is g[q].
		for p := 0; p+h.minN <= len(g); p++ {
			x := x0
			for q, end := p, min(p+h.maxN, len(g)); q < end; q++ {
				x = fnvByte(x, g[q])
				if q-p+1 >= h.minN {
					dst = append(dst, feature{mix(x), w, count})
				}
			}
		}
		return dst
	}
	// Position q of "<t>" is the bytes g[at[q]:at[q+1]].
	var offs [66]int
	at := append(offs[:0], 0)
	for i := range t {
		at = append(at, i+1)
	}
	at = append(at, len(t)+1, len(t)+2)
	for p := 0; p+h.minN <= n+2; p++ {
		x := x0
		for q, end := p, min(p+h.maxN, n+2); q < end; q++ {
			for k := at[q]; k < at[q+1]; k++ {
				x = fnvByte(x, g[k])
			}
			if q-p+1 >= h.minN {
				dst = append(dst, feature{mix(x), w, count})
			}
		}
	}
	return dst
}

// add adds one feature group to acc: per distinct feature (in hash order),
// sublinear tf times the largest weight it occurs with, a sign from the
// hash, the group normalised to length gw.
func (h Hashed) add(acc []float64, fs []feature, sc *foldScratch, gw float64) {
	if gw == 0 || len(fs) == 0 {
		return
	}
	out := fold(fs, sc)
	var sum float64
	for _, f := range out {
		sum += f.w * f.w
	}
	if sum == 0 {
		return
	}
	scale := gw / math.Sqrt(sum)
	dim := uint64(h.dim)
	for _, f := range out {
		v := f.w * scale
		if f.hash>>63 == 1 {
			v = -v
		}
		acc[(f.hash&(1<<63-1))%dim] += v
	}
}

// normalized returns acc as a unit float32 vector (zero when acc is).
func normalized(acc []float64) []float32 {
	var sum float64
	for _, v := range acc {
		sum += v * v
	}
	out := make([]float32, len(acc))
	if sum == 0 {
		return out
	}
	inv := 1 / math.Sqrt(sum)
	for i, v := range acc {
		out[i] = float32(v * inv)
	}
	return out
}

// FNV-1a, 64 bits, then a finaliser so that both the low bits (the bucket)
// and the top bit (the sign) depend on every input byte. Stored vectors
// depend on it: changing it changes Name.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvByte(h uint64, b byte) uint64 {
	return (h ^ uint64(b)) * fnvPrime
}

func hashString(tag byte, s string) uint64 {
	h := fnvByte(fnvOffset, tag)
	for i := 0; i < len(s); i++ {
		h = fnvByte(h, s[i])
	}
	return mix(h)
}

func hashPair(a, b string) uint64 {
	h := uint64(fnvOffset)
	h = (h ^ tagBigram) * fnvPrime
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * fnvPrime
	}
	h = (h ^ 0x1f) * fnvPrime // unit separator: "ab c" ≠ "a bc"
	for i := 0; i < len(b); i++ {
		h = (h ^ uint64(b[i])) * fnvPrime
	}
	return mix(h)
}

// mix is the splitmix64 finaliser.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
