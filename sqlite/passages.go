package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/carryover-dev/carryover"
)

// SearchPassages ranks passages of the raw lines by BM25 over their
// contentless index, with Search's query rules; it finds nothing when even
// the rarest term is in more than carryover.MaxPassageCandidates passages.
// Query.SessionID, Project and BeforeWindow filter: a passage's window is
// the number of the session's compactions before its line. Limit
// defaults to DefaultSearchLimit.
func (s *Store) SearchPassages(ctx context.Context, q carryover.Query) ([]carryover.PassageHit, error) {
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	lo, hi := int64(0), int64(math.MaxInt64)
	var w where
	if q.SessionID != "" {
		// A session's passages were mostly inserted together: bounding
		// the rowids lets FTS5 skip the rest of each posting list.
		var first, last sql.NullInt64
		if err := s.db.QueryRowContext(ctx, `SELECT min(id), max(id) FROM passages WHERE session_id = ?`, q.SessionID).Scan(&first, &last); err != nil {
			return nil, wrapErr("search passages", err)
		}
		if !first.Valid {
			return nil, nil
		}
		lo, hi = first.Int64, last.Int64
		w.add("p.session_id = ?", q.SessionID)
	}
	if q.Project != "" {
		w.add("p.session_id IN (SELECT s.id FROM sessions s JOIN projects pr ON pr.id = s.project_id WHERE pr.root = ?)", q.Project)
	}
	if q.BeforeWindow > 0 {
		w.add("(SELECT count(*) FROM compactions k WHERE k.session_id = p.session_id AND k.line < p.line) < ?", q.BeforeWindow)
	}
	pl, err := s.planUpTo(ctx, "passages_fts", terms, lo, hi, carryover.MaxPassageCandidates)
	if err != nil || pl.match == "" || pl.capped {
		// Capped: even the rarest term is in too many passages to point
		// at a line; the chunks' ranking judges such a query better.
		return nil, err
	}
	lim := q.Limit
	if lim <= 0 {
		lim = DefaultSearchLimit
	}
	join := ""
	if len(w.conds) > 0 {
		join = " JOIN passages p ON p.id = passages_fts.rowid"
	}
	ranked := `SELECT passages_fts.rowid AS rid, -bm25(passages_fts) AS bm FROM passages_fts` + join + `
		WHERE passages_fts MATCH ? AND passages_fts.rowid BETWEEN ? AND ?` + and(w)
	rows, err := s.db.QueryContext(ctx, `SELECT r.bm, p.session_id, p.line, p.part, pr.root FROM (`+ranked+`) r
		JOIN passages p ON p.id = r.rid JOIN sessions s ON s.id = p.session_id JOIN projects pr ON pr.id = s.project_id
		ORDER BY r.bm DESC, r.rid DESC LIMIT `+fmt.Sprint(lim), append([]any{pl.match, lo, hi}, w.args...)...)
	if err != nil {
		return nil, wrapErr("search passages", err)
	}
	defer rows.Close()
	var hits []carryover.PassageHit
	for rows.Next() {
		var h carryover.PassageHit
		if err := rows.Scan(&h.BM25, &h.SessionID, &h.Line, &h.Part, &h.Project); err != nil {
			return nil, wrapErr("search passages", err)
		}
		hits = append(hits, h)
	}
	return hits, wrapErr("search passages", rows.Err())
}
