package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
)

// sessionCols are the columns scanSession reads; sessionColsNoCounts
// the same with zeros for the counts (SessionFilter.NoCounts).
const (
	sessionBase = `s.id, s.project, s.transcript_path, s.version, s.title, s.started, s.updated,
	s.windows, s.turns, s.owner, s.team, s.parent, s.cwd, s.branch`
	sessionCols = sessionBase + `,
	(SELECT count(*) FROM chunks WHERE session_id = s.id AND owner = s.owner),
	(SELECT count(*) FROM chunk_shares WHERE session_id = s.id AND owner = s.owner),
	(SELECT count(*) FROM sessions c WHERE c.parent = s.id AND c.owner = s.owner AND c.parent <> '')`
	sessionColsNoCounts = sessionBase + `, 0, 0, 0`
)

func scanSession(sc pgx.Row) (carryover.Session, error) {
	var ss carryover.Session
	var started, updated *time.Time
	err := sc.Scan(&ss.ID, &ss.Project, &ss.TranscriptPath, &ss.Version, &ss.Title, &started, &updated,
		&ss.Windows, &ss.Turns, &ss.Owner, &ss.Team, &ss.Parent, &ss.Cwd, &ss.Branch, &ss.Chunks, &ss.Shared, &ss.Subagents)
	ss.Chunks += ss.Shared // own and shared
	ss.Started, ss.Updated = fromTS(started), fromTS(updated)
	return ss, err
}

// Session returns one session with its chunk count, or an error wrapping
// carryover.ErrNotFound (also when it is not visible to this role). Each
// role has sessions of its own: the owner's session of that id comes
// first, else one a team shares.
func (s *Store) Session(ctx context.Context, id string) (carryover.Session, error) {
	ss, err := scanSession(s.pool.QueryRow(ctx, `SELECT `+sessionCols+` FROM sessions s WHERE s.id = $1
		ORDER BY s.owner = $2 DESC, s.owner LIMIT 1`, id, s.owner))
	if errors.Is(err, pgx.ErrNoRows) {
		return carryover.Session{}, fmt.Errorf("session %s: %w", id, carryover.ErrNotFound)
	}
	if err != nil {
		return carryover.Session{}, wrap("session "+id, err)
	}
	return ss, nil
}

// Sessions lists sessions, most recently updated first. A zero Limit means
// no limit. Another role's session with the id of one of the owner's is
// left out (see Session).
func (s *Store) Sessions(ctx context.Context, f carryover.SessionFilter) ([]carryover.Session, error) {
	q, args := s.sessionsQuery(f)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, wrap("sessions", err)
	}
	return collect(rows, "sessions", sessionRow)
}

// sessionsQuery is Sessions' query and its parameters.
func (s *Store) sessionsQuery(f carryover.SessionFilter) (string, []any) {
	cols := sessionCols
	if f.NoCounts {
		cols = sessionColsNoCounts
	}
	var w where
	w.add("(s.owner = ? OR NOT EXISTS (SELECT 1 FROM sessions o WHERE o.id = s.id AND o.owner = ?))", s.owner, s.owner)
	if f.Project != "" {
		w.add("s.project = ?", f.Project)
	}
	if f.Parent != "" {
		// A subagent is its parent's only when both have one owner: the
		// parent as Session picks it. Another role's session naming a
		// parent is no subagent of the reader's session of that id.
		w.add("s.parent = ?", f.Parent)
		s.ofSession(&w, "s.owner", f.Parent)
	}
	if f.TopLevel {
		w.add("s.parent = ''")
	}
	if f.IDPrefix != "" {
		w.add("starts_with(s.id, ?)", f.IDPrefix)
	}
	return `SELECT ` + cols + ` FROM sessions s` + w.sql() + `
		ORDER BY s.updated DESC NULLS LAST, s.id` + limit(f.Limit), w.args
}

