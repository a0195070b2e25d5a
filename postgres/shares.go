package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover/internal/sharedchunk"
)

// inferShares adds to the shares migration 0008 derived from items those
// that the derived ones imply (see package sharedchunk): a shared chunk
// that no item of the resuming session points at, placed by the shared
// chunks around it. Each pair of sessions is one owner's; a role under row
// security infers only its own.
func inferShares(ctx context.Context, tx pgx.Tx) error {
	type pair struct{ owner, session, home, team, project string }
	rows, err := tx.Query(ctx, `SELECT DISTINCT x.owner, x.session_id, c.session_id, x.team, x.project
		FROM chunk_shares x JOIN chunks c ON c.id = x.chunk_id AND c.owner = x.owner
		WHERE x.owner = current_user OR NOT row_security_active('chunk_shares') ORDER BY 1, 2, 3`)
	if err != nil {
		return fmt.Errorf("migrate: shared chunks: %w", err)
	}
	pairs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pair, error) {
		var p pair
		err := r.Scan(&p.owner, &p.session, &p.home, &p.team, &p.project)
		return p, err
	})
	if err != nil {
		return fmt.Errorf("migrate: shared chunks: %w", err)
	}
	scan := func(r pgx.CollectableRow) (sharedchunk.Chunk, error) {
		var c sharedchunk.Chunk
		err := r.Scan(&c.ID, &c.Seq, &c.Turn, &c.Window, &c.FirstLine, &c.LastLine)
		return c, err
	}
	for _, p := range pairs {
		rows, err := tx.Query(ctx, `SELECT id, seq, turn, win, first_line, last_line FROM chunks WHERE session_id = $1 AND owner = $2`,
			p.home, p.owner)
		if err != nil {
			return fmt.Errorf("migrate: shared chunks: %w", err)
		}
		home, err := pgx.CollectRows(rows, scan)
		if err != nil {
			return fmt.Errorf("migrate: shared chunks: %w", err)
		}
		rows, err = tx.Query(ctx, `SELECT x.chunk_id, x.seq, x.turn, x.win, x.first_line, x.last_line
			FROM chunk_shares x JOIN chunks c ON c.id = x.chunk_id
			WHERE x.session_id = $1 AND x.owner = $2 AND c.session_id = $3 AND c.owner = $2`, p.session, p.owner, p.home)
		if err != nil {
			return fmt.Errorf("migrate: shared chunks: %w", err)
		}
		tied, err := pgx.CollectRows(rows, scan)
		if err != nil {
			return fmt.Errorf("migrate: shared chunks: %w", err)
		}
		known := make(map[int64]sharedchunk.Place, len(tied))
		for _, c := range tied {
			known[c.ID] = c.Place
		}
		rows, err = tx.Query(ctx, `SELECT seq FROM chunks WHERE session_id = $1 AND owner = $2
			UNION SELECT seq FROM chunk_shares WHERE session_id = $1 AND owner = $2`, p.session, p.owner)
		if err != nil {
			return fmt.Errorf("migrate: shared chunks: %w", err)
		}
		seqs, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return fmt.Errorf("migrate: shared chunks: %w", err)
		}
		taken := make(map[int]bool, len(seqs))
		for _, s := range seqs {
			taken[s] = true
		}
		for id, at := range sharedchunk.Infer(home, known, taken) {
			if _, err := tx.Exec(ctx, `INSERT INTO chunk_shares (owner, team, project, session_id, chunk_id, seq, turn, win, first_line, last_line)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (session_id, owner, chunk_id) DO NOTHING`,
				p.owner, p.team, p.project, p.session, id, at.Seq, at.Turn, at.Window, at.FirstLine, at.LastLine); err != nil {
				return fmt.Errorf("migrate: shared chunks: %w", err)
			}
		}
	}
	return nil
}
