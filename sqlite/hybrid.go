package sqlite

import (
	"context"
	"math"
	"slices"

	"github.com/carryover-dev/carryover/embed"
)

// HybridPool is the number of BM25 candidates Search reranks with vectors:
// reading their vectors (and their neighbours') is most of the rerank's
// cost, and on LoCoMo pools of 50, 100 and 400 give recalls within 0.003.
const HybridPool = 50

// candidate is a chunk found by the full-text index, with its BM25 score
// (negated bm25, higher is better), its cosine with the query and its
// fused score.
type candidate struct {
	id             int64
	bm, cos, score float64
}

// The blend, tuned on LoCoMo (see cmd/carryover/locomo.go): a candidate
// scores bm + vectorW × bmMax × max(cos, 0), its BM25 plus its cosine with
// the query on the scale of the best BM25 score, so that the vector part
// weighs the same whatever the query's length and the archive's size, and
// Score stays at or above BM25 (thresholds calibrated on BM25 still hold for
// what BM25 alone would pass). On LoCoMo vectorW 1.5–4 give turn R@10
// 0.597–0.605; dividing cos by the best candidate's cosine did no better,
// reciprocal-rank fusion of the two rankings worse (0.57–0.59). contextW
// weighs the neighbouring chunks of the same turn in a candidate's vector
// (0 gives turn R@10 0.58; 0.5 gains turn recall and loses session recall).
const (
	vectorW  = 4
	contextW = 0.25
)

// rerank scores cands (in BM25 order, ties by id) and sorts them best
// first; the sort is stable, so equal scores keep BM25 order and the
// result is deterministic. Without stored vectors the order stays BM25's.
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
	if err != nil || len(vecs) == 0 {
		return err
	}
	qv, err := s.queryVector(ctx, query, df)
	if err != nil {
		return err
	}
	for i := range cands {
		// The context blend leaves a vector longer than one.
		if v, ok := vecs[cands[i].id]; ok {
			if n := math.Sqrt(float64(embed.Dot(v, v))); n > 0 {
				cands[i].cos = float64(embed.Dot(qv, v)) / n
			}
		}
	}
	bmMax := cands[0].bm
	for i := range cands {
		c := &cands[i]
		c.score = c.bm + vectorW*bmMax*max(c.cos, 0)
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	return nil
}
