package rank

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/tokenize"
)

// Field is one indexed field of a chunk, in the order of the SQLite
// store's full-text columns.
type Field int

// The indexed fields of a chunk.
const (
	Prompt Field = iota
	Summary
	Files
	Commands
	Errors
	Text
	Terms // tokenize.IndexTerms of the other fields
	NumFields
)

// weights are the fields' weights in BM25: a word in a file path, command
// or error names the chunk's subject; one in the prose only mentions it.
var weights = [NumFields]float64{Prompt: 2, Summary: 1.5, Files: 3, Commands: 3, Errors: 3, Text: 1, Terms: 1}

// Weight is the field's weight in BM25: each occurrence of a query phrase
// in it counts that much.
func (f Field) Weight() float64 { return weights[f] }

// WeightList is the weights in field order, comma separated: FTS5's bm25()
// arguments.
func WeightList() string {
	ws := make([]string, NumFields)
	for f := range NumFields {
		ws[f] = fmt.Sprint(weights[f])
	}
	return strings.Join(ws, ", ")
}

// Fields returns the texts a full-text index holds for a chunk, by Field:
// lists one element per line, and the extra terms of the others
// (ChunkTerms).
func Fields(c carryover.Chunk) [NumFields]string {
	return [NumFields]string{
		Prompt:   c.Prompt,
		Summary:  c.Summary,
		Files:    strings.Join(c.Files, "\n"),
		Commands: strings.Join(c.Commands, "\n"),
		Errors:   strings.Join(c.Errors, "\n"),
		Text:     c.Text,
		Terms:    ChunkTerms(c),
	}
}

// ChunkTerms is a chunk's Terms field: tokenize.IndexTerms of its other
// fields.
func ChunkTerms(c carryover.Chunk) string {
	return tokenize.IndexTerms(c.Prompt, c.Summary, c.Text,
		strings.Join(c.Files, "\n"), strings.Join(c.Commands, "\n"), strings.Join(c.Errors, "\n"))
}

// BM25's parameters, FTS5's.
const (
	K1 = 1.2
	B  = 0.75
)

// IDF is the inverse document frequency of a phrase found in df of rows
// rows, as FTS5 computes it: ln((rows − df + 0.5) / (df + 0.5)), or 1e-6
// when that is not positive (a phrase in half of the rows or more).
func IDF(rows, df int) float64 {
	idf := math.Log((float64(rows) - float64(df) + 0.5) / (float64(df) + 0.5))
	if idf <= 0 {
		return 1e-6
	}
	return idf
}

// BM25 scores one row for a query of phrases, as FTS5's bm25() does
// (negated): the sum over the phrases, in order, of idf[i] × f(K1 + 1) /
// (f + K1(1 − B + B × length / avgLength)), where f is freq[i], the
// phrase's weighted frequency in the row (see PhraseFreq), and length the
// row's tokens in all its fields.
func BM25(idf, freq []float64, length int, avgLength float64) float64 {
	score := 0.0
	for i := range idf {
		f := freq[i]
		score += idf[i] * ((f * (K1 + 1.0)) / (f + K1*(1-B+B*float64(length)/avgLength)))
	}
	return score
}

// Posting is one occurrence of a token in a row: its position, counted
// from the start of its field (positions are consecutive within a field and
// never adjacent across two), and its field's weight.
type Posting struct {
	Pos    int
	Weight float64
}

// PhraseFreq is the weighted frequency of a phrase of tokens in a row, as
// FTS5 counts it: the sum of the weights of the phrase's occurrences, an
// occurrence being its tokens at consecutive positions. postings holds the
// row's postings of each token, in position order.
func PhraseFreq(phrase []string, postings map[string][]Posting) float64 {
	if len(phrase) == 0 {
		return 0
	}
	f := 0.0
	for _, p := range postings[phrase[0]] {
		whole := true
		for j, t := range phrase[1:] {
			if _, ok := slices.BinarySearchFunc(postings[t], p.Pos+j+1, func(q Posting, pos int) int { return q.Pos - pos }); !ok {
				whole = false
				break
			}
		}
		if whole {
			f += p.Weight
		}
	}
	return f
}

// Document is a chunk as BM25 sees it: the postings of its tokens (package
// tokenize's FTS, the SQLite index's tokens) and its length in tokens.
type Document struct {
	Postings map[string][]Posting
	Len      int
}

// NewDocument tokenizes a chunk's fields (see Fields). Positions start at
// 1 and leave one free between two fields, so that no phrase spans them.
func NewDocument(fields [NumFields]string) Document {
	d := Document{Postings: map[string][]Posting{}}
	pos := 1
	for f, text := range fields {
		w := Field(f).Weight()
		tokenize.FTS(text, func(tok []byte) {
			d.Postings[string(tok)] = append(d.Postings[string(tok)], Posting{Pos: pos, Weight: w})
			pos++
			d.Len++
		})
		pos++
	}
	return d
}

// Phrase returns the tokens of a query term as the index matches it: a
// phrase of FTS tokens (none when the term has no token).
func Phrase(term string) []string { return tokenize.FTSTokens(term) }