// SessionAndInjections reads the session without its counts and its latest
// lim audit records in one round trip (carryover.SessionAndInjections).
func (s *Store) SessionAndInjections(ctx context.Context, sessionID string, lim int) (carryover.Session, []carryover.Injection, error) {
	if sessionID == "" {
		return carryover.Session{}, nil, fmt.Errorf("session: empty id: %w", carryover.ErrNotFound)
	}
	var ss []carryover.Session
	var prev []carryover.Injection
	batch := &pgx.Batch{}
	q, args := s.sessionsQuery(carryover.SessionWithoutCountsFilter(sessionID))
	queueCollect(batch, q, args, "sessions", sessionRow, &ss)
	q, args = s.injectionsQuery(sessionID, lim)
	queueCollect(batch, q, args, "injections", scanInjection, &prev)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return carryover.Session{}, nil, wrap("session and injections", err)
	}
	sess, err := carryover.PickSession(ss, sessionID)
	return sess, prev, err
}

const chunkCols = `c.id, c.session_id, c.project, c.seq, c.turn, c.win, c.first_line, c.last_line, c.start_at, c.end_at,
	c.prompt, c.summary, c.text, c.tools, c.files, c.commands, c.errors, c.sidechain, c.agent_id, c.hash`

func scanChunk(sc pgx.Row, extra ...any) (carryover.Chunk, error) {
	var c carryover.Chunk
	var start, end *time.Time
	dest := append([]any{&c.ID, &c.SessionID, &c.Project, &c.Seq, &c.Turn, &c.Window, &c.FirstLine, &c.LastLine,
		&start, &end, &c.Prompt, &c.Summary, &c.Text, &c.Tools, &c.Files, &c.Commands, &c.Errors, &c.Sidechain, &c.AgentID, &c.Hash},
		extra...)
	if err := sc.Scan(dest...); err != nil {
		return c, err
	}
	c.Start, c.End = fromTS(start), fromTS(end)
	for _, l := range []*[]string{&c.Tools, &c.Files, &c.Commands, &c.Errors} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	return c, nil
}

// sharedChunkCols are chunkCols for a chunk a session shares (chunk_shares
// x): placed by the share row.
const sharedChunkCols = `c.id, x.session_id, c.project, x.seq, x.turn, x.win, x.first_line, x.last_line, c.start_at, c.end_at,
	c.prompt, c.summary, c.text, c.tools, c.files, c.commands, c.errors, c.sidechain, c.agent_id, c.hash`

// Chunks lists chunks in sequence order. Turn -1 selects every turn (0 is
// the first turn); a zero Limit means no limit. The chunks of a session
// include those it shares with the session of its owner that stored them
// first (see Apply), with this session's id, sequence number, turn,
// window and lines: the filters apply to those.
func (s *Store) Chunks(ctx context.Context, f carryover.ChunkFilter) ([]carryover.Chunk, error) {
	q, args := s.chunksQuery(f)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, wrap("chunks", err)
	}
	return collect(rows, "chunks", chunkRow)
}

// ChunksAt returns, by ref, the first chunk that holds the ref's line
// (carryover.ChunkAt), in one round trip (carryover.LinesReader).
func (s *Store) ChunksAt(ctx context.Context, refs []carryover.LineRef) ([][]carryover.Chunk, error) {
	return byLine(ctx, s, refs, "chunks", func(r carryover.LineRef) (string, []any) {
		return s.chunksQuery(carryover.ChunkAt(r))
	}, func(rows pgx.Rows, _ carryover.LineRef) ([]carryover.Chunk, error) {
		return collect(rows, "chunks", chunkRow)
	})
}

