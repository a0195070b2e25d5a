package sqlite

import (
	"context"
	"database/sql"

	"github.com/carryover-dev/carryover/internal/sharedchunk"
)

// inferShares adds to the shares migration 0010 derived from items those
// that the derived ones imply (see package sharedchunk): a shared chunk
// that no item of the resuming session points at, placed by the shared
// chunks around it.
func inferShares(ctx context.Context, tx *sql.Tx) error {
	type pair struct{ session, home string }
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT x.session_id, c.session_id FROM chunk_shares x JOIN chunks c ON c.id = x.chunk_id
		ORDER BY 1, 2`)
	if err != nil {
		return wrapErr("migrate: shared chunks", err)
	}
	var pairs []pair
	for rows.Next() {
		var p pair
		if err := rows.Scan(&p.session, &p.home); err != nil {
			rows.Close()
			return wrapErr("migrate: shared chunks", err)
		}
		pairs = append(pairs, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return wrapErr("migrate: shared chunks", err)
	}
	for _, p := range pairs {
		home, err := placed(ctx, tx, `SELECT id, seq, turn, win, first_line, last_line FROM chunks WHERE session_id = ?`, p.home)
		if err != nil {
			return err
		}
		tied, err := placed(ctx, tx, `SELECT x.chunk_id, x.seq, x.turn, x.win, x.first_line, x.last_line
			FROM chunk_shares x JOIN chunks c ON c.id = x.chunk_id WHERE x.session_id = ? AND c.session_id = ?`, p.session, p.home)
		if err != nil {
			return err
		}
		known := make(map[int64]sharedchunk.Place, len(tied))
		for _, c := range tied {
			known[c.ID] = c.Place
		}
		taken := map[int]bool{}
		seqs, err := tx.QueryContext(ctx, `SELECT seq FROM chunks WHERE session_id = ?1 UNION SELECT seq FROM chunk_shares WHERE session_id = ?1`, p.session)
		if err != nil {
			return wrapErr("migrate: shared chunks", err)
		}
		for seqs.Next() {
			var s int
			if err := seqs.Scan(&s); err != nil {
				seqs.Close()
				return wrapErr("migrate: shared chunks", err)
			}
			taken[s] = true
		}
		seqs.Close()
		if err := seqs.Err(); err != nil {
			return wrapErr("migrate: shared chunks", err)
		}
		for id, at := range sharedchunk.Infer(home, known, taken) {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO chunk_shares (session_id, chunk_id, seq, turn, win, first_line, last_line)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, p.session, id, at.Seq, at.Turn, at.Window, at.FirstLine, at.LastLine); err != nil {
				return wrapErr("migrate: shared chunks", err)
			}
		}
	}
	return nil
}

// placed reads chunk ids and places (id, seq, turn, win, first_line,
// last_line).
func placed(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]sharedchunk.Chunk, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrapErr("migrate: shared chunks", err)
	}
	defer rows.Close()
	var out []sharedchunk.Chunk
	for rows.Next() {
		var c sharedchunk.Chunk
		if err := rows.Scan(&c.ID, &c.Seq, &c.Turn, &c.Window, &c.FirstLine, &c.LastLine); err != nil {
			return nil, wrapErr("migrate: shared chunks", err)
		}
		out = append(out, c)
	}
	return out, wrapErr("migrate: shared chunks", rows.Err())
}
