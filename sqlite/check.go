package sqlite

import (
	"context"
	"fmt"
)

// Health is what Check found.
type Health struct {
	SchemaVersion int
	Chunks        int
	Sessions      int
	Bytes         int64 // file size (pages × page size)
	// SpansDropped counts the chunks (and spans) the spans of chunk ids
	// disagreed with; when any did, they were dropped, to be built again.
	SpansDropped int
}

// Check verifies the store for doctor: the schema version, the integrity of
// the file (quick_check), that full-text search answers, that the spans of
// chunk ids hold every chunk in its project's (see repairSpans), and that
// the file can be written (a write that is rolled back).
func (s *Store) Check(ctx context.Context) (Health, error) {
	var h Health
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&h.SchemaVersion); err != nil {
		return h, wrapErr("schema version", err)
	}
	var res string
	if err := s.db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&res); err != nil {
		return h, wrapErr("quick_check", err)
	}
	if res != "ok" {
		return h, fmt.Errorf("quick_check: %s: %w", res, ErrCorrupt)
	}
	var pages, size int64
	if err := s.db.QueryRowContext(ctx, "SELECT (SELECT page_count FROM pragma_page_count), (SELECT page_size FROM pragma_page_size)").Scan(&pages, &size); err != nil {
		return h, wrapErr("size", err)
	}
	h.Bytes = pages * size
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sessions").Scan(&h.Sessions); err != nil {
		return h, wrapErr("count sessions", err)
	}
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM chunks").Scan(&h.Chunks); err != nil {
		return h, wrapErr("count chunks", err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '"carryover"'`).Scan(&n); err != nil {
		return h, wrapErr("full-text search", err)
	}
	var err error
	if h.SpansDropped, err = s.repairSpans(ctx); err != nil {
		return h, wrapErr("chunk spans", err)
	}
	tx, end, err := s.beginWrite(ctx, s.db)
	if err != nil {
		return h, wrapErr("write probe", err)
	}
	defer end()
	if _, err := tx.ExecContext(ctx, "INSERT INTO projects(root) VALUES ('carryover doctor write probe')"); err != nil {
		return h, wrapErr("write probe", err)
	}
	return h, nil
}
