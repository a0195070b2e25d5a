package sqlite

import (
	"context"
	"math"

	"github.com/carryover-dev/carryover/embed"
)

// HybridPool is the number of BM25 candidates Search reranks with vectors:
// reading their vectors (and their neighbours') is most of the rerank's
// cost, and on LoCoMo pools of 50, 100 and 400 give recalls within 0.003.
const HybridPool = 50

// candidate is a chunk found by the full-text index, with its BM25 score
// (negated bm25, higher is better), its cosine with the query, its parent
// turn and its fused score.
type candidate struct {
	id             int64
	bm, cos, score float64
	parent         int64 // the first chunk of its turn (see candidateVecs.vector)
}

// The fusion, tuned on LoCoMo (see cmd/carryover/locomo.go; there a turn
// is a LoCoMo session and a chunk one dialogue turn):
//
//   - a candidate scores bm + vectorW × bmMax × max(cos, 0), its BM25 plus
//     its cosine with the query on the scale of the best BM25 score, so that
//     the vector part weighs the same whatever the query's length and the
//     archive's size. Reciprocal-rank fusion of the two rankings did worse,
//     and so did moving the query vector towards the best candidates'
//     (pseudo-relevance feedback). contextW weighs the neighbouring chunks
//     of the same turn in a candidate's vector.
//   - parentW of the scores of the other candidates of its turn is added:
//     a turn several candidates come from is about the query as a whole,
//     and its parts are context for each other.
//   - the hits are then taken greedily, each further hit of a turn already
//     taken counting repeatDecay times less per hit before it: a window
//     next to one already shown adds less than the best part of another
//     turn.
//
// With stemmed BM25, the blend alone gives turn R@10 0.628 and session
// R@10 0.872; with the parent and repeat terms 0.603 and 0.8995. Stronger
// settings trade more turn recall for session recall (parentW 0.1 and
// repeatDecay 0.72: 0.591 and 0.903), and a pool of 100 costs turn recall.
// contextW 0.25–0.6 move both by less than 0.005.
const (
	vectorW     = 2
	contextW    = 0.5
	parentW     = 0.13
	repeatDecay = 0.75
)

// rerank scores cands (in BM25 order, ties by id) and orders them best
// first. The order is deterministic: ties keep BM25 order. Without stored
// vectors (or with another embedder's) the order and scores stay BM25's.
func (s *Store) rerank(ctx context.Context, query string, df docFreq, cands []candidate) error {
	for i := range cands {
		cands[i].score = cands[i].bm
	}
	if len(cands) == 0 {
		return nil
	}
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	vecs, err := s.candidateVectors(ctx, ids, contextW)
	if err != nil || vecs == nil {
		return err
	}
	qv, err := s.queryVector(ctx, query, df)
	if err != nil {
		return err
	}
	var v []float32
	for i := range cands {
		c := &cands[i]
		var ok bool
		if v, c.parent, ok = vecs.vector(v, c.id); !ok {
			c.parent = c.id
			continue
		}
		// The context blend leaves a vector longer than one.
		if n := math.Sqrt(float64(embed.Dot(v, v))); n > 0 {
			// Rounded: the same text with another number of
			// neighbours must tie, not differ in the last bits.
			c.cos = math.Round(float64(embed.Dot(qv, v))/n*1e6) / 1e6
		}
	}
	bmMax := cands[0].bm
	for i := range cands {
		c := &cands[i]
		c.score = c.bm + vectorW*bmMax*max(c.cos, 0)
	}
	sum := make(map[int64]float64, len(cands))
	for i := range cands {
		sum[cands[i].parent] += cands[i].score
	}
	for i := range cands {
		c := &cands[i]
		c.score += parentW * (sum[c.parent] - c.score)
	}
	diversify(cands)
	return nil
}

// diversify orders cands greedily: each step takes the best score, a
// candidate's score counting repeatDecay^n where n is the number of
// candidates of its turn taken before, and records that score. Equal
// scores keep the earlier candidate (BM25 order).
func diversify(cands []candidate) {
	taken := make(map[int64]int, len(cands))
	for i := range cands {
		best, bestScore := -1, math.Inf(-1)
		for j := i; j < len(cands); j++ {
			s := cands[j].score * math.Pow(repeatDecay, float64(taken[cands[j].parent]))
			if s > bestScore {
				best, bestScore = j, s
			}
		}
		// Shift rather than swap, so that the rest keep their order.
		c := cands[best]
		copy(cands[i+1:best+1], cands[i:best])
		c.score = bestScore
		cands[i] = c
		taken[c.parent]++
	}
}
