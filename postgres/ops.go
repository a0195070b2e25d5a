package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
)

// RecordHookRun appends a hook invocation.
func (s *Store) RecordHookRun(ctx context.Context, r carryover.HookRun) error {
	return s.writeAudit(ctx, &r)
}

// writeAudit writes the injections held (HoldAudit) and the run
// r, when not nil, in one batch (one round trip). Held rows not written
// stay held for the next try.
func (s *Store) writeAudit(ctx context.Context, r *carryover.HookRun) error {
	s.heldMu.Lock()
	held := s.held
	s.held = nil
	s.heldMu.Unlock()
	if len(held) == 0 && r == nil {
		return nil
	}
	batch := &pgx.Batch{}
	for _, in := range held {
		batch.Queue(insertInjection, s.injectionArgs(in)...)
	}
	if r != nil {
		batch.Queue(`INSERT INTO hook_runs
			(owner, team, project, time, session_id, event, latency_us, outcome, chars) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			s.owner, s.team, r.Project, ts(r.Time), r.SessionID, r.Event, r.Latency.Microseconds(), r.Outcome, r.Chars)
	}
	err := s.pool.SendBatch(ctx, batch).Close()
	if err != nil && len(held) > 0 {
		s.heldMu.Lock()
		s.held = append(held, s.held...)
		s.heldMu.Unlock()
	}
	if r == nil {
		return wrap("record injection", err)
	}
	return wrap("record hook run", err)
}

// HookRuns lists hook invocations, newest first. A zero Limit means no
// limit.
func (s *Store) HookRuns(ctx context.Context, f carryover.HookRunFilter) ([]carryover.HookRun, error) {
	var w where
	if f.Project != "" {
		w.add("project = ?", f.Project)
	}
	if f.SessionID != "" {
		w.add("session_id = ?", f.SessionID)
		s.ofSession(&w, "owner", f.SessionID)
	}
	if !f.Since.IsZero() {
		w.add("time >= ?", f.Since)
	}
	rows, err := s.pool.Query(ctx, `SELECT id, time, session_id, project, event, latency_us, outcome, chars
		FROM hook_runs`+w.sql()+` ORDER BY id DESC`+limit(f.Limit), w.args...)
	if err != nil {
		return nil, wrap("hook runs", err)
	}
	return collect(rows, "hook runs", func(r pgx.Rows) (carryover.HookRun, error) {
		var h carryover.HookRun
		var t *time.Time
		var us int64
		err := r.Scan(&h.ID, &t, &h.SessionID, &h.Project, &h.Event, &us, &h.Outcome, &h.Chars)
		h.Time, h.Latency = fromTS(t), time.Duration(us)*time.Microsecond
		return h, err
	})
}

// Redactions returns the running count of masked secrets by kind, over
// the rows this role can read.
func (s *Store) Redactions(ctx context.Context, project string) (map[string]int, error) {
	var w where
	if project != "" {
		w.add("project = ?", project)
	}
	rows, err := s.pool.Query(ctx, `SELECT kind, sum(count)::bigint FROM redactions`+w.sql()+` GROUP BY kind`, w.args...)
	if err != nil {
		return nil, wrap("redactions", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var kind string
		var n int64
		if err := rows.Scan(&kind, &n); err != nil {
			return nil, wrap("redactions", err)
		}
		out[kind] = int(n)
	}
	return out, wrap("redactions", rows.Err())
}

// Size is the size of the schema's tables with their indexes and TOAST,
// every owner's rows included.
func (s *Store) Size(ctx context.Context) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c WHERE c.relkind IN ('r', 'p', 'm') AND c.relnamespace = current_schema()::regnamespace`).Scan(&n)
	return n, wrap("size", err)
}

// Prune removes whole sessions, with their subagents, and everything that
// belongs to them, in one transaction. Only sessions this role owns are selected (row security
// would leave a teammate's rows in place anyway).
func (s *Store) Prune(ctx context.Context, f carryover.PruneFilter) (rep carryover.PruneReport, err error) {
	var w where
	if !f.UpdatedBefore.IsZero() {
		w.add("coalesce(updated, '-infinity') < ?", f.UpdatedBefore)
	}
	if f.Project != "" {
		w.add("project = ?", f.Project)
	}
	if f.SessionID != "" {
		w.add("id = ?", f.SessionID)
	}
	if len(w.conds) == 0 {
		return rep, errors.New("prune: no filter given")
	}
	if f.Forget && f.SessionID == "" {
		return rep, errors.New("prune: forget needs a session id")
	}
	filters := len(w.conds)
	w.add("owner = ?", s.owner)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return rep, wrap("prune: begin", err)
	}
	defer func() {
		if err != nil || f.DryRun {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	placeholder := false
	if f.Forget && !f.DryRun {
		if placeholder, err = s.lockSession(ctx, tx, f.SessionID); err != nil {
			return rep, err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO forgotten (owner, team, session_key, time) VALUES ($1, $2, $3, $4)
			ON CONFLICT (owner, session_key) DO UPDATE SET time = excluded.time`, s.owner, s.team, carryover.ForgottenKey(f.SessionID), time.Now()); err != nil {
			return rep, wrap("prune: record forgotten", err)
		}
	}
	rows, err := tx.Query(ctx, `SELECT id FROM sessions`+w.sql()+` ORDER BY updated NULLS FIRST, id FOR UPDATE`, w.args...)
	if err != nil {
		return rep, wrap("prune: select", err)
	}
	if rep.Sessions, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return rep, wrap("prune: select", err)
	}
	// The lock's placeholder is no session; it goes just before the commit.
	commit := func() error {
		if placeholder {
			if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE id = $1 AND owner = $2`, f.SessionID, s.owner); err != nil {
				return wrap("prune: unlock", err)
			}
		}
		return wrap("prune: commit", tx.Commit(ctx))
	}
	if placeholder {
		rep.Sessions = slices.DeleteFunc(rep.Sessions, func(id string) bool { return id == f.SessionID })
	}
	// The sessions go with their subagents.
	if len(rep.Sessions) > 0 {
		rows, err := tx.Query(ctx, `SELECT id FROM sessions WHERE owner = $1 AND parent <> '' AND parent = ANY ($2)
			AND NOT id = ANY ($2) ORDER BY updated NULLS FIRST, id FOR UPDATE`, s.owner, rep.Sessions)
		if err != nil {
			return rep, wrap("prune: subagents", err)
		}
		subs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return rep, wrap("prune: subagents", err)
		}
		rep.Sessions = append(rep.Sessions, subs...)
	}
	// Audit rows and notes may name a session that was never ingested.
	if f.SessionID != "" && len(rep.Sessions) == 0 && filters == 1 {
		rep.Sessions = []string{f.SessionID}
	}
	if len(rep.Sessions) == 0 {
		return rep, commit()
	}
	if rep.Shared, err = s.handOver(ctx, tx, rep.Sessions, f.DryRun); err != nil {
		return rep, err
	}
	if !f.DryRun {
		// What the sessions share of other sessions' chunks goes first: a
		// chunk a share row names cannot be deleted. A share another Apply
		// commits meanwhile makes the chunks' delete fail, not lose it.
		if _, err := tx.Exec(ctx, `DELETE FROM chunk_shares WHERE owner = $1 AND session_id = ANY ($2)`, s.owner, rep.Sessions); err != nil {
			return rep, wrap("prune: shared chunks", err)
		}
	}
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
		var n int64
		if f.DryRun {
			if t.n == nil {
				continue
			}
			q := `SELECT count(*) FROM ` + t.table + ` WHERE owner = $1 AND ` + col + ` = ANY ($2)`
			if t.table == "chunks" {
				// Less those handOver would have handed over.
				q += ` AND NOT EXISTS (SELECT 1 FROM chunk_shares x WHERE x.chunk_id = chunks.id AND x.owner = $1
					AND NOT x.session_id = ANY ($2))`
			}
			err = tx.QueryRow(ctx, q, s.owner, rep.Sessions).Scan(&n)
		} else {
			var tag interface{ RowsAffected() int64 }
			tag, err = tx.Exec(ctx, `DELETE FROM `+t.table+` WHERE owner = $1 AND `+col+` = ANY ($2)`, s.owner, rep.Sessions)
			if err == nil {
				n = tag.RowsAffected()
			}
		}
		if err != nil {
			return rep, wrap("prune: "+t.table, err)
		}
		if t.n != nil {
			*t.n += int(n)
		}
	}
	if f.DryRun {
		return rep, nil
	}
	return rep, commit()
}

