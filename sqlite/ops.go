package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/carryover-dev/carryover"
)

// RecordHookRun appends a hook invocation. With Options.DeferHookRuns it
// goes to the runs journal (see runs.go); otherwise the journal's runs and
// injections are folded into the store with it.
func (s *Store) RecordHookRun(ctx context.Context, r carryover.HookRun) error {
	if s.deferRuns {
		return wrapErr("record hook run", s.appendRun(r))
	}
	tx, end, err := s.beginWrite(ctx, s.db)
	if err != nil {
		return wrapErr("record hook run", err)
	}
	defer end()
	done, err := s.foldJournal(ctx, tx)
	if err != nil {
		// The journal is read again by the next write; this run is not
		// lost for it.
		done = func() {}
	}
	if err := insertRun(ctx, tx, r); err != nil {
		return wrapErr("record hook run", err)
	}
	if err := tx.Commit(); err != nil {
		return wrapErr("record hook run", err)
	}
	done()
	return nil
}

// HookRuns lists hook invocations, newest first, the journal's included. A
// zero Limit means no limit.
func (s *Store) HookRuns(ctx context.Context, f carryover.HookRunFilter) ([]carryover.HookRun, error) {
	var w where
	if f.Project != "" {
		w.add("project = ?", f.Project)
	}
	if f.SessionID != "" {
		w.add("session_id = ?", f.SessionID)
	}
	if !f.Since.IsZero() {
		w.add("time_ms >= ?", ms(f.Since))
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, time_ms, session_id, project, event, latency_us, outcome, chars
		FROM hook_runs`+w.sql()+` ORDER BY id DESC`+limit(f.Limit), w.args...)
	if err != nil {
		return nil, wrapErr("hook runs", err)
	}
	defer rows.Close()
	var out []carryover.HookRun
	for rows.Next() {
		var r carryover.HookRun
		var t, us int64
		if err := rows.Scan(&r.ID, &t, &r.SessionID, &r.Project, &r.Event, &us, &r.Outcome, &r.Chars); err != nil {
			return nil, wrapErr("hook runs", err)
		}
		r.Time = fromMS(t)
		r.Latency = time.Duration(us) * time.Microsecond
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("hook runs", err)
	}
	journal, err := s.readJournals(ctx, journalRunLines, f.SessionID)
	if err != nil {
		return nil, wrapErr("hook runs: journal", err)
	}
	if len(journal.runs) == 0 {
		return out, nil
	}
	return mergeRuns(out, journal.runs, f), nil
}

// Redactions returns the running count of masked secrets by kind.
func (s *Store) Redactions(ctx context.Context, project string) (map[string]int, error) {
	var w where
	if project != "" {
		w.add("project = ?", project)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT kind, sum(count) FROM redactions`+w.sql()+` GROUP BY kind`, w.args...)
	if err != nil {
		return nil, wrapErr("redactions", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var kind string
		var n int
		if err := rows.Scan(&kind, &n); err != nil {
			return nil, wrapErr("redactions", err)
		}
		out[kind] = n
	}
	return out, wrapErr("redactions", rows.Err())
}

// Size is the database file's size in bytes (page count × page size; the
// WAL is not counted: it is folded back at checkpoints).
func (s *Store) Size(ctx context.Context) (int64, error) {
	var pages, size int64
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return 0, wrapErr("size", err)
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return 0, wrapErr("size", err)
	}
	return pages * size, nil
}

