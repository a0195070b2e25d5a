package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"
)

// The spans of chunk ids (migration 0014) tell a search which project a
// full-text match is of without reading the chunk or its index entry.
// Chunks are stored a batch at a time, each batch of one project with
// consecutive new ids, so a project's chunks are a few runs of ids: a
// span is a run of one project's chunks, as wide as no other project's
// chunk lies inside it. Every chunk with an id at or above the meta key
// spans_below lies in exactly one span, of its project; a span may also
// take in the ids of deleted chunks.
//
// No span reaches past the newest chunk: deleting the newest chunks trims
// the spans (a trigger). A process of an older carryover may still be
// writing when a newer one migrates the store: it stores chunks and keeps
// no span. SQLite gives a new row the highest id plus one, so its chunks
// lie past every span: a search uses the spans only while the newest
// chunk ends the newest span (projectRange), and Apply, finding a chunk
// between the newest span and its batch, drops the spans for Backfill to
// build again.

// spanQuerier is what the span steps run statements on.
type spanQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// span is a run [lo, hi] of chunk ids of one project.
type span struct {
	lo, hi, project int64
}

// addSpans puts the chunks of project just stored with ids into the
// spans, within the transaction that stored them. Ids below spans_below
// are left to backfillSpans, which goes through every id below it.
func addSpans(ctx context.Context, tx spanQuerier, project int64, ids []int64) error {
	ids = slices.Sorted(slices.Values(ids))
	for len(ids) > 0 {
		// A run of consecutive ids.
		n := 1
		for n < len(ids) && ids[n] == ids[n-1]+1 {
			n++
		}
		lo, hi := ids[0], ids[n-1]
		ids = ids[n:]
		// Most batches come after every span: the newest span grows, or a
		// new one follows it, in one statement.
		done, err := topSpan(ctx, tx, span{lo: lo, hi: hi, project: project})
		if err != nil {
			return err
		}
		if done {
			continue
		}
		var below int64
		err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'spans_below'`).Scan(&below)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // a store before migration 0014: nothing to keep
		}
		if err != nil {
			return err
		}
		if hi < below {
			continue
		}
		lo = max(lo, below)
		// A chunk between the span before and this one is in no span:
		// an older carryover stored it.
		var stray bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id >= max(?1,
			coalesce((SELECT hi + 1 FROM chunk_spans WHERE lo < ?2 ORDER BY lo DESC LIMIT 1), ?1)) AND id < ?2)`,
			below, lo).Scan(&stray); err != nil {
			return err
		}
		if stray {
			return dropSpans(ctx, tx)
		}
		if err := putSpan(ctx, tx, span{lo: lo, hi: hi, project: project}); err != nil {
			return err
		}
	}
	return nil
}

// topSpan puts s after the newest span when it lies past it, at or above
// spans_below, with no chunk between them: it extends the newest span
// when that is s's project's, else it adds s. It reports false, having
// changed nothing, when s is not such a run.
func topSpan(ctx context.Context, tx spanQuerier, s span) (bool, error) {
	const fits = `(SELECT value FROM meta WHERE key = 'spans_below') <= ?1
		AND NOT EXISTS (SELECT 1 FROM chunks WHERE id >= max((SELECT value FROM meta WHERE key = 'spans_below'),
			coalesce((SELECT hi + 1 FROM chunk_spans ORDER BY lo DESC LIMIT 1), 0)) AND id < ?1)`
	res, err := tx.ExecContext(ctx, `UPDATE chunk_spans SET hi = ?2
		WHERE lo = (SELECT max(lo) FROM chunk_spans) AND project_id = ?3 AND hi < ?1 AND `+fits, s.lo, s.hi, s.project)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return n == 1, err
	}
	res, err = tx.ExecContext(ctx, `INSERT INTO chunk_spans (lo, hi, project_id) SELECT ?1, ?2, ?3
		WHERE coalesce((SELECT hi FROM chunk_spans ORDER BY lo DESC LIMIT 1), 0) < ?1 AND `+fits, s.lo, s.hi, s.project)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// spanProject is the SQL expression of the project whose span holds the
