package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
)

// sessionCols are the columns scanSession reads; sessionColsNoCounts
// the same with zeros for the counts (SessionFilter.NoCounts).
const (
	sessionBase = `s.id, p.root, s.transcript_path, s.version, s.title, s.started_ms, s.updated_ms,
	s.windows, s.turns, s.owner, s.team, s.parent, s.cwd, s.branch`
	sessionCols = sessionBase + `,
	(SELECT count(*) FROM chunks WHERE session_id = s.id),
	(SELECT count(*) FROM chunk_shares WHERE session_id = s.id),
	(SELECT count(*) FROM sessions c WHERE c.parent = s.id AND c.parent <> '')`
	sessionColsNoCounts = sessionBase + `, 0, 0, 0`
)

func scanSession(sc interface{ Scan(...any) error }) (carryover.Session, error) {
	var ss carryover.Session
	var started, updated int64
	err := sc.Scan(&ss.ID, &ss.Project, &ss.TranscriptPath, &ss.Version, &ss.Title, &started, &updated,
		&ss.Windows, &ss.Turns, &ss.Owner, &ss.Team, &ss.Parent, &ss.Cwd, &ss.Branch, &ss.Chunks, &ss.Shared, &ss.Subagents)
	ss.Chunks += ss.Shared // own and shared
	ss.Started, ss.Updated = fromMS(started), fromMS(updated)
	return ss, err
}

// Session returns one session with its chunk count, or an error wrapping
// carryover.ErrNotFound.
func (s *Store) Session(ctx context.Context, id string) (carryover.Session, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+sessionCols+`
		FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.id = ?`, id)
	ss, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return carryover.Session{}, fmt.Errorf("session %s: %w", id, carryover.ErrNotFound)
	}
	if err != nil {
		return carryover.Session{}, wrapErr("session "+id, err)
	}
	return ss, nil
}

// Sessions lists sessions, most recently updated first. A zero Limit means
// no limit.
func (s *Store) Sessions(ctx context.Context, f carryover.SessionFilter) ([]carryover.Session, error) {
	cols := sessionCols
	if f.NoCounts {
		cols = sessionColsNoCounts
	}
	var w where
	if f.Project != "" {
		w.add("p.root = ?", f.Project)
	}
	if f.Parent != "" {
		w.add("s.parent = ?", f.Parent)
	}
	if f.TopLevel {
		w.add("s.parent = ''")
	}
	if f.IDPrefix != "" {
		// A range the primary key serves, then the exact test.
		w.add("s.id >= ? AND s.id < ? AND substr(s.id, 1, ?) = ?", f.IDPrefix, f.IDPrefix+"\U0010FFFF", len(f.IDPrefix), f.IDPrefix)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+cols+`
		FROM sessions s JOIN projects p ON p.id = s.project_id`+w.sql()+`
		ORDER BY s.updated_ms DESC, s.id`+limit(f.Limit), w.args...)
	if err != nil {
		return nil, wrapErr("sessions", err)
	}
	defer rows.Close()
	var out []carryover.Session
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, wrapErr("sessions", err)
		}
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("sessions", err)
	}
	return out, nil
}

const chunkCols = `c.id, c.session_id, p.root, c.seq, c.turn, c.win, c.first_line, c.last_line, c.start_ms, c.end_ms,
	c.prompt, c.summary, c.text, c.tools, c.files, c.commands, c.errors, c.sidechain, c.agent_id, c.hash`

// sharedChunkCols are chunkCols for a chunk a session shares (chunk_shares
// x): placed by the share row.
const sharedChunkCols = `c.id, x.session_id, p.root, x.seq, x.turn, x.win, x.first_line, x.last_line, c.start_ms, c.end_ms,
	c.prompt, c.summary, c.text, c.tools, c.files, c.commands, c.errors, c.sidechain, c.agent_id, c.hash`