// chunksQuery is Chunks' query and its parameters.
func (s *Store) chunksQuery(f carryover.ChunkFilter) (string, []any) {
	// Each part's conditions on the row that places the chunk (alias pos).
	conds := func(w *where, pos string) {
		if f.SessionID != "" {
			w.add(pos+".session_id = ?", f.SessionID)
			s.ofSession(w, pos+".owner", f.SessionID)
		}
		if f.Turn >= 0 {
			w.add(pos+".turn = ?", f.Turn)
		}
		if f.BeforeWindow > 0 {
			w.add(pos+".win < ?", f.BeforeWindow)
		}
		if f.FromSeq > 0 {
			w.add(pos+".seq >= ?", f.FromSeq)
		}
		if f.FromLine > 0 {
			w.add(pos+".last_line >= ?", f.FromLine)
		}
		if f.ToLine > 0 {
			w.add(pos+".first_line <= ?", f.ToLine)
		}
		if len(f.IDs) > 0 {
			w.add("c.id = ANY (?)", f.IDs)
		}
	}
	order := " ORDER BY session_id, seq"
	if f.Newest {
		order = " ORDER BY session_id, seq DESC"
	}
	var own where
	conds(&own, "c")
	q := `SELECT ` + chunkCols + ` FROM chunks c` + own.sql()
	args := own.args
	if f.SessionID != "" {
		// Numbered after the first part's.
		shared := where{args: own.args}
		conds(&shared, "x")
		q = `SELECT * FROM (` + q + ` UNION ALL SELECT ` + sharedChunkCols + ` FROM chunk_shares x
			JOIN chunks c ON c.id = x.chunk_id` + shared.sql() + `) u`
		args = shared.args
	}
	return q + order + limit(f.Limit), args
}

const itemCols = `i.id, i.session_id, i.chunk_seq, coalesce(i.chunk_id, 0), i.kind, i.text, i.detail, i.key,
	i.turn, i.win, i.line, i.time, i.weight, i.resolved, i.count`

func scanItem(sc pgx.Row) (carryover.Item, error) {
	var it carryover.Item
	var t *time.Time
	err := sc.Scan(&it.ID, &it.SessionID, &it.ChunkSeq, &it.ChunkID, &it.Kind, &it.Text, &it.Detail, &it.Key,
		&it.Turn, &it.Window, &it.Line, &t, &it.Weight, &it.Resolved, &it.Count)
	it.Time = fromTS(t)
	return it, err
}

// Items lists items, newest line first (newest time first across
// sessions). A zero Limit means no limit.
func (s *Store) Items(ctx context.Context, f carryover.ItemFilter) ([]carryover.Item, error) {
	w, order := s.itemQuery(f)
	rows, err := s.pool.Query(ctx, `SELECT `+itemCols+` FROM items i`+w.sql()+" ORDER BY "+order+limit(f.Limit), w.args...)
	if err != nil {
		return nil, wrap("items", err)
	}
	return collect(rows, "items", func(r pgx.Rows) (carryover.Item, error) { return scanItem(r) })
}

// itemQuery is the conditions and the order (without ORDER BY) of the
// items f selects, but its Limit.
func (s *Store) itemQuery(f carryover.ItemFilter) (where, string) {
	var w where
	if f.SessionID != "" {
		w.add("i.session_id = ?", f.SessionID)
		s.ofSession(&w, "i.owner", f.SessionID)
	}
	if f.Project != "" {
		w.add("i.project = ?", f.Project)
	}
	if len(f.Kinds) > 0 {
		kinds := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			kinds[i] = string(k)
		}
		w.add("i.kind = ANY (?)", kinds)
	}
	if f.BeforeWindow > 0 {
		w.add("i.win < ?", f.BeforeWindow)
	}
	if f.FromWindow > 0 {
		w.add("i.win >= ?", f.FromWindow)
	}
	if len(f.ChunkSeqs) > 0 {
		w.add("i.chunk_seq = ANY (?)", f.ChunkSeqs)
	}
	if f.SessionID == "" {
		return w, "i.time DESC NULLS LAST, i.line DESC, i.id DESC"
	}
	return w, "i.line DESC, i.id DESC"
}

var _ carryover.ItemGrouper = (*Store)(nil)

// ItemGroups reads the groups in one statement, each row numbered within
// its group newest first and kept up to the group's limit: the restore
// reads ten groups, and a round trip each is what a hook cannot afford
// from a server across a network.
func (s *Store) ItemGroups(ctx context.Context, f carryover.ItemFilter, groups []carryover.ItemGroup) ([][]carryover.Item, error) {
	q, args, err := s.itemGroupsQuery(f, groups)
	if err != nil {
		return nil, err
	}
	if q == "" {
		return make([][]carryover.Item, len(groups)), nil
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, wrap("items", err)
	}
	return scanItemGroups(rows, len(groups))
}

