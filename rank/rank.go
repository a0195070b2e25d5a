// Package rank is carryover's search ranking, the same for every store. A
// store finds the candidates of a query with its full-text index and
// measures their raw signals (Candidate); rank fuses them, adds the parent
// turns' sums and each turn's score as one document, and takes the hits
// with fewer repeats of one turn (Fuse). The constants were tuned on LoCoMo
// with the SQLite store (see Fuse).
//
// # The score scale
//
// Candidate.BM25, and so carryover.Hit.BM25, is the BM25 of SQLite FTS5's
// bm25() (negated: higher is better) over a chunk's fields (Fields) with
// their Weights, K1 and B, each query phrase's IDF counted over the whole
// index, and a row's length in tokens over all fields. SQLite computes it in
// its index; a store without FTS5 computes it with BM25 and PhraseFreq from
// the same tokens (package tokenize's FTS). Thresholds on Hit.BM25, such as
// recall's in package retrieve, mean the same on every store. The scale
// grows with the archive (a rare word's idf is about ln N) and with the
// number of query words a chunk holds.
package rank

import (
	"cmp"
	"math"

	"github.com/carryover-dev/carryover/embedding"
)

// Bounds of one search, the same in every store.
const (
	// Pool is the number of BM25 candidates reranked with vectors:
	// reading their vectors (and their neighbours') is most of the
	// rerank's cost, and on LoCoMo pools of 50, 100 and 400 give recalls
	// within 0.003.
	Pool = 50
	// MaxCandidates bounds the rows one search ranks by BM25: scoring a
	// row costs microseconds, and a common word matches every row. A
	// store keeps the rarest query terms while their matches add up to at
	// most MaxCandidates, and when even the rarest matches more, ranks
	// only its newest CappedCandidates matches.
	MaxCandidates = 2000
	// CappedCandidates is how many of the newest matches of a query's
	// rarest term are ranked when it matches more than MaxCandidates
	// rows: every word of such a query is common, and its BM25 orders
	// those matches by little more than length, and each costs a store an
	// index walk, a filter lookup and a length record. The newest 200
	// rather than 500: on LoCoMo with its bounds scaled down, 2.5 times
	// fewer moved its recalls by at most 0.005 (docs/storeopen.md has the
	// figures, and what they cannot show).
	CappedCandidates = 200
)

// The fusion, tuned on LoCoMo with the SQLite store (see
// bench/locomo.go; there a turn is a LoCoMo session and a chunk
// one dialogue turn):
//
//   - a candidate scores bm + VectorWeight × bmMax × max(cos, 0), its BM25
//     plus its cosine with the query on the scale of the best BM25 score,
//     so that the vector part weighs the same whatever the query's length
//     and the archive's size. Reciprocal-rank fusion of the two rankings
//     did worse, and so did moving the query vector towards the best
//     candidates' (pseudo-relevance feedback). ContextWeight weighs the
//     neighbouring chunks of the same turn in a candidate's vector.
//   - ParentWeight of the scores of the other candidates of its turn is
//     added: a turn several candidates come from is about the query as a
//     whole, and its parts are context for each other.
//   - in a search within one session, TurnDocWeight × bmMax × its turn's
//     score as one document (see TurnScores) is added too: the pool holds
//     only the best chunks, the turn document all of the turn's matches.
//   - the hits are then taken greedily, each further hit of a turn already
//     taken counting RepeatDecay times less per hit before it: a window
//     next to one already shown adds less than the best part of another
//     turn.
//
// With stemmed BM25, the blend alone gives turn R@10 0.628 and session
// R@10 0.872; with the parent terms and RepeatDecay 0.75, 0.603 and
// 0.8995. Every setting of ParentWeight and RepeatDecay traded one for the
// other along one curve (0.588 and 0.906, 0.620 and 0.892, ...); the turn
// document moved the curve by about 0.01 of turn recall (TurnDocWeight 1,
// with RepeatDecay 0.64 / 0.67 / 0.70: 0.596 / 0.608 / 0.617 turn R@10 and
// 0.903 / 0.901 / 0.900 session R@10; TurnDocWeight 0.5–2 within 0.005 of
// it). Adding the 10–100 best vector-only candidates of the session to the
// pool (every vector of the session scored) gained at most 0.003 of either
// recall, and pseudo-relevance feedback on the query's words lost both
// (LoCoMo's turns are short: the feedback words drift). The project-wide
// searches of the hooks were unchanged by RepeatDecay 0.67 on `bench
// survival` and `bench recall`. ContextWeight 0.25–0.6 moves both by less
// than 0.005.
const (
	VectorWeight  = 2
	ContextWeight = 0.5
	ParentWeight  = 0.13
	RepeatDecay   = 0.67
	TurnDocWeight = 1
)