// handOver gives each chunk of the owner's sessions selected that another
// session of the owner, not selected, shares to that session, at the
// place its share row gives it and with its team, and removes that share
// row: the chunk is then that session's own, and the prune leaves it. Of
// several sharers, the one updated last takes it, as the one a prune by
// age reaches last. Share rows are their chunk's owner's only (row
// security), so no other role's session can hold a chunk back, or lose
// one. It returns how many chunks it handed over; with dryRun it only
// counts them.
func (s *Store) handOver(ctx context.Context, tx pgx.Tx, selected []string, dryRun bool) (int, error) {
	const heirs = `SELECT DISTINCT ON (x.chunk_id) x.chunk_id, x.session_id, x.seq, x.turn, x.win, x.first_line, x.last_line,
			h.team, c.fts_len
		FROM chunk_shares x JOIN chunks c ON c.id = x.chunk_id AND c.owner = x.owner
		JOIN sessions h ON h.id = x.session_id AND h.owner = x.owner
		WHERE x.owner = $1 AND c.session_id = ANY ($2) AND NOT x.session_id = ANY ($2)
		ORDER BY x.chunk_id, h.updated DESC NULLS LAST, x.session_id`
	if dryRun {
		var n int
		err := tx.QueryRow(ctx, `SELECT count(*) FROM (`+heirs+`) h`, s.owner, selected).Scan(&n)
		return n, wrap("prune: shared chunks", err)
	}
	// The heirs' index statistics take the chunks in (see countIndexed);
	// the pruned sessions' go with them. A team the owner may no longer
	// share with is dropped, as Apply drops it.
	rows, err := tx.Query(ctx, `WITH h AS (`+heirs+`), moved AS (
			UPDATE chunks c SET session_id = h.session_id, seq = h.seq, turn = h.turn, win = h.win,
				first_line = h.first_line, last_line = h.last_line,
				team = CASE WHEN h.team = '' OR NOT row_security_active('chunks') OR h.team = ANY (carryover_teams())
					THEN h.team ELSE '' END
			FROM h WHERE c.id = h.chunk_id RETURNING c.id, c.session_id, h.fts_len),
		unshared AS (DELETE FROM chunk_shares x USING moved m WHERE x.chunk_id = m.id AND x.session_id = m.session_id AND x.owner = $1)
		SELECT session_id, count(*), coalesce(sum(fts_len), 0)::bigint, count(fts_len) FROM moved GROUP BY session_id ORDER BY session_id`,
		s.owner, selected)
	if err != nil {
		return 0, wrap("prune: hand shared chunks over", err)
	}
	type heir struct {
		session                 string
		chunks, tokens, indexed int64
	}
	taken, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (heir, error) {
		var h heir
		err := r.Scan(&h.session, &h.chunks, &h.tokens, &h.indexed)
		return h, err
	})
	if err != nil {
		return 0, wrap("prune: hand shared chunks over", err)
	}
	n := 0
	for _, h := range taken {
		n += int(h.chunks)
		if err := countIndexed(ctx, tx, h.session, s.owner, int(h.indexed), int(h.tokens)); err != nil {
			return n, err
		}
	}
	return n, nil
}

