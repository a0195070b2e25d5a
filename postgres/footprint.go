package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/sharedchunk"
)

// chunkBytes is the stored bytes of a chunk c (compressed where it is):
// pg_column_size reads a value's size, not the value.
const chunkBytes = `pg_column_size(c.prompt) + pg_column_size(c.summary) + pg_column_size(c.text) + pg_column_size(c.tools)
	+ pg_column_size(c.files) + pg_column_size(c.commands) + pg_column_size(c.errors) + pg_column_size(c.hash)
	+ pg_column_size(c.tsv) + coalesce(pg_column_size(c.vec), 0)`

// Footprints returns the bytes the rows this role can read take for each
// session, a chunk several sessions of its owner hold under all of them
// (see carryover.Footprinter).
func (s *Store) Footprints(ctx context.Context) ([]carryover.Footprint, error) {
	var fp sharedchunk.Footprints
	rows, err := s.pool.Query(ctx, `SELECT session_id, sum(n)::bigint FROM (
			SELECT c.session_id, `+chunkBytes+` AS n FROM chunks c
				WHERE NOT EXISTS (SELECT 1 FROM chunk_shares x WHERE x.chunk_id = c.id)
			UNION ALL SELECT session_id, pg_column_size(key) + pg_column_size(text) + pg_column_size(detail) FROM items
			UNION ALL SELECT session_id, pg_column_size(summary) FROM compactions
			UNION ALL SELECT session_id, pg_column_size(data) FROM raw_blocks
			UNION ALL SELECT session_id, pg_column_size(tsv) FROM passages
			UNION ALL SELECT session_id, pg_column_size(text) + pg_column_size(reason) + pg_column_size(chunk_ids)
				+ pg_column_size(item_ids) FROM injections
			UNION ALL SELECT session_id, pg_column_size(text) FROM notes
		) t GROUP BY session_id ORDER BY session_id`)
	if err != nil {
		return nil, wrap("footprints", err)
	}
	own, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (carryover.Footprint, error) {
		var f carryover.Footprint
		var id string
		err := r.Scan(&id, &f.Bytes)
		f.Sessions = []string{id}
		return f, err
	})
	if err != nil {
		return nil, wrap("footprints", err)
	}
	for _, f := range own {
		fp.Add(f.Bytes, f.Sessions...)
	}
	rows, err = s.pool.Query(ctx, `SELECT array_agg(x.session_id) || c.session_id, `+chunkBytes+`
		FROM chunks c JOIN chunk_shares x ON x.chunk_id = c.id AND x.owner = c.owner GROUP BY c.id ORDER BY c.id`)
	if err != nil {
		return nil, wrap("footprints: shared chunks", err)
	}
	shared, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (carryover.Footprint, error) {
		var f carryover.Footprint
		err := r.Scan(&f.Sessions, &f.Bytes)
		return f, err
	})
	if err != nil {
		return nil, wrap("footprints: shared chunks", err)
	}
	for _, f := range shared {
		fp.Add(f.Bytes, f.Sessions...)
	}
	return fp.List(), nil
}