// scanChunk scans chunkCols (or sharedChunkCols) followed by extra
// destinations.
func scanChunk(sc interface{ Scan(...any) error }, extra ...any) (carryover.Chunk, error) {
	var c carryover.Chunk
	var start, end int64
	var tools, files, commands, errs string
	dest := append([]any{&c.ID, &c.SessionID, &c.Project, &c.Seq, &c.Turn, &c.Window, &c.FirstLine, &c.LastLine,
		&start, &end, &c.Prompt, &c.Summary, &c.Text, &tools, &files, &commands, &errs, &c.Sidechain, &c.AgentID, &c.Hash},
		extra...)
	if err := sc.Scan(dest...); err != nil {
		return c, err
	}
	c.Start, c.End = fromMS(start), fromMS(end)
	var err error
	for _, l := range []struct {
		dst *[]string
		src string
	}{{&c.Tools, tools}, {&c.Files, files}, {&c.Commands, commands}, {&c.Errors, errs}} {
		if *l.dst, err = parseList(l.src); err != nil {
			return c, fmt.Errorf("chunk %d: %w", c.ID, err)
		}
	}
	return c, nil
}

// Chunks lists chunks in sequence order. Turn -1 selects every turn (0 is
// the first turn); a zero Limit means no limit. The chunks of a session
// include those it shares with the session that stored them first (see
// Apply), with this session's id, sequence number, turn, window and lines:
// the filters apply to those.
func (s *Store) Chunks(ctx context.Context, f carryover.ChunkFilter) ([]carryover.Chunk, error) {
	q, args := chunksQuery(f)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrapErr("chunks", err)
	}
	return scanChunks(rows)
}

// ChunksAt returns, by ref, the first chunk that holds the ref's line
// (carryover.ChunkAt; carryover.LinesReader): by one statement, prepared
// once.
func (s *Store) ChunksAt(ctx context.Context, refs []carryover.LineRef) ([][]carryover.Chunk, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	q, _ := chunksQuery(carryover.ChunkAt(refs[0]))
	stmt, err := s.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, wrapErr("chunks", err)
	}
	defer stmt.Close()
	return carryover.ByLine(refs, func(r carryover.LineRef) ([]carryover.Chunk, error) {
		var rows *sql.Rows
		var err error
		// A ref without a session or a line has a query of its own.
		rq, args := chunksQuery(carryover.ChunkAt(r))
		if rq == q {
			rows, err = stmt.QueryContext(ctx, args...)
		} else {
			rows, err = s.db.QueryContext(ctx, rq, args...)
		}
		if err != nil {
			return nil, wrapErr("chunks", err)
		}
		return scanChunks(rows)
	})
}

// chunksQuery is Chunks' query and its parameters.
func chunksQuery(f carryover.ChunkFilter) (string, []any) {
	// Each part's conditions on the row that places the chunk (alias pos).
	conds := func(pos string) where {
		var w where
		if f.SessionID != "" {
			w.add(pos+".session_id = ?", f.SessionID)
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
			whereIn(&w, "c.id", f.IDs)
		}
		return w
	}
	own := conds("c")
	q := `SELECT ` + chunkCols + ` FROM chunks c JOIN projects p ON p.id = c.project_id` + own.sql()
	args := own.args
	if f.SessionID != "" {
		// One statement, one snapshot: a prune handing a chunk over
		// between two reads would hide it from both. SQLite merges the
		// two parts, each read in its index's order, so a session's
		// newest few chunks (what a restore reads) stay a few rows read.
		shared := conds("x")
		q += ` UNION ALL SELECT ` + sharedChunkCols + ` FROM chunk_shares x JOIN chunks c ON c.id = x.chunk_id
			JOIN projects p ON p.id = c.project_id` + shared.sql()
		args = append(args, shared.args...)
	}
	// By the result's columns: the session and the sequence number.
	return q + ` ORDER BY 2, 4` + desc(f.Newest) + limit(f.Limit), args
}

// scanChunks reads the chunks chunksQuery selected, closing rows.
func scanChunks(rows *sql.Rows) ([]carryover.Chunk, error) {
	defer rows.Close()
	var out []carryover.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, wrapErr("chunks", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("chunks", err)
	}
	return out, nil
}

// likeEscape escapes LIKE's wildcards in s (ESCAPE '\\').
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

func desc(newest bool) string {
	if newest {
		return " DESC"
	}
	return ""
}

const itemCols = `i.id, i.session_id, i.chunk_seq, coalesce(i.chunk_id, 0), i.kind, i.text, i.detail, i.key,
	i.turn, i.win, i.line, i.time_ms, i.weight, i.resolved, i.count`

