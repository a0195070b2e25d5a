package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"

	"github.com/carryover-dev/carryover/internal/projectdir"
)

// migrateGo runs the part of a migration that SQL cannot do, in the
// migration's transaction, after its file.
func migrateGo(ctx context.Context, tx *sql.Tx, version int) error {
	switch version {
	case 9:
		return mapProjects(ctx, tx, projectdir.Root)
	case 10:
		return inferShares(ctx, tx)
	case 11:
		return mapProjects(ctx, tx, projectdir.Clean)
	}
	return nil
}

// mapProjects moves every project to its root (root(dir), which returns
// dir itself when it is the root or no longer exists) in every table that
// names a project: the projects of sessions and chunks, and the project
// text of injections, notes, hook runs and redaction counts.
//
// The projects that map to one root are merged into the one of them that
// holds the most chunks, which is then named by the root: moving a chunk
// rewrites its row, and the fewest move. A chunk stored in two of them
// (the same transcript lines, as a resumed session repeats them) is kept
// once, as Apply would have kept it in one project.
func mapProjects(ctx context.Context, tx *sql.Tx, root func(string) string) error {
	names, err := projectNames(ctx, tx)
	if err != nil {
		return err
	}
	moves := map[string]string{}
	for _, p := range names {
		if r := root(p); r != p && r != "" {
			moves[p] = r
		}
	}
	if len(moves) == 0 {
		return nil
	}
	for from, to := range moves {
		if err := moveText(ctx, tx, from, to); err != nil {
			return fmt.Errorf("move project %s to %s: %w", from, to, err)
		}
	}
	// The project rows of each root: those that map to it, and the root's
	// own row when it has one.
	groups := map[string][]string{}
	for from, to := range moves {
		groups[to] = append(groups[to], from)
	}
	resume, err := suspendChunkTriggers(ctx, tx)
	if err != nil {
		return err
	}
	for _, to := range slices.Sorted(maps.Keys(groups)) {
		froms := groups[to]
		slices.Sort(froms)
		if err := mergeProjects(ctx, tx, append(froms, to), to); err != nil {
			return fmt.Errorf("merge projects into %s: %w", to, err)
		}
	}
	return resume()
}

// projectNames lists every project a table names.
func projectNames(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT root FROM projects UNION SELECT project FROM injections
		UNION SELECT project FROM notes UNION SELECT project FROM hook_runs UNION SELECT project FROM redactions`)
	if err != nil {
		return nil, wrapErr("migrate: projects", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, wrapErr("migrate: projects", err)
		}
		out = append(out, p)
	}
	return out, wrapErr("migrate: projects", rows.Err())
}

// moveText renames a project in the tables that keep it as text.
func moveText(ctx context.Context, tx *sql.Tx, from, to string) error {
	for _, s := range []struct {
		q    string
		args []any
	}{
		{`UPDATE injections SET project = ? WHERE project = ?`, []any{to, from}},
		{`UPDATE notes SET project = ? WHERE project = ?`, []any{to, from}},
		{`UPDATE hook_runs SET project = ? WHERE project = ?`, []any{to, from}},
		{`INSERT INTO redactions (project, kind, count) SELECT ?, kind, count FROM redactions WHERE project = ?
			ON CONFLICT (project, kind) DO UPDATE SET count = count + excluded.count`, []any{to, from}},
		{`DELETE FROM redactions WHERE project = ?`, []any{from}},
	} {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			return wrapErr("update", err)
		}
	}
	return nil
}

// mergeProjects merges the project rows named roots (those that exist)
// into the one with the most chunks and names it to.
func mergeProjects(ctx context.Context, tx *sql.Tx, roots []string, to string) error {
	type project struct {
		id     int64
		chunks int
	}
	var ps []project
	for _, r := range roots {
		var p project
		err := tx.QueryRowContext(ctx, `SELECT id, (SELECT count(*) FROM chunks WHERE project_id = projects.id)
			FROM projects WHERE root = ?`, r).Scan(&p.id, &p.chunks)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return wrapErr("find", err)
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil
	}
	keep := slices.MaxFunc(ps, func(a, b project) int { return cmp.Compare(a.chunks, b.chunks) }).id
	for _, p := range ps {
		if p.id == keep {
			continue
		}
		f, t := p.id, keep
		// A chunk both hold is kept where it was stored first, as Apply
		// keeps the first; the items of the other copy follow it.
		const repoint = `UPDATE items SET chunk_id = (SELECT k.id FROM chunks d JOIN chunks k ON k.project_id = ? AND k.hash = d.hash
				WHERE d.id = items.chunk_id)
			WHERE chunk_id IN (SELECT d.id FROM chunks d JOIN chunks k ON k.project_id = ? AND k.hash = d.hash AND k.id < d.id
				WHERE d.project_id = ?)`
		const drop = `DELETE FROM chunks WHERE project_id = ? AND EXISTS (SELECT 1 FROM chunks k
			WHERE k.project_id = ? AND k.hash = chunks.hash AND k.id < chunks.id)`
		for _, s := range []struct {
			q    string
			args []any
		}{
			{repoint, []any{t, t, f}}, {drop, []any{f, t}},
			{repoint, []any{f, f, t}}, {drop, []any{t, f}},
			{`UPDATE chunks SET project_id = ? WHERE project_id = ?`, []any{t, f}},
			{`UPDATE sessions SET project_id = ? WHERE project_id = ?`, []any{t, f}},
			{`DELETE FROM projects WHERE id = ?`, []any{f}},
		} {
			if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
				return wrapErr("update", err)
			}
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE projects SET root = ? WHERE id = ?`, to, keep)
	return wrapErr("rename", err)
}

// onUpdate matches the head of a trigger that fires on updates; compiled
// on first use, as only a migration needs it.
var onUpdate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*CREATE\s+(TEMP\s+|TEMPORARY\s+)?TRIGGER\s+(IF\s+NOT\s+EXISTS\s+)?\S+\s+(BEFORE\s+|AFTER\s+|INSTEAD\s+OF\s+)?UPDATE\b`)
})

// suspendChunkTriggers drops the update triggers of chunks until the
// returned function creates them again, from their own definitions. They
// index a changed chunk's text again; moving chunks to another project
// changes no text, and re-indexing a large archive's text would take
// longer than a hook may run.
func suspendChunkTriggers(ctx context.Context, tx *sql.Tx) (func() error, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'chunks'`)
	if err != nil {
		return nil, wrapErr("migrate: triggers", err)
	}
	var names, defs []string
	for rows.Next() {
		var n, d string
		if err := rows.Scan(&n, &d); err != nil {
			rows.Close()
			return nil, wrapErr("migrate: triggers", err)
		}
		if onUpdate().MatchString(d) {
			names, defs = append(names, n), append(defs, d)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrapErr("migrate: triggers", err)
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER "`+n+`"`); err != nil {
			return nil, wrapErr("migrate: drop trigger "+n, err)
		}
	}
	return func() error {
		for i, d := range defs {
			if _, err := tx.ExecContext(ctx, d); err != nil {
				return wrapErr("migrate: create trigger "+names[i], err)
			}
		}
		return nil
	}, nil
}
