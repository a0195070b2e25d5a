package sqlite

import (
	"context"
	"database/sql"
	"math"

	"github.com/carryover-dev/carryover/embedding"
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

// The fusion, tuned on LoCoMo (see bench/locomo.go; there a turn
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
//   - in a search within one session, turnDocW × bmMax × its turn's score
//     as one document (see turnScores) is added too: the pool holds only
//     the best chunks, the turn document all of the turn's matches.
//   - the hits are then taken greedily, each further hit of a turn already
//     taken counting repeatDecay times less per hit before it: a window
//     next to one already shown adds less than the best part of another
//     turn.
//
// With stemmed BM25, the blend alone gives turn R@10 0.628 and session
// R@10 0.872; with the parent terms and repeatDecay 0.75, 0.603 and
// 0.8995. Every setting of parentW and repeatDecay traded one for the
// other along one curve (0.588 and 0.906, 0.620 and 0.892, ...); the turn
// document moved the curve by about 0.01 of turn recall (turnDocW 1, with
// repeatDecay 0.64 / 0.67 / 0.70: 0.596 / 0.608 / 0.617 turn R@10 and
// 0.903 / 0.901 / 0.900 session R@10; turnDocW 0.5–2 within 0.005 of it).
// Adding the 10–100 best vector-only candidates of the session to the
// pool (every vector of the session scored) gained at most 0.003 of either
// recall, and pseudo-relevance feedback on the query's words lost both
// (LoCoMo's turns are short: the feedback words drift). The project-wide searches
// of the hooks were unchanged by repeatDecay 0.67 on `bench survival` and
// `bench recall`. contextW 0.25–0.6 move both by less than 0.005.
const (
	vectorW     = 2
	contextW    = 0.5
	parentW     = 0.13
	repeatDecay = 0.67
	turnDocW    = 1
	turnK1      = 1.2
)

// rerank scores cands (in BM25 order, ties by id) and orders them best
// first. The order is deterministic: ties keep BM25 order. Without stored
// vectors (or with another embedder's) the order and scores stay BM25's.
func (s *Store) rerank(ctx context.Context, query string, df docFreq, cands []candidate, turnDoc map[int64]float64) error {
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
		if n := math.Sqrt(float64(embedding.Dot(v, v))); n > 0 {
			// Rounded: the same text with another number of
			// neighbours must tie, not differ in the last bits.
			c.cos = math.Round(float64(embedding.Dot(qv, v))/n*1e6) / 1e6
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
		c.score += parentW*(sum[c.parent]-c.score) + turnDocW*bmMax*turnDoc[c.id]
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

// turnScores scores each turn of a search within one session as one
// document, and returns each matching chunk's turn score divided by the
// best one: a turn that matches more of the query's words, in more of its
// parts, is about the query as a whole, and its chunks are context for
// each other. The score is BM25 over turns without length normalisation
// (which changed nothing on LoCoMo): a term's frequency in a turn is the
// number of the turn's chunks that match it, its idf counts turns. terms
// are the plan's kept terms, so the rows read are at most the ones the
// search ranks. sc.w must hold the session condition (turn numbers name
// turns only within a session), and sc.lo and sc.hi be the ids of the
// session's first and last chunks.
func (s *Store) turnScores(ctx context.Context, sc scope, terms []string) (map[int64]float64, error) {
	stmt, err := s.db.PrepareContext(ctx, `SELECT chunks_fts.rowid, c.turn FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
		WHERE chunks_fts MATCH ? AND chunks_fts.rowid BETWEEN ? AND ?`+and(sc.w))
	if err != nil {
		return nil, wrapErr("search: turns", err)
	}
	defer stmt.Close()
	turnOf := map[int64]int{}
	tfs := make([]map[int]int, len(terms))
	args := append([]any{nil, sc.lo, sc.hi}, sc.w.args...)
	for i, t := range terms {
		tf := map[int]int{}
		args[0] = t
		rows, err := stmt.QueryContext(ctx, args...)
		if err != nil {
			return nil, wrapErr("search: turns", err)
		}
		for rows.Next() {
			var id int64
			var turn int
			if err := rows.Scan(&id, &turn); err != nil {
				rows.Close()
				return nil, wrapErr("search: turns", err)
			}
			turnOf[id] = turn
			tf[turn]++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, wrapErr("search: turns", err)
		}
		tfs[i] = tf
	}
	// A session's turns are numbered in order, so the first and the last
	// chunk of the range tell how many there are (without reading every
	// row); the turns seen are a floor when numbers were skipped.
	var firstTurn, lastTurn sql.NullInt64
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT turn FROM chunks WHERE id = ?), (SELECT turn FROM chunks WHERE id = ?)`,
		sc.lo, sc.hi).Scan(&firstTurn, &lastTurn)
	if err != nil {
		return nil, wrapErr("search: turns", err)
	}
	seen := map[int]bool{}
	for _, turn := range turnOf {
		seen[turn] = true
	}
	n := max(int(lastTurn.Int64-firstTurn.Int64)+1, len(seen), 1)
	score := map[int]float64{}
	for _, tf := range tfs {
		idf := embedding.IDF(n, len(tf))
		for turn, f := range tf {
			x := float64(f)
			score[turn] += idf * x * (turnK1 + 1) / (x + turnK1)
		}
	}
	best := 0.0
	for _, v := range score {
		best = max(best, v)
	}
	if best <= 0 {
		return nil, nil
	}
	out := make(map[int64]float64, len(turnOf))
	for id, turn := range turnOf {
		out[id] = score[turn] / best
	}
	return out, nil
}