// Prune removes whole sessions, with their subagents, and everything that
// belongs to them, in one transaction. The full-text rows go with the chunks (delete triggers),
// vectors by cascade (foreign keys are on for every connection). A chunk
// that a session not pruned shares is handed over to it rather than
// removed (see handOver).
func (s *Store) Prune(ctx context.Context, f carryover.PruneFilter) (rep carryover.PruneReport, err error) {
	var w where
	if !f.UpdatedBefore.IsZero() {
		w.add("s.updated_ms < ?", ms(f.UpdatedBefore))
	}
	if f.Project != "" {
		w.add("p.root = ?", f.Project)
	}
	if f.SessionID != "" {
		w.add("s.id = ?", f.SessionID)
	}
	if len(w.conds) == 0 {
		return rep, errors.New("prune: no filter given")
	}
	if f.Forget && f.SessionID == "" {
		return rep, errors.New("prune: forget needs a session id")
	}
	// Deleted text must not stay readable in the file: see scrub.go.
	conn, release, err := s.secureConn(ctx)
	if err != nil {
		return rep, wrapErr("prune: connection", err)
	}
	defer release()
	tx, end, err := s.beginWrite(ctx, conn)
	if err != nil {
		return rep, wrapErr("prune: begin", err)
	}
	defer end() // a dry run, or a failure, rolls back
	// The journal's runs and injections first: those of the sessions
	// removed go with them.
	// (A journal that cannot be read now does not stop the prune.)
	folded := func() {}
	if !f.DryRun {
		if done, err := s.foldJournal(ctx, tx); err == nil {
			folded = done
		}
	}
	// The sessions selected, with their subagents.
	sel := `SELECT s.id FROM sessions s JOIN projects p ON p.id = s.project_id` + w.sql()
	rows, err := tx.QueryContext(ctx, `SELECT x.id FROM sessions x WHERE x.id IN (`+sel+`)
		OR x.parent <> '' AND x.parent IN (`+sel+`) ORDER BY x.updated_ms, x.id`, append(w.args, w.args...)...)
	if err != nil {
		return rep, wrapErr("prune: select", err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return rep, wrapErr("prune: select", err)
		}
		rep.Sessions = append(rep.Sessions, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, wrapErr("prune: select", err)
	}
	// Audit rows and notes may name a session that was never ingested.
	if f.SessionID != "" && len(rep.Sessions) == 0 && len(w.conds) == 1 {
		rep.Sessions = []string{f.SessionID}
	}
	selected, err := json.Marshal(rep.Sessions)
	if err != nil {
		return rep, fmt.Errorf("prune: %w", err)
	}
	if rep.Shared, err = handOver(ctx, tx, string(selected), f.DryRun); err != nil {
		return rep, err
	}
	if !f.DryRun {
		// What the sessions share of other sessions' chunks goes first: a
		// chunk a share row names cannot be deleted.
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunk_shares WHERE session_id IN (SELECT value FROM json_each(?))`, string(selected)); err != nil {
			return rep, wrapErr("prune: shared chunks", err)
		}
	}
	for _, id := range rep.Sessions {
		for _, t := range []struct {
			table string
			n     *int
		}{
			{"items", &rep.Items}, {"compactions", &rep.Compactions}, {"injections", &rep.Injections},
			{"notes", &rep.Notes}, {"chunks", &rep.Chunks}, {"hook_runs", nil}, {"sessions", nil},
		} {
			col := "session_id"
			if t.table == "sessions" {
				col = "id"
			}
			var n int
			if f.DryRun {
				if t.n == nil {
					continue
				}
				q, args := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s = ?", t.table, col), []any{id}
				if t.table == "chunks" {
					// Less those handOver would have handed over.
					q, args = q+` AND NOT EXISTS (SELECT 1 FROM chunk_shares x WHERE x.chunk_id = chunks.id
						AND x.session_id NOT IN (SELECT value FROM json_each(?)))`, append(args, string(selected))
				}
				if err := tx.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
					return rep, wrapErr("prune: count "+t.table, err)
				}
			} else {
				res, err := tx.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s = ?", t.table, col), id)
				if err != nil {
					return rep, wrapErr("prune: delete "+t.table, err)
				}
				k, _ := res.RowsAffected()
				n = int(k)
			}
			if t.n != nil {
				*t.n += n
			}
		}
	}
	if f.DryRun {
		return rep, nil
	}
	if f.Forget {
		if _, err := tx.ExecContext(ctx, `INSERT INTO forgotten (session_key, time_ms) VALUES (?, ?)
			ON CONFLICT (session_key) DO UPDATE SET time_ms = excluded.time_ms`, carryover.ForgottenKey(f.SessionID), ms(time.Now())); err != nil {
			return rep, wrapErr("prune: record forgotten", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM projects WHERE id NOT IN (SELECT project_id FROM sessions)
		AND id NOT IN (SELECT project_id FROM chunks)`); err != nil {
		return rep, wrapErr("prune: projects", err)
	}
	if err := tx.Commit(); err != nil {
		return rep, wrapErr("prune: commit", err)
	}
	folded()
	return rep, nil
}

// handOver gives each chunk of the sessions selected (a JSON array of
// their ids) that a session not selected shares to that session, at the
// place its share row gives it, and removes that share row: the chunk is
// then that session's own, and a prune of the selected sessions leaves
// it. Of several sharers, the one updated last takes it, as the one a
// prune by age reaches last. It returns how many chunks it handed over;
// with dryRun it only counts them.
func handOver(ctx context.Context, tx *sql.Tx, selected string, dryRun bool) (int, error) {
	const heirs = `SELECT x.chunk_id, x.session_id, x.seq, x.turn, x.win, x.first_line, x.last_line,
			row_number() OVER (PARTITION BY x.chunk_id ORDER BY s.updated_ms DESC, x.session_id) AS nth
		FROM chunk_shares x JOIN chunks c ON c.id = x.chunk_id JOIN sessions s ON s.id = x.session_id
		WHERE c.session_id IN (SELECT value FROM json_each(?1)) AND x.session_id NOT IN (SELECT value FROM json_each(?1))`
	if dryRun {
		var n int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (`+heirs+`) WHERE nth = 1`, selected).Scan(&n)
		return n, wrapErr("prune: shared chunks", err)
	}
	res, err := tx.ExecContext(ctx, `UPDATE chunks SET session_id = h.session_id, seq = h.seq, turn = h.turn, win = h.win,
			first_line = h.first_line, last_line = h.last_line
		FROM (`+heirs+`) h WHERE h.nth = 1 AND chunks.id = h.chunk_id`, selected)
	if err != nil {
		return 0, wrapErr("prune: hand shared chunks over", err)
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return int(n), wrapErr("prune: hand shared chunks over", err)
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM chunk_shares WHERE EXISTS (SELECT 1 FROM chunks c
		WHERE c.id = chunk_shares.chunk_id AND c.session_id = chunk_shares.session_id)`)
	return int(n), wrapErr("prune: hand shared chunks over", err)
}

// queryer is what forgotten needs of a connection or transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func forgotten(ctx context.Context, q queryer, sessionID string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM forgotten WHERE session_key = ?`, carryover.ForgottenKey(sessionID)).Scan(&n)
	return n > 0, err
}

// Forgotten reports whether the session is recorded as forgotten.
func (s *Store) Forgotten(ctx context.Context, sessionID string) (bool, error) {
	gone, err := forgotten(ctx, s.db, sessionID)
	return gone, wrapErr("forgotten", err)
}

// Unforget removes the session's forgotten record; ErrNotFound when there
// is none.
func (s *Store) Unforget(ctx context.Context, sessionID string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM forgotten WHERE session_key = ?`, carryover.ForgottenKey(sessionID))
	if err != nil {
		return wrapErr("unforget", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return wrapErr("unforget", err)
	} else if n == 0 {
		return fmt.Errorf("unforget %s: %w", sessionID, carryover.ErrNotFound)
	}
	return nil
}
