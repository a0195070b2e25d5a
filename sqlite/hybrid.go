package sqlite

import (
	"context"
	"database/sql"

	"github.com/carryover-dev/carryover/rank"
)

// HybridPool is the number of BM25 candidates Search reranks with vectors
// (rank.Pool).
const HybridPool = rank.Pool

// rerank gives cands (in rank.ByBM25 order) their vectors' cosines with
// the query and their parent turns, and orders them with rank.Fuse. Without
// stored vectors (or with another embedder's) the order and scores stay
// BM25's.
func (s *Store) rerank(ctx context.Context, query string, df docFreq, cands []rank.Candidate) error {
	if len(cands) == 0 {
		return nil
	}
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.ID
	}
	vecs, err := s.candidateVectors(ctx, ids)
	if err != nil {
		return err
	}
	if vecs != nil {
		qv := s.queryVector(query, df, vecs.last)
		var v []float32
		for i := range cands {
			c := &cands[i]
			if v, c.Parent, c.Vector = vecs.vector(v, c.ID); c.Vector {
				c.Cos = rank.Cosine(qv, v)
			}
		}
	}
	rank.Fuse(cands)
	return nil
}

// turnScores scores each turn of a search within one session as one
// document (rank.TurnScores) and returns each matching chunk's turn score.
// A term's frequency in a turn is the number of the turn's chunks that
// match it. terms are the plan's kept terms, so the rows read are at most
// the ones the search ranks. sc.w must hold the session condition (turn
// numbers name turns only within a session), and sc.lo and sc.hi be the ids
// of the session's first and last chunks.
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
			if sh, ok := sc.shares[id]; ok {
				turn = sh.Turn // the session's turn, not its first session's
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
	// row). The chunks a session shares hold its first turns, and place
	// them by the share rows.
	var firstTurn, lastTurn sql.NullInt64
	if len(sc.shares) == 0 {
		err = s.db.QueryRowContext(ctx, `SELECT (SELECT turn FROM chunks WHERE id = ?), (SELECT turn FROM chunks WHERE id = ?)`,
			sc.lo, sc.hi).Scan(&firstTurn, &lastTurn)
	} else {
		err = s.db.QueryRowContext(ctx, `SELECT min(turn), max(turn) FROM (SELECT turn FROM chunk_shares WHERE session_id = ?1
			UNION ALL SELECT * FROM (SELECT turn FROM chunks WHERE session_id = ?1 ORDER BY seq LIMIT 1)
			UNION ALL SELECT * FROM (SELECT turn FROM chunks WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1))`,
			sc.session).Scan(&firstTurn, &lastTurn)
	}
	if err != nil {
		return nil, wrapErr("search: turns", err)
	}
	score := rank.TurnScores(int(lastTurn.Int64-firstTurn.Int64)+1, tfs)
	if score == nil {
		return nil, nil
	}
	out := make(map[int64]float64, len(turnOf))
	for id, turn := range turnOf {
		out[id] = score[turn]
	}
	return out, nil
}
