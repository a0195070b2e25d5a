package postgres

import "context"

// FullTextIndex reports whether this connection's searches can use the
// full-text (GIN) index on the chunks' tsvectors, and whether row security
// applies to its role. A role row security does not apply to (the schema's
// owner, a superuser) always can; one it applies to only when ts_match_vq,
// the function behind @@, is LEAKPROOF, which only a superuser can declare
// (docs/postgres.md): PostgreSQL evaluates a function that is not only
// after a table's policies, so such a role's every search reads every row
// it may see.
func (s *Store) FullTextIndex(ctx context.Context) (usable, rowSecurity bool, err error) {
	var leakproof bool
	err = s.pool.QueryRow(ctx, `SELECT row_security_active('chunks'), coalesce((SELECT proleakproof FROM pg_catalog.pg_proc
		WHERE oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::pg_catalog.regprocedure), false)`).Scan(&rowSecurity, &leakproof)
	if err != nil {
		return false, false, wrap("full-text index", err)
	}
	return !rowSecurity || leakproof, rowSecurity, nil
}