// itemGroupsQuery is ItemGroups' query and its parameters; "" when the
// groups name no kind.
func (s *Store) itemGroupsQuery(f carryover.ItemFilter, groups []carryover.ItemGroup) (string, []any, error) {
	seen := map[carryover.ItemKind]bool{}
	var kinds, lastOnly []string
	var group, limits []int // group: each kind's; limits: each group's, 0 for none
	for g, gr := range groups {
		for _, k := range gr.Kinds {
			if seen[k] {
				return "", nil, fmt.Errorf("items: kind %q in two groups", k)
			}
			seen[k] = true
			kinds, group = append(kinds, string(k)), append(group, g+1) // arrays count from 1
			if gr.LastWindow {
				lastOnly = append(lastOnly, string(k))
			}
		}
		limits = append(limits, max(gr.Limit, 0))
	}
	if len(kinds) == 0 {
		return "", nil, nil
	}
	f.Kinds, f.Limit = nil, 0
	w, order := s.itemQuery(f)
	w.add("i.kind = ANY (?)", kinds)
	if len(lastOnly) > 0 && f.BeforeWindow > 1 {
		w.add("(i.win >= ? OR NOT i.kind = ANY (?))", f.BeforeWindow-1, lastOnly)
	}
	args := append(w.args, kinds, group, limits)
	n := len(args)
	grp := fmt.Sprintf("($%d::int[])[array_position($%d::text[], i.kind)]", n-1, n-2)
	return `SELECT ` + itemCols + `, i.g FROM (
		SELECT i.*, ` + grp + ` AS g, row_number() OVER (PARTITION BY ` + grp + ` ORDER BY ` + order + `) AS rn
		FROM items i` + w.sql() + `) i
		WHERE ($` + fmt.Sprint(n) + `::int[])[i.g] = 0 OR i.rn <= ($` + fmt.Sprint(n) + `::int[])[i.g]
		ORDER BY ` + order, args, nil
}

// scanItemGroups sorts the rows of itemGroupsQuery into their groups,
// closing rows.
func scanItemGroups(rows pgx.Rows, groups int) ([][]carryover.Item, error) {
	defer rows.Close()
	out := make([][]carryover.Item, groups)
	for rows.Next() {
		var it carryover.Item
		var t *time.Time
		var g int
		if err := rows.Scan(&it.ID, &it.SessionID, &it.ChunkSeq, &it.ChunkID, &it.Kind, &it.Text, &it.Detail, &it.Key,
			&it.Turn, &it.Window, &it.Line, &t, &it.Weight, &it.Resolved, &it.Count, &g); err != nil {
			return nil, wrap("items", err)
		}
		if g < 1 || g > groups {
			return nil, fmt.Errorf("items: group %d of %d", g, groups)
		}
		it.Time = fromTS(t)
		out[g-1] = append(out[g-1], it)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("items", err)
	}
	return out, nil
}

// ReadRestore reads the item groups, the notes and the recent chunks a
// restore reads in one round trip (carryover.RestoreReader).
func (s *Store) ReadRestore(ctx context.Context, r carryover.RestoreReads) (carryover.RestoreRead, error) {
	out := carryover.RestoreRead{Groups: make([][]carryover.Item, len(r.Groups))}
	batch := &pgx.Batch{}
	q, args, err := s.itemGroupsQuery(r.Items, r.Groups)
	if err != nil {
		return out, err
	}
	if q != "" {
		batch.Queue(q, args...).Query(func(rows pgx.Rows) error {
			var err error
			out.Groups, err = scanItemGroups(rows, len(r.Groups))
			return err
		})
	}
	q, args = s.notesQuery("", r.SessionID)
	queueCollect(batch, q, args, "notes", scanNote, &out.SessionNotes)
	if r.Project != "" {
		q, args = s.notesQuery(r.Project, "")
		queueCollect(batch, q, args, "notes", scanNote, &out.ProjectNotes)
	}
	q, args = s.chunksQuery(r.Recent)
	queueCollect(batch, q, args, "chunks", chunkRow, &out.Recent)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return out, wrap("restore reads", err)
	}
	return out, nil
}

