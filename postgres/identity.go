package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover/internal/projectdir"
)

// migrateGo runs the part of a migration that SQL cannot do, in the
// migration's transaction, after its file.
func migrateGo(ctx context.Context, tx pgx.Tx, version int) error {
	switch version {
	case 7:
		return mapProjects(ctx, tx, projectdir.Root)
	case 8:
		return inferShares(ctx, tx)
	case 9:
		return mapProjects(ctx, tx, projectdir.Clean)
	}
	return nil
}

// projectTables are the tables that carry a project.
var projectTables = []string{"sessions", "chunks", "items", "compactions", "injections", "notes", "hook_runs", "redactions"}

// mapProjects moves every project to its root (root(dir), which returns
// dir itself when it is the root or does not exist on this machine) in
// every table. Two projects that map to one root are merged: a chunk an
// owner stored in both (the same transcript lines, as a resumed session
// repeats them) is kept once, and redaction counts are added up.
func mapProjects(ctx context.Context, tx pgx.Tx, root func(string) string) error {
	q := ""
	for i, t := range projectTables {
		if i > 0 {
			q += " UNION "
		}
		q += "SELECT project FROM " + t
	}
	rows, err := tx.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("migrate: projects: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("migrate: projects: %w", err)
	}
	for _, from := range names {
		to := root(from)
		if to == from || to == "" {
			continue
		}
		if err := moveProject(ctx, tx, from, to); err != nil {
			return fmt.Errorf("migrate: move project %s to %s: %w", from, to, err)
		}
	}
	return nil
}

func moveProject(ctx context.Context, tx pgx.Tx, from, to string) error {
	both, back := []any{from, to}, []any{to, from}
	// A chunk the owner holds in both projects is kept where it was
	// stored first, as Apply keeps the first; the items of the other copy
	// follow it.
	const repoint = `UPDATE items i SET chunk_id = k.id FROM chunks d, chunks k
			WHERE i.chunk_id = d.id AND d.project = $1 AND k.owner = d.owner AND k.project = $2 AND k.hash = d.hash AND k.id < d.id`
	const drop = `DELETE FROM chunks d USING chunks k
			WHERE d.project = $1 AND k.owner = d.owner AND k.project = $2 AND k.hash = d.hash AND k.id < d.id`
	steps := []struct {
		sql  string
		args []any
	}{
		{repoint, both}, {drop, both}, {repoint, back}, {drop, back},
		{`INSERT INTO redactions (owner, team, project, kind, count) SELECT owner, team, $2, kind, count FROM redactions WHERE project = $1
			ON CONFLICT (owner, project, kind) DO UPDATE SET count = redactions.count + excluded.count`, both},
		{`DELETE FROM redactions WHERE project = $1`, []any{from}},
	}
	for _, t := range projectTables {
		if t != "redactions" {
			steps = append(steps, struct {
				sql  string
				args []any
			}{`UPDATE ` + t + ` SET project = $2 WHERE project = $1`, both})
		}
	}
	for _, s := range steps {
		if _, err := tx.Exec(ctx, s.sql, s.args...); err != nil {
			return err
		}
	}
	return nil
}
