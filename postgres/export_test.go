package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	cembed "github.com/carryover-dev/carryover/embedding"
)

// MigrateTo brings the schema in dsn's search_path to version and no
// further, for tests of an upgrade from an older schema.
func MigrateTo(ctx context.Context, dsn string, version int) error {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	all, err := migrations()
	if err != nil {
		return err
	}
	var ms []migration
	for _, m := range all {
		if m.version <= version {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 || ms[len(ms)-1].version != version {
		return fmt.Errorf("no migration to version %d", version)
	}
	s := &Store{pool: pool, owner: "admin", emb: cembed.DefaultHashed()}
	_, err = s.migrate(ctx, ms)
	return err
}

// PreparedStatements runs a statement on one of the store's connections
// the way the store runs its own, then counts the connection's named
// prepared statements.
func (s *Store) PreparedStatements(ctx context.Context) (int, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Release()
	var n int
	if err := c.Conn().QueryRow(ctx, `SELECT count(*) FROM sessions WHERE id <> $1`, "x").Scan(&n); err != nil {
		return 0, err
	}
	err = c.Conn().QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements`, pgx.QueryExecModeExec).Scan(&n)
	return n, err
}