// itemScanner scans itemCols (and any destinations appended to dest) row
// after row into one Item and one list of destinations: allocating both
// for every row, for the hundreds of items a restore reads, is memory a
// short-lived hook process pays for in page faults.
type itemScanner struct {
	it   carryover.Item
	t    int64
	dest []any
}

func newItemScanner() *itemScanner {
	s := &itemScanner{}
	it := &s.it
	s.dest = []any{&it.ID, &it.SessionID, &it.ChunkSeq, &it.ChunkID, &it.Kind, &it.Text, &it.Detail, &it.Key,
		&it.Turn, &it.Window, &it.Line, &s.t, &it.Weight, &it.Resolved, &it.Count}
	return s
}

// scan reads the row's item.
func (s *itemScanner) scan(rows *sql.Rows) (carryover.Item, error) {
	s.it = carryover.Item{}
	if err := rows.Scan(s.dest...); err != nil {
		return carryover.Item{}, err
	}
	s.it.Time = fromMS(s.t)
	return s.it, nil
}

// Items lists items, newest line first (newest time first across
// sessions). A zero Limit means no limit.
func (s *Store) Items(ctx context.Context, f carryover.ItemFilter) ([]carryover.Item, error) {
	from, w, order := itemQuery(f)
	if len(f.Kinds) > 0 {
		whereIn(&w, "i.kind", f.Kinds)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+itemCols+` FROM `+from+w.sql()+order+limit(f.Limit), w.args...)
	if err != nil {
		return nil, wrapErr("items", err)
	}
	defer rows.Close()
	var out []carryover.Item
	sc := newItemScanner()
	for rows.Next() {
		it, err := sc.scan(rows)
		if err != nil {
			return nil, wrapErr("items", err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("items", err)
	}
	return out, nil
}

// itemQuery is the FROM clause, the conditions but the kinds and the
// ORDER BY clause of the items f selects.
func itemQuery(f carryover.ItemFilter) (string, where, string) {
	var w where
	from := "items i"
	if f.SessionID != "" {
		w.add("i.session_id = ?", f.SessionID)
	}
	if f.Project != "" {
		from += " JOIN sessions s ON s.id = i.session_id JOIN projects p ON p.id = s.project_id"
		w.add("p.root = ?", f.Project)
	}
	if f.BeforeWindow > 0 {
		w.add("i.win < ?", f.BeforeWindow)
	}
	if f.FromWindow > 0 {
		w.add("i.win >= ?", f.FromWindow)
	}
	if len(f.ChunkSeqs) > 0 {
		whereIn(&w, "i.chunk_seq", f.ChunkSeqs)
	}
	if f.SessionID == "" {
		return from, w, " ORDER BY i.time_ms DESC, i.line DESC, i.id DESC"
	}
	return from, w, " ORDER BY i.line DESC, i.id DESC"
}

var _ carryover.ItemGrouper = (*Store)(nil)

// ItemGroups reads the groups in two statements: the ids and kinds of
// the filter's items, newest first, pick each group's newest; then only
// those rows are read in full. Reading a row costs the driver far more
// than SQLite spends finding it (each column is a call through a mutex),
// and ten queries of a group each would each walk the session's items
// again and be prepared again. A session with no more items than the
// groups' limits add up to is read in one statement instead: every row
// would be read in full anyway.
func (s *Store) ItemGroups(ctx context.Context, f carryover.ItemFilter, groups []carryover.ItemGroup) ([][]carryover.Item, error) {
	out := make([][]carryover.Item, len(groups))
	group := map[carryover.ItemKind]int{}
	var kinds, lastOnly []carryover.ItemKind
	limits := 0 // the groups' limits added up; -1 when one has none
	for g, gr := range groups {
		for _, k := range gr.Kinds {
			if _, ok := group[k]; ok {
				return nil, fmt.Errorf("items: kind %q in two groups", k)
			}
			group[k] = g
			kinds = append(kinds, k)
			if gr.LastWindow {
				lastOnly = append(lastOnly, k)
			}
		}
		if gr.Limit <= 0 || limits < 0 {
			limits = -1
		} else {
			limits += gr.Limit
		}
	}
	if len(kinds) == 0 {
		return out, nil
	}
	from, w, order := itemQuery(f)
	whereIn(&w, "i.kind", kinds)
	if len(lastOnly) > 0 && f.BeforeWindow > 1 {
		// The other windows' rows of those kinds are not read at all:
		// reading a row costs far more than passing it by.
		var not where
		whereIn(&not, "i.kind", lastOnly)
		w.add("(i.win >= ? OR NOT "+not.conds[0]+")", append([]any{f.BeforeWindow - 1}, not.args...)...)
	}
	// SQLite maps each row's kind to its group: an integer, where the
	// kind's text would cost the driver a string per row.
	var sel strings.Builder
	sel.WriteString("CASE i.kind")
	args := make([]any, 0, 2*len(kinds)+len(w.args))
	for _, k := range kinds {
		sel.WriteString(" WHEN ? THEN ?")
		args = append(args, k, group[k])
	}
	sel.WriteString(" END")
	args = append(args, w.args...)
	if f.SessionID != "" && f.Project == "" && limits > 0 {
		// The session's items, all windows and kinds: an index count.
		var total int
		err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM items WHERE session_id = ?`, f.SessionID).Scan(&total)
		if err != nil {
			return nil, wrapErr("items", err)
		}
		if total <= limits {
			return s.itemGroupsOnePass(ctx, `SELECT `+itemCols+`, `+sel.String()+` FROM `+from+w.sql()+order, args, groups)
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT i.id, `+sel.String()+` FROM `+from+w.sql()+order, args...)
	if err != nil {
		return nil, wrapErr("items", err)
	}
	defer rows.Close()
	// pos is each picked id's group and place in it.
	type place struct{ group, index int }
	pos := make(map[int64]place, 256)
	n := make([]int, len(groups))
	ids := make([]int64, 0, 256)
	for rows.Next() {
		var id int64
		var g int
		if err := rows.Scan(&id, &g); err != nil {
			return nil, wrapErr("items", err)
		}
		if g < 0 || g >= len(groups) {
			return nil, fmt.Errorf("items: group %d of %d", g, len(groups))
		}
		if lim := groups[g].Limit; lim > 0 && n[g] >= lim {
			continue
		}
		pos[id] = place{g, n[g]}
		n[g]++
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("items", err)
	}
	rows.Close()
	if len(ids) == 0 {
		return out, nil
	}
	if len(ids) > maxGroupIDs {
		// More ids than a statement should bind: groups without limits.
		return s.itemGroupsEach(ctx, f, groups)
	}
	for g := range out {
		out[g] = make([]carryover.Item, n[g])
	}
	var byID where
	whereIn(&byID, "i.id", ids)
	rows, err = s.db.QueryContext(ctx, `SELECT `+itemCols+` FROM items i`+byID.sql(), byID.args...)
	if err != nil {
		return nil, wrapErr("items", err)
	}
	defer rows.Close()
	read := 0
	sc := newItemScanner()
	for rows.Next() {
		it, err := sc.scan(rows)
		if err != nil {
			return nil, wrapErr("items", err)
		}
		p := pos[it.ID]
		out[p.group][p.index] = it
		read++
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("items", err)
	}
	if read != len(ids) {
		// Some were deleted between the statements (a forget or a
		// prune): a query per group reads what is left.
		return s.itemGroupsEach(ctx, f, groups)
	}
	return out, nil
}

// maxGroupIDs bounds the ids ItemGroups reads in one statement (SQLite
// binds at most 32,766 parameters).
const maxGroupIDs = 10000

// itemGroupsOnePass reads the groups from one statement that selects
// itemCols and each row's group, newest first, keeping each group's
// newest up to its limit.
func (s *Store) itemGroupsOnePass(ctx context.Context, query string, args []any, groups []carryover.ItemGroup) ([][]carryover.Item, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrapErr("items", err)
	}
	defer rows.Close()
	out := make([][]carryover.Item, len(groups))
	sc := newItemScanner()
	var g int
	sc.dest = append(sc.dest, &g)
	for rows.Next() {
		it, err := sc.scan(rows)
		if err != nil {
			return nil, wrapErr("items", err)
		}
		if g < 0 || g >= len(groups) {
			return nil, fmt.Errorf("items: group %d of %d", g, len(groups))
		}
		if lim := groups[g].Limit; lim > 0 && len(out[g]) >= lim {
			continue
		}
		out[g] = append(out[g], it)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("items", err)
	}
	return out, nil
}

// itemGroupsEach reads the groups a query each.
func (s *Store) itemGroupsEach(ctx context.Context, f carryover.ItemFilter, groups []carryover.ItemGroup) ([][]carryover.Item, error) {
	// Store hides the capability: ReadItemGroups reads a group at a time.
	return carryover.ReadItemGroups(ctx, struct{ carryover.Store }{s}, f, groups)
}

// Compactions lists a session's compactions in window order.
func (s *Store) Compactions(ctx context.Context, sessionID string) ([]carryover.Compaction, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT session_id, win, trigger_type, pre_tokens, post_tokens, line, time_ms, summary
		FROM compactions WHERE session_id = ? ORDER BY win`, sessionID)
	if err != nil {
		return nil, wrapErr("compactions", err)
	}
	defer rows.Close()
	var out []carryover.Compaction
	for rows.Next() {
		var c carryover.Compaction
		var t int64
		if err := rows.Scan(&c.SessionID, &c.Window, &c.Trigger, &c.PreTokens, &c.PostTokens, &c.Line, &t, &c.Summary); err != nil {
			return nil, wrapErr("compactions", err)
		}
		c.Time = fromMS(t)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("compactions", err)
	}
	return out, nil
}

// RecordInjection appends to the audit log and returns the record's id. A
// text longer than carryover.InjectionTextCap is cut. With
// Options.DeferHookRuns the record goes to the journal (see runs.go), and
// its id is 0 until a fold inserts it; a journal that takes no more sends
// it to the store.
func (s *Store) RecordInjection(ctx context.Context, in carryover.Injection) (int64, error) {
	if in.Time.IsZero() {
		in.Time = time.Now()
	}
	in.Text = carryover.ClipInjectionText(in.Text)
	if s.deferRuns && s.appendInjection(in) == nil {
		return 0, nil
	}
	res, err := insertInjection(ctx, s.db, in)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, wrapErr("record injection", err)
	}
	return id, nil
}

// execer is what insertInjection writes through: the store or a
// transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func insertInjection(ctx context.Context, ex execer, in carryover.Injection) (sql.Result, error) {
	chunkIDs, err := json.Marshal(orEmpty(in.ChunkIDs))
	if err != nil {
		return nil, fmt.Errorf("record injection: %w", err)
	}
	itemIDs, err := json.Marshal(orEmpty(in.ItemIDs))
	if err != nil {
		return nil, fmt.Errorf("record injection: %w", err)
	}
	res, err := ex.ExecContext(ctx, `INSERT INTO injections
		(time_ms, session_id, project, event, win, chars, tokens, chunk_ids, item_ids, hash, latency_us, text, reason)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		ms(in.Time), in.SessionID, in.Project, in.Event, in.Window, in.Chars, in.Tokens,
		string(chunkIDs), string(itemIDs), in.Hash, in.Latency.Microseconds(), in.Text, in.Reason)
	return res, wrapErr("record injection", err)
}