// chunk id the expression id gives, NULL when no span does: the span
// that starts last at or before it, when it reaches that far.
func spanProject(id string) string {
	return `(SELECT CASE WHEN hi >= ` + id + ` THEN project_id END FROM chunk_spans WHERE lo <= ` + id + ` ORDER BY lo DESC LIMIT 1)`
}

// dropSpans drops every span: Backfill builds them again from the chunks,
// and searches use the project index meanwhile.
func dropSpans(ctx context.Context, tx spanQuerier) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM chunk_spans;
		UPDATE meta SET value = (SELECT min(coalesce(max(id), 0), 9223372036854775806) + 1 FROM chunks) WHERE key = 'spans_below'`)
	return err
}

// putSpan makes [s.lo, s.hi] s.project's: it takes the range out of any
// span that holds part of it (an id given again: a chunk stored with its
// own id), then joins it to the span before it and the span after it
// when they are of the same project. Joining is sound: between two
// neighbouring spans lies no chunk at all, at or above spans_below.
func putSpan(ctx context.Context, tx spanQuerier, s span) error {
	// The span that starts before the range and reaches into it, and
	// those that start inside it: two ranges of the primary key.
	over, err := readSpans(ctx, tx, `SELECT * FROM (SELECT lo, hi, project_id FROM chunk_spans WHERE lo < ?1 ORDER BY lo DESC LIMIT 1) WHERE hi >= ?1
		UNION ALL SELECT lo, hi, project_id FROM chunk_spans WHERE lo BETWEEN ?1 AND ?2`, s.lo, s.hi)
	if err != nil {
		return err
	}
	for _, o := range over {
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunk_spans WHERE lo = ?`, o.lo); err != nil {
			return err
		}
		for _, part := range []span{{o.lo, s.lo - 1, o.project}, {s.hi + 1, o.hi, o.project}} {
			if part.lo <= part.hi {
				if err := insertSpan(ctx, tx, part); err != nil {
					return err
				}
			}
		}
	}
	// The span before it, then the span after it.
	for _, nb := range []struct {
		q  string
		at int64
	}{
		{`SELECT lo, hi, project_id FROM chunk_spans WHERE lo < ? ORDER BY lo DESC LIMIT 1`, s.lo},
		{`SELECT lo, hi, project_id FROM chunk_spans WHERE lo > ? ORDER BY lo LIMIT 1`, s.hi},
	} {
		n, err := readSpans(ctx, tx, nb.q, nb.at)
		if err != nil {
			return err
		}
		if len(n) == 1 && n[0].project == s.project {
			if _, err := tx.ExecContext(ctx, `DELETE FROM chunk_spans WHERE lo = ?`, n[0].lo); err != nil {
				return err
			}
			s.lo, s.hi = min(s.lo, n[0].lo), max(s.hi, n[0].hi)
		}
	}
	return insertSpan(ctx, tx, s)
}

func insertSpan(ctx context.Context, tx spanQuerier, s span) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO chunk_spans (lo, hi, project_id) VALUES (?, ?, ?)`, s.lo, s.hi, s.project)
	return err
}

func readSpans(ctx context.Context, q spanQuerier, query string, args ...any) ([]span, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []span
	for rows.Next() {
		var s span
		if err := rows.Scan(&s.lo, &s.hi, &s.project); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// spansBackfillFactor is how many chunk ids backfillSpans goes through per
// chunk Backfill embeds: it reads two integers of each from an index.
const spansBackfillFactor = 256

// backfillSpans puts the chunks with the limit ids below spans_below into
// spans, newest first, and lowers the bound past them (to 1 when none is
// left), in one transaction. It returns how many chunks it went through.
func (s *Store) backfillSpans(ctx context.Context, limit int) (int, error) {
	var below int64
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'spans_below'`).Scan(&below)
	if errors.Is(err, sql.ErrNoRows) || err == nil && below <= 1 {
		return 0, nil
	}
	if err != nil {
		return 0, wrapErr("backfill spans", err)
	}
	tx, end, err := s.beginWrite(ctx, s.db)
	if err != nil {
		return 0, wrapErr("backfill spans", err)
	}
	defer end()
	n, err := backfillSpansTx(ctx, tx, limit)
	if err != nil {
		return 0, wrapErr("backfill spans", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, wrapErr("backfill spans: commit", err)
	}
	return n, nil
}

