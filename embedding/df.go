package embedding

import "math"

// DF counts, for each word, the documents that contain it: the archive
// statistic EmbedQuery's idf needs. It is built as documents are indexed,
// so a query costs one map lookup per word, never a pass over the corpus.
// The zero value is an empty DF, ready to use.
type DF struct {
	docs  int
	count map[string]int
}

// Add counts the words of one document.
func (d *DF) Add(text string) {
	if d.count == nil {
		d.count = map[string]int{}
	}
	d.docs++
	a := analyze(text)
	seen := make(map[string]bool, len(a.tokens)+len(a.wholes))
	for _, ts := range [][]string{a.tokens, a.wholes} {
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				d.count[t]++
			}
		}
	}
}

// Docs returns the number of documents added.
func (d *DF) Docs() int { return d.docs }

// IDF returns BM25's inverse document frequency of a lowercased word,
// ln(1 + (N − df + 0.5)/(df + 0.5)): highest for words no document has,
// small but positive for words every document has.
func (d *DF) IDF(term string) float64 {
	n, df := float64(d.docs), float64(d.count[term])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// IDF returns BM25's inverse document frequency of a word found in df of
// n documents, as DF.IDF computes it: for callers that count documents
// themselves (a full-text index).
func IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}
