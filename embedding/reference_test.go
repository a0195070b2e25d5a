package embedding

import (
	"bytes"
	"cmp"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// referenceEmbed is the embedder as first written (one hash per character
// n-gram, groups sorted with slices.SortFunc): the faster code must give
// the same vectors bit for bit, or stored vectors would stop comparing with
// new ones under the same Name.
func referenceEmbed(h Hashed, text string, idf func(string) float64) []float32 {
	a := referenceAnalyze(text)
	weight := func(t string) float64 {
		if idf == nil {
			return 1
		}
		return idf(t)
	}
	var words, bigrams, chars []feature
	prevW := 0.0
	for i, t := range a.tokens {
		w := weight(t)
		words = append(words, feature{hashString(tagWord, t), w, 1})
		if i > 0 {
			bigrams = append(bigrams, feature{hashPair(a.tokens[i-1], t), (prevW + w) / 2, 1})
		}
		if h.charW > 0 {
			chars = referenceCharGrams(h, chars, t, w)
		}
		prevW = w
	}
	for _, t := range a.wholes {
		words = append(words, feature{hashString(tagWord, t), weight(t), 1})
	}
	acc := make([]float64, h.dim)
	referenceAdd(h, acc, words, h.wordW)
	referenceAdd(h, acc, bigrams, h.bigramW)
	referenceAdd(h, acc, chars, h.charW)
	return normalized(acc)
}

func referenceCharGrams(h Hashed, dst []feature, t string, w float64) []feature {
	var idx []int
	for i := range t {
		idx = append(idx, i)
	}
	idx = append(idx, len(t))
	n := len(idx) - 1
	if n < h.minN {
		return dst
	}
	for size := h.minN; size <= h.maxN; size++ {
		for p := 0; p+size <= n+2; p++ {
			x := fnvByte(fnvOffset, tagChar)
			if p == 0 {
				x = fnvByte(x, '<')
			}
			a, b := max(p-1, 0), min(p+size-1, n)
			for k := idx[a]; k < idx[b]; k++ {
				x = fnvByte(x, t[k])
			}
			if p+size == n+2 {
				x = fnvByte(x, '>')
			}
			dst = append(dst, feature{mix(x), w, 1})
		}
	}
	return dst
}

func referenceAdd(h Hashed, acc []float64, fs []feature, gw float64) {
	if gw == 0 || len(fs) == 0 {
		return
	}
	slices.SortFunc(fs, func(a, b feature) int { return cmp.Compare(a.hash, b.hash) })
	out := fs[:0]
	for i := 0; i < len(fs); {
		j, w := i+1, fs[i].w
		for j < len(fs) && fs[j].hash == fs[i].hash {
			w = max(w, fs[j].w)
			j++
		}
		out = append(out, feature{fs[i].hash, (1 + math.Log(float64(j-i))) * w, 1})
		i = j
	}
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

// sameBits reports the first component where a and b differ in any bit.
func sameBits(a, b []float32) (int, bool) {
	if len(a) != len(b) {
		return -1, false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i, false
		}
	}
	return 0, true
}

// embedders are the configurations checked against the reference: the
// default, another dimension (not a power of two), other weights and
// n-gram sizes.
func embedders() []Hashed {
	odd := NewHashed(1000)
	odd.minN, odd.maxN = 2, 6
	return []Hashed{DefaultHashed(), NewHashed(64).WithWeights(1, 0, 2), odd, NewHashed(256).WithWeights(0.5, 1, 0)}
}

func checkAgainstReference(t *testing.T, text string, hs []Hashed) {
	t.Helper()
	idf := func(s string) float64 { return 1 + float64(len(s)%7)/3 }
	for _, h := range hs {
		if i, ok := sameBits(h.Embed([]string{text})[0], referenceEmbed(h, text, nil)); !ok {
			t.Fatalf("%s: Embed differs from the reference at %d for %.200q", h.Name(), i, text)
		}
		if i, ok := sameBits(h.EmbedQuery(text, idf), referenceEmbed(h, text, idf)); !ok {
			t.Fatalf("%s: EmbedQuery differs from the reference at %d for %.200q", h.Name(), i, text)
		}
	}
}

// TestSameVectorsAsReference embeds the samples and real transcript text
// (lines of the shared transcripts, cut as ChunkText cuts a chunk) with
// both and compares the bits.
func TestSameVectorsAsReference(t *testing.T) {
	for _, s := range append(samples, text1K) {
		checkAgainstReference(t, s, embedders())
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "data", "transcripts", "*", "*.jsonl"))
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("no shared transcripts beside the repository under CI")
		}
		t.Skip("no shared transcripts beside the repository")
	}
	// Every stride-th line: some hundreds of texts of all kinds (prompts,
	// code, tool output, JSON), enough to catch a difference in the bits.
	stride := 20
	if testing.Short() || raceBuild {
		stride = 200
	}
	n := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			if i%stride != 0 {
				continue
			}
			if len(line) > maxChunkBytes {
				line = line[:maxChunkBytes]
			}
			hs := embedders()[:1]
			if n%10 == 0 {
				hs = embedders()
			}
			checkAgainstReference(t, string(line), hs)
			n++
		}
	}
	t.Logf("%d texts embedded alike", n)
}

func FuzzSameVectorsAsReference(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Add("a ab abc abcd abcde abcdef ééé 日本語テキスト x_y_z fooBarBaz a/b/c.go v1.2.3 aaaa aaaa aaaa")
	f.Add(strings.Repeat("é", 80) + " " + strings.Repeat("ab", 70) + " x\xffy\xfez " + strings.Repeat("word ", 300))
	f.Fuzz(func(t *testing.T, text string) {
		checkAgainstReference(t, text, embedders())
	})
}