// lockSession locks the key of the owner's session id until the end of
// tx: the session's row when there is one, else a placeholder row it
// inserts (and reports, for the caller to delete). An Apply of the session
// writes that row first, so the two wait for each other whether or not
// the session exists (an advisory lock would do, but any role may take
// any advisory lock and hold an owner's Apply up).
func (s *Store) lockSession(ctx context.Context, tx pgx.Tx, id string) (placeholder bool, err error) {
	// Waits for an Apply that is inserting the row, then does nothing.
	tag, err := tx.Exec(ctx, `INSERT INTO sessions (id, owner, project) VALUES ($1, $2, '') ON CONFLICT (id, owner) DO NOTHING`, id, s.owner)
	if err != nil {
		return false, wrap("prune: lock", err)
	}
	if tag.RowsAffected() == 1 {
		return true, nil
	}
	// The row exists: wait for an Apply that holds it.
	if _, err := tx.Exec(ctx, `SELECT 1 FROM sessions WHERE id = $1 AND owner = $2 FOR UPDATE`, id, s.owner); err != nil {
		return false, wrap("prune: lock", err)
	}
	return false, nil
}

// querier is what forgotten needs of a pool or transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func forgotten(ctx context.Context, q querier, owner, sessionID string) (bool, error) {
	var gone bool
	err := q.QueryRow(ctx, forgottenQuery, owner, carryover.ForgottenKey(sessionID)).Scan(&gone)
	return gone, err
}

// forgottenQuery asks whether owner $1 forgot the session of key $2.
const forgottenQuery = `SELECT EXISTS (SELECT 1 FROM forgotten WHERE owner = $1 AND session_key = $2)`

// Forgotten reports whether the store's owner forgot the session.
func (s *Store) Forgotten(ctx context.Context, sessionID string) (bool, error) {
	// The open read it (Options.Session): the first ask takes that answer.
	s.goneMu.Lock()
	read := s.gone
	if read != nil && read.id == sessionID {
		s.gone = nil
	}
	s.goneMu.Unlock()
	if read != nil && read.id == sessionID {
		return read.gone, nil
	}
	gone, err := forgotten(ctx, s.pool, s.owner, sessionID)
	return gone, wrap("forgotten", err)
}

// Unforget removes the owner's forgotten record of the session;
// ErrNotFound when there is none.
func (s *Store) Unforget(ctx context.Context, sessionID string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM forgotten WHERE owner = $1 AND session_key = $2`, s.owner, carryover.ForgottenKey(sessionID))
	if err != nil {
		return wrap("unforget", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("unforget %s: %w", sessionID, carryover.ErrNotFound)
	}
	return nil
}
