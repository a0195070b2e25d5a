package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Deleting a row in SQLite leaves its bytes in the page's free space, in
// free pages and in WAL frames, and FTS5 only marks deleted documents until
// it merges segments: a prune or a forget that stopped at DELETE would
// leave the text readable in the file. So deletions run on a connection
// with PRAGMA secure_delete (freed space is zeroed), and Compact erases the
// rest: it merges the full-text indexes (which drops deleted entries) and
// rebuilds the file. FTS5's own secure-delete option would clean the index
// at delete time, but it made deleting a 2,000-chunk session take minutes.

// ftsTables are the full-text indexes Compact merges.
var ftsTables = []string{"chunks_fts", "items_fts", "passages_fts"}

// ErrCheckpointBusy means another connection kept the WAL from being
// truncated: older page versions may remain in it until the next
// checkpoint.
var ErrCheckpointBusy = errors.New("the WAL is in use by another connection")

// secureConn returns a connection with secure_delete on and a function that
// restores its previous setting and returns it to the pool.
func (s *Store) secureConn(ctx context.Context) (*sql.Conn, func(), error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	var prev int
	if err := c.QueryRowContext(ctx, "PRAGMA secure_delete").Scan(&prev); err != nil {
		c.Close()
		return nil, nil, err
	}
	if _, err := c.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, func() {
		// A fresh context: the caller's may be done, and the setting must
		// not outlive this use of the connection.
		c.ExecContext(context.Background(), fmt.Sprintf("PRAGMA secure_delete = %d", prev))
		c.Close()
	}, nil
}

// Checkpoint writes the WAL back into the database file and truncates it,
// so that page versions from before a prune are gone from the disk. It
// returns an error wrapping ErrCheckpointBusy when another connection kept
// it from completing.
func (s *Store) Checkpoint(ctx context.Context) error {
	var busy, logFrames, done int
	if err := s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return wrapErr("checkpoint", err)
	}
	if busy != 0 {
		return fmt.Errorf("checkpoint: %w", ErrCheckpointBusy)
	}
	return nil
}

// Compact erases what a prune left behind and gives its space back: it
// merges each full-text index into one segment (FTS5 optimize: the page
// index of a segment keeps split terms, which may be deleted words), then
// rebuilds the file without free pages and without the older row versions
// that earlier updates left in the free space of live pages (VACUUM), and
// checkpoints. It holds the write lock while it runs (other writers wait
// up to their busy timeout) and needs free disk space about the size of
// the store.
func (s *Store) Compact(ctx context.Context) error {
	for _, t := range ftsTables {
		if _, err := s.db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES ('optimize')", t, t)); err != nil {
			return wrapErr("compact: optimize "+t, err)
		}
	}
	if _, err := s.db.ExecContext(ctx, "VACUUM"); err != nil {
		return wrapErr("compact: vacuum", err)
	}
	return s.Checkpoint(ctx)
}

// FreeBytes is the size of the free pages in the file: space a prune freed
// that the store reuses before it grows, and that Vacuum gives back.
func (s *Store) FreeBytes(ctx context.Context) (int64, error) {
	var pages, size int64
	if err := s.db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&pages); err != nil {
		return 0, wrapErr("free pages", err)
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return 0, wrapErr("free pages", err)
	}
	return pages * size, nil
}