// Compactions lists a session's compactions in window order.
func (s *Store) Compactions(ctx context.Context, sessionID string) ([]carryover.Compaction, error) {
	var w where
	w.add("session_id = ?", sessionID)
	s.ofSession(&w, "owner", sessionID)
	rows, err := s.pool.Query(ctx, `SELECT session_id, win, trigger_type, pre_tokens, post_tokens, line, time, summary
		FROM compactions`+w.sql()+` ORDER BY win`, w.args...)
	if err != nil {
		return nil, wrap("compactions", err)
	}
	return collect(rows, "compactions", func(r pgx.Rows) (carryover.Compaction, error) {
		var c carryover.Compaction
		var t *time.Time
		err := r.Scan(&c.SessionID, &c.Window, &c.Trigger, &c.PreTokens, &c.PostTokens, &c.Line, &t, &c.Summary)
		c.Time = fromTS(t)
		return c, err
	})
}

// RecordInjection appends to the audit log and returns the record's id. A
// zero Time is set to now; the text is cut to carryover.InjectionTextCap.
func (s *Store) RecordInjection(ctx context.Context, in carryover.Injection) (int64, error) {
	if in.Time.IsZero() {
		in.Time = time.Now()
	}
	if s.deferAudit.Load() {
		s.heldMu.Lock()
		s.held = append(s.held, in)
		s.heldMu.Unlock()
		return 0, nil
	}
	var id int64
	err := s.pool.QueryRow(ctx, insertInjection+` RETURNING id`, s.injectionArgs(in)...).Scan(&id)
	return id, wrap("record injection", err)
}

const insertInjection = `INSERT INTO injections
	(owner, team, project, time, session_id, event, win, chars, tokens, chunk_ids, item_ids, hash, latency_us, text, reason)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`

// injectionArgs are insertInjection's parameters.
func (s *Store) injectionArgs(in carryover.Injection) []any {
	return []any{s.owner, s.team, in.Project, in.Time, in.SessionID, in.Event, in.Window, in.Chars, in.Tokens,
		orEmpty(in.ChunkIDs), orEmpty(in.ItemIDs), in.Hash, in.Latency.Microseconds(),
		carryover.ClipInjectionText(clean(in.Text)), clean(in.Reason)}
}

// Injections lists audit records of a session (of all sessions when
// sessionID is ""), newest first. A zero limit means no limit.
func (s *Store) Injections(ctx context.Context, sessionID string, lim int) ([]carryover.Injection, error) {
	q, args := s.injectionsQuery(sessionID, lim)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, wrap("injections", err)
	}
	return collect(rows, "injections", scanInjection)
}

// injectionsQuery is Injections' query and its parameters.
func (s *Store) injectionsQuery(sessionID string, lim int) (string, []any) {
	var w where
	if sessionID != "" {
		w.add("session_id = ?", sessionID)
		s.ofSession(&w, "owner", sessionID)
	}
	return `SELECT id, time, session_id, project, event, win, chars, tokens,
		chunk_ids, item_ids, hash, latency_us, text, reason FROM injections` + w.sql() + ` ORDER BY id DESC` + limit(lim), w.args
}

func scanInjection(r pgx.Rows) (carryover.Injection, error) {
	var in carryover.Injection
	var latency int64
	err := r.Scan(&in.ID, &in.Time, &in.SessionID, &in.Project, &in.Event, &in.Window, &in.Chars, &in.Tokens,
		&in.ChunkIDs, &in.ItemIDs, &in.Hash, &latency, &in.Text, &in.Reason)
	in.Time = in.Time.UTC()
	in.Latency = time.Duration(latency) * time.Microsecond
	in.ChunkIDs, in.ItemIDs = nilIfEmpty(in.ChunkIDs), nilIfEmpty(in.ItemIDs)
	return in, err
}

