package postgres

import (
	"context"
	"fmt"

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