// Candidate is a chunk a store found for a query, with its raw signals.
type Candidate struct {
	ID int64
	// BM25 is the full-text score (see the package documentation).
	BM25 float64
	// Cos is the cosine of the query's vector with the chunk's, blended
	// with ContextWeight times its neighbours' in its turn (see Cosine);
	// meaningful when Vector is true.
	Cos    float64
	Vector bool // the chunk has a vector of the store's embedder
	// Parent names the chunk's turn: the id of the turn's first chunk,
	// or the chunk's own id when that is not known.
	Parent int64
	// TurnDoc is the chunk's turn scored as one document, over the best
	// turn's (see TurnScores): set in searches within one session.
	TurnDoc float64
	// Score is the fused score Fuse sets, higher is better.
	Score float64
}

// ByBM25 orders candidates by BM25, best first, ties by id (the older
// chunk first): the order Fuse expects, and the one that picks a search's
// Pool.
func ByBM25(a, b Candidate) int {
	if c := cmp.Compare(b.BM25, a.BM25); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// Fuse scores cands, which must come in ByBM25 order, and orders them best
// first (see the constants for how). The order is deterministic: equal
// scores keep BM25 order. When no candidate has a vector (none stored yet,
// or another embedder's), the scores and the order stay BM25's.
func Fuse(cands []Candidate) {
	vectors := false
	for i := range cands {
		cands[i].Score = cands[i].BM25
		vectors = vectors || cands[i].Vector
	}
	if !vectors {
		return
	}
	bmMax := cands[0].BM25
	for i := range cands {
		c := &cands[i]
		if !c.Vector {
			c.Cos = 0
		}
		if c.Parent == 0 {
			c.Parent = c.ID
		}
		c.Score = c.BM25 + VectorWeight*bmMax*max(c.Cos, 0)
	}
	sum := make(map[int64]float64, len(cands))
	for i := range cands {
		sum[cands[i].Parent] += cands[i].Score
	}
	for i := range cands {
		c := &cands[i]
		c.Score += ParentWeight*(sum[c.Parent]-c.Score) + TurnDocWeight*bmMax*c.TurnDoc
	}
	diversify(cands)
}

// diversify orders cands greedily: each step takes the best score, a
// candidate's score counting RepeatDecay^n where n is the number of
// candidates of its turn taken before, and records that score. Equal
// scores keep the earlier candidate (BM25 order).
func diversify(cands []Candidate) {
	taken := make(map[int64]int, len(cands))
	for i := range cands {
		best, bestScore := -1, math.Inf(-1)
		for j := i; j < len(cands); j++ {
			s := cands[j].Score * math.Pow(RepeatDecay, float64(taken[cands[j].Parent]))
			if s > bestScore {
				best, bestScore = j, s
			}
		}
		// Shift rather than swap, so that the rest keep their order.
		c := cands[best]
		copy(cands[i+1:best+1], cands[i:best])
		c.Score = bestScore
		cands[i] = c
		taken[c.Parent]++
	}
}

// Cosine is the cosine of the query's unit vector q with a chunk's vector
// v, which the context blend (v plus ContextWeight times its neighbours in
// its turn) leaves longer than one. It is rounded to 6 decimals: the same
// text with another number of neighbours, or its neighbours added in
// another order, must tie rather than differ in the last bits.
func Cosine(q, v []float32) float64 {
	if len(q) != len(v) {
		// Another embedder's vector (a schema's row naming the wrong one,
		// say) is not comparable: no similarity, rather than a panic.
		return 0
	}
	n := math.Sqrt(float64(embedding.Dot(v, v)))
	if n == 0 {
		return 0
	}
	return math.Round(float64(embedding.Dot(q, v))/n*1e6) / 1e6
}

// Blend adds ContextWeight times each neighbour vector to v, in the order
// given (the chunk before, then the chunk after), and returns v. A
// neighbour shorter than v is ignored.
func Blend(v []float32, neighbours ...[]float32) []float32 {
	for _, n := range neighbours {
		if len(n) < len(v) {
			continue
		}
		n = n[:len(v)]
		for i := range v {
			v[i] += ContextWeight * n[i]
		}
	}
	return v
}