// AddNote stores a note and returns its id. A note of kind "state" replaces
// the previous state note of its session (of its project when the session
// is "") that this role owns. An empty Kind is "note"; a zero Time is set
// to now.
func (s *Store) AddNote(ctx context.Context, n carryover.Note) (id int64, err error) {
	if n.Kind == "" {
		n.Kind = "note"
	}
	if n.Time.IsZero() {
		n.Time = time.Now()
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, wrap("add note: begin", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if n.Kind == "state" {
		q, args := `DELETE FROM notes WHERE kind = 'state' AND owner = $1 AND session_id = $2`, []any{s.owner, n.SessionID}
		if n.SessionID == "" {
			q, args = q+` AND project = $3`, append(args, n.Project)
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return 0, wrap("add note: replace state", err)
		}
	}
	err = tx.QueryRow(ctx, `INSERT INTO notes (owner, team, project, time, session_id, kind, text)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		s.owner, s.team, clean(n.Project), n.Time, clean(n.SessionID), clean(n.Kind), clean(n.Text)).Scan(&id)
	if err != nil {
		return 0, wrap("add note", err)
	}
	return id, wrap("add note: commit", tx.Commit(ctx))
}

// Notes lists notes oldest first: of the session when sessionID is set,
// else of the project when project is set, else all.
func (s *Store) Notes(ctx context.Context, project, sessionID string) ([]carryover.Note, error) {
	q, args := s.notesQuery(project, sessionID)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, wrap("notes", err)
	}
	return collect(rows, "notes", scanNote)
}

// notesQuery is Notes' query and its parameters.
func (s *Store) notesQuery(project, sessionID string) (string, []any) {
	var w where
	switch {
	case sessionID != "":
		w.add("session_id = ?", sessionID)
		s.ofSession(&w, "owner", sessionID)
	case project != "":
		w.add("project = ?", project)
	}
	return `SELECT id, time, session_id, project, kind, text FROM notes` + w.sql() + ` ORDER BY id`, w.args
}

func scanNote(r pgx.Rows) (carryover.Note, error) {
	var n carryover.Note
	err := r.Scan(&n.ID, &n.Time, &n.SessionID, &n.Project, &n.Kind, &n.Text)
	n.Time = n.Time.UTC()
	return n, err
}

// ofSession adds the condition that a row naming session id (its owner in
// column col) belongs to the session of that id Session picks: the
// store's owner's, else one a team shares. Each role has sessions of its
// own, and row security hides other roles' rows only under ids the reader
// owns, so without it a teammate's session of the same id would add its
// rows to the session of another teammate. Rows naming an id that no
// readable session has (notes and audit rows may) are not filtered.
func (s *Store) ofSession(w *where, col, id string) {
	w.add(col+` = coalesce((SELECT o.owner FROM sessions o WHERE o.id = ?
		ORDER BY o.owner = ? DESC, o.owner LIMIT 1), `+col+`)`, id, s.owner)
}

// collect scans every row with scan.
// queueCollect queues the statement in batch; when the batch runs, its
// rows are collected into *to.
func queueCollect[T any](batch *pgx.Batch, q string, args []any, op string, scan func(pgx.Rows) (T, error), to *[]T) {
	batch.Queue(q, args...).Query(func(rows pgx.Rows) error {
		var err error
		*to, err = collect(rows, op, scan)
		return err
	})
}

// sessionRow and chunkRow are scanSession and scanChunk as collect takes
// them.
func sessionRow(r pgx.Rows) (carryover.Session, error) { return scanSession(r) }
func chunkRow(r pgx.Rows) (carryover.Chunk, error)     { return scanChunk(r) }

func collect[T any](rows pgx.Rows, op string, scan func(pgx.Rows) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, wrap(op, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(op, err)
	}
	return out, nil
}

// where collects the conditions of a query and their arguments; each ? in
// a condition becomes the next $N.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	var b strings.Builder
	i := 0
	for _, r := range cond {
		if r == '?' && i < len(args) {
			w.args = append(w.args, args[i])
			fmt.Fprintf(&b, "$%d", len(w.args))
			i++
			continue
		}
		b.WriteRune(r)
	}
	w.conds = append(w.conds, b.String())
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// and renders w's conditions to follow other conditions.
func (w *where) and() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(w.conds, " AND ")
}

// limit renders a LIMIT clause; n <= 0 means none.
func limit(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" LIMIT %d", n)
}

func orEmpty(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

func nilIfEmpty(ids []int64) []int64 {
	if len(ids) == 0 {
		return nil
	}
	return ids
}