// Injections lists audit records of a session (of all sessions when
// sessionID is ""), newest first, the journal's included (see
// RecordInjection). A zero limit means no limit.
func (s *Store) Injections(ctx context.Context, sessionID string, lim int) ([]carryover.Injection, error) {
	return s.injections(ctx, sessionID, lim, true)
}

var _ carryover.InjectionsBrief = (*Store)(nil)

// InjectionsWithoutText is Injections with Text and Reason left empty.
// The record's columns before the text are read from its row alone; the
// text, and the reason after it, from the pages it overflows into.
func (s *Store) InjectionsWithoutText(ctx context.Context, sessionID string, lim int) ([]carryover.Injection, error) {
	return s.injections(ctx, sessionID, lim, false)
}

func (s *Store) injections(ctx context.Context, sessionID string, lim int, text bool) ([]carryover.Injection, error) {
	var w where
	if sessionID != "" {
		w.add("session_id = ?", sessionID)
	}
	cols := "''"
	if text {
		cols = "text, reason"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, time_ms, session_id, project, event, win, chars, tokens,
		chunk_ids, item_ids, hash, latency_us, `+cols+` FROM injections`+w.sql()+` ORDER BY id DESC`+limit(lim), w.args...)
	if err != nil {
		return nil, wrapErr("injections", err)
	}
	defer rows.Close()
	var out []carryover.Injection
	for rows.Next() {
		var in carryover.Injection
		var t, latency int64
		var chunkIDs, itemIDs string
		dest := []any{&in.ID, &t, &in.SessionID, &in.Project, &in.Event, &in.Window, &in.Chars, &in.Tokens,
			&chunkIDs, &itemIDs, &in.Hash, &latency, &in.Text}
		if text {
			dest = append(dest, &in.Reason)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, wrapErr("injections", err)
		}
		in.Time, in.Latency = fromMS(t), time.Duration(latency)*time.Microsecond
		if err := json.Unmarshal([]byte(chunkIDs), &in.ChunkIDs); err != nil {
			return nil, fmt.Errorf("injection %d: %w", in.ID, err)
		}
		if err := json.Unmarshal([]byte(itemIDs), &in.ItemIDs); err != nil {
			return nil, fmt.Errorf("injection %d: %w", in.ID, err)
		}
		in.ChunkIDs, in.ItemIDs = nilIfEmpty(in.ChunkIDs), nilIfEmpty(in.ItemIDs)
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("injections", err)
	}
	kinds := journalInjectionLines
	if text {
		kinds |= journalInjectionText
	}
	journal, err := s.readJournals(ctx, kinds, sessionID)
	if err != nil {
		return nil, wrapErr("injections: journal", err)
	}
	return mergeInjections(out, journal.injections, lim), nil
}

// AddNote stores a note and returns its id. A note of kind "state" replaces
// the previous state note of its session (of its project when the session
// is ""). An empty Kind is "note"; a zero Time is set to now.
func (s *Store) AddNote(ctx context.Context, n carryover.Note) (id int64, err error) {
	if n.Kind == "" {
		n.Kind = "note"
	}
	if n.Time.IsZero() {
		n.Time = time.Now()
	}
	tx, end, err := s.beginWrite(ctx, s.db)
	if err != nil {
		return 0, wrapErr("add note: begin", err)
	}
	defer end()
	if n.Kind == "state" {
		q, args := `DELETE FROM notes WHERE kind = 'state' AND session_id = ?`, []any{n.SessionID}
		if n.SessionID == "" {
			q, args = q+` AND project = ?`, append(args, n.Project)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, wrapErr("add note: replace state", err)
		}
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO notes (time_ms, session_id, project, kind, text) VALUES (?, ?, ?, ?, ?)`,
		ms(n.Time), n.SessionID, n.Project, n.Kind, n.Text)
	if err != nil {
		return 0, wrapErr("add note", err)
	}
	if id, err = res.LastInsertId(); err != nil {
		return 0, wrapErr("add note", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, wrapErr("add note: commit", err)
	}
	return id, nil
}

// Notes lists notes oldest first: of the session when sessionID is set,
// else of the project when project is set, else all.
func (s *Store) Notes(ctx context.Context, project, sessionID string) ([]carryover.Note, error) {
	var w where
	switch {
	case sessionID != "":
		w.add("session_id = ?", sessionID)
	case project != "":
		w.add("project = ?", project)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, time_ms, session_id, project, kind, text FROM notes`+
		w.sql()+` ORDER BY id`, w.args...)
	if err != nil {
		return nil, wrapErr("notes", err)
	}
	defer rows.Close()
	var out []carryover.Note
	for rows.Next() {
		var n carryover.Note
		var t int64
		if err := rows.Scan(&n.ID, &t, &n.SessionID, &n.Project, &n.Kind, &n.Text); err != nil {
			return nil, wrapErr("notes", err)
		}
		n.Time = fromMS(t)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("notes", err)
	}
	return out, nil
}

// where collects the conditions of a query and their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// whereIn adds "col IN (?, ...)" for a non-empty list.
func whereIn[T any](w *where, col string, vals []T) {
	w.conds = append(w.conds, col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")+")")
	for _, v := range vals {
		w.args = append(w.args, v)
	}
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
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
