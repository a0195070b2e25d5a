package sqlite

import (
	"context"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/sharedchunk"
)

// chunkBytes is the stored bytes of a chunk c: its text columns and its
// vector. octet_length and length of a blob read a value's size from the
// record header, not the value.
const chunkBytes = `octet_length(c.prompt) + octet_length(c.summary) + octet_length(c.text) + octet_length(c.terms)
	+ octet_length(c.tools) + octet_length(c.files) + octet_length(c.commands) + octet_length(c.errors)
	+ octet_length(c.hash) + coalesce((SELECT length(v.vec) FROM chunk_vecs v WHERE v.id = c.id), 0)`

// Footprints returns the bytes each session's rows take, a chunk several
// sessions hold under all of them (see carryover.Footprinter).
func (s *Store) Footprints(ctx context.Context) ([]carryover.Footprint, error) {
	var fp sharedchunk.Footprints
	rows, err := s.db.QueryContext(ctx, `SELECT session_id, sum(n) FROM (
			SELECT c.session_id, `+chunkBytes+` AS n FROM chunks c
				WHERE NOT EXISTS (SELECT 1 FROM chunk_shares x WHERE x.chunk_id = c.id)
			UNION ALL SELECT session_id, octet_length(key) + octet_length(text) + octet_length(detail) FROM items
			UNION ALL SELECT session_id, octet_length(summary) FROM compactions
			UNION ALL SELECT session_id, length(data) FROM raw_blocks
			UNION ALL SELECT session_id, octet_length(text) + octet_length(reason) + octet_length(chunk_ids)
				+ octet_length(item_ids) FROM injections
			UNION ALL SELECT session_id, octet_length(text) FROM notes
		) GROUP BY session_id ORDER BY session_id`)
	if err != nil {
		return nil, wrapErr("footprints", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, wrapErr("footprints", err)
		}
		fp.Add(n, id)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("footprints", err)
	}
	rows.Close()
	shared, err := s.db.QueryContext(ctx, `SELECT c.session_id, group_concat(x.session_id, char(10)), `+chunkBytes+`
		FROM chunks c JOIN chunk_shares x ON x.chunk_id = c.id GROUP BY c.id ORDER BY c.id`)
	if err != nil {
		return nil, wrapErr("footprints: shared chunks", err)
	}
	defer shared.Close()
	for shared.Next() {
		var home, sharers string
		var n int64
		if err := shared.Scan(&home, &sharers, &n); err != nil {
			return nil, wrapErr("footprints: shared chunks", err)
		}
		fp.Add(n, append(strings.Split(sharers, "\n"), home)...)
	}
	return fp.List(), wrapErr("footprints: shared chunks", shared.Err())
}