func backfillSpansTx(ctx context.Context, tx spanQuerier, limit int) (int, error) {
	// Again inside the transaction: another process may have moved it.
	var below int64
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'spans_below'`).Scan(&below); err != nil {
		return 0, err
	}
	if below <= 1 || limit <= 0 {
		return 0, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, project_id FROM chunks INDEXED BY chunks_filter WHERE id < ? ORDER BY id DESC LIMIT ?`, below, limit)
	if err != nil {
		return 0, err
	}
	// Runs of one project, newest first. No chunk lies between two ids
	// read one after the other, so a run takes in the ids between them.
	var runs []span
	n := 0
	for rows.Next() {
		var id, project int64
		if err := rows.Scan(&id, &project); err != nil {
			rows.Close()
			return 0, err
		}
		n++
		if k := len(runs) - 1; k >= 0 && runs[k].project == project {
			runs[k].lo = id
		} else {
			runs = append(runs, span{lo: id, hi: id, project: project})
		}
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	next := int64(1)
	if n == limit {
		next = runs[len(runs)-1].lo
	}
	if len(runs) > 0 {
		// Up to the first span at or above the bound: no chunk lies
		// between the newest id read and it.
		runs[0].hi = below - 1
	}
	for _, r := range runs {
		if err := putSpan(ctx, tx, r); err != nil {
			return 0, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'spans_below'`, next); err != nil {
		return 0, err
	}
	return n, nil
}

// projectRange reads whether a search may test a match's project by the
// spans: not while spans_below is above 1, nor while the newest chunk is
// not the end of the newest span (an older carryover stored it), and then
// the search looks the chunk up in the project index. When it may, lo and hi bound the project's spans (lo
// > hi when it has none, or the project is unknown).
func (s *Store) projectRange(ctx context.Context, project string) (lo, hi int64, usable bool, err error) {
	var below, first, last, newest, top sql.NullInt64
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = 'spans_below'),
		(SELECT lo FROM chunk_spans WHERE project_id = p.id ORDER BY lo LIMIT 1),
		(SELECT hi FROM chunk_spans WHERE project_id = p.id ORDER BY lo DESC LIMIT 1),
		(SELECT max(id) FROM chunks), (SELECT hi FROM chunk_spans ORDER BY lo DESC LIMIT 1)
		FROM (SELECT (SELECT id FROM projects WHERE root = ?) AS id) p`, project).Scan(&below, &first, &last, &newest, &top)
	if err != nil {
		return 0, 0, false, err
	}
	if !below.Valid || below.Int64 > 1 || newest != top {
		return 0, 0, false, nil
	}
	if !first.Valid || !last.Valid {
		return 1, 0, true, nil
	}
	return first.Int64, last.Int64, true, nil
}

// repairSpans counts the chunks at or above spans_below that lie in no
// span of their project, and the spans that overlap the next one. Spans
// are derived from the chunks: when any disagrees, they are all dropped
// and Backfill puts the chunks in spans again (searches use the project
// index meanwhile). It returns what it counted.
func (s *Store) repairSpans(ctx context.Context) (int, error) {
	var bad int
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM chunks c WHERE c.id >= (SELECT value FROM meta WHERE key = 'spans_below')
			AND `+spanProject("c.id")+` IS NOT c.project_id)
		+ (SELECT count(*) FROM chunk_spans a WHERE a.hi < a.lo
			OR a.hi >= (SELECT b.lo FROM chunk_spans b WHERE b.lo > a.lo ORDER BY b.lo LIMIT 1))`).Scan(&bad)
	if err != nil || bad == 0 {
		return bad, err
	}
	tx, end, err := s.beginWrite(ctx, s.db)
	if err != nil {
		return bad, err
	}
	defer end()
	if err := dropSpans(ctx, tx); err != nil {
		return bad, err
	}
	return bad, tx.Commit()
}
