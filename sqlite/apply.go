package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/rawblock"
	"github.com/carryover-dev/carryover/rank"
)

// Apply writes a batch in one IMMEDIATE transaction: all of it or nothing.
//
// Merge rules, so that re-ingesting the same lines changes nothing:
//   - session: a non-empty transcript path, version, title or branch
//     replaces the stored one, an empty one never does; Started keeps the
//     earliest known time, Updated, Windows and Turns the largest. The
//     project, parent and cwd are fixed by the first batch that has them.
//   - chunks: one whose Hash already exists in the project is not stored
//     again; items of the batch then point at the existing row, and when
//     that row is another session's (a resumed session repeats the lines
//     of the one it resumed) a share row records that this session holds
//     it too, at the batch's place (see Chunks and Prune).
//   - items: one per (session, kind, key). An occurrence at a later line
//     replaces text, chunk, turn, window, line and time (and detail when
//     its own is not empty) and adds its Count (at least 1) to the stored
//     one; an occurrence at the same or an earlier line (a re-ingest) only
//     fills an empty detail. Resolved is sticky (old OR new) and Weight
//     keeps the maximum.
//   - compactions: one per (session, window); the new row's non-empty
//     fields win, so a summary is kept when a later write has none.
//   - ingest state: replaced.
//   - raw lines: added after the session's last stored line, or replacing
//     those from the batch's first (see carryover.Batch.Raw), compressed
//     while the transaction inserts the rest (see prepareRaw).
//
// Each new chunk's vector (the store's Embedder over embed.ChunkText) is
// computed while the transaction inserts the chunks, and stored with them.
// A batch with chunks then embeds up to BackfillBatch chunks stored before
// vectors existed (see Backfill), so that a migrated store catches up as
// it is used.
func (s *Store) Apply(ctx context.Context, b carryover.Batch) (err error) {
	if err := b.Validate(); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	// Embedding and compression run beside the inserts: the transaction
	// waits for the vectors only to store them, after the chunks, and for
	// the blocks after the items. A cold ingest's batch spent as long
	// embedding and compressing as inserting, one after the other.
	raw := s.prepareRaw(ctx, b)
	vecs := rawblock.Background(len(b.Chunks) > 0, func() ([][]byte, error) { return s.embedChunks(b.Chunks), nil })
	if err := s.apply(ctx, b, vecs, raw); err != nil {
		return err
	}
	if len(b.Chunks) > 0 {
		if _, err := s.Backfill(ctx, BackfillBatch); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, b carryover.Batch, embedded func() ([][]byte, error), packed func() (*rawWrite, error)) (err error) {
	// The transaction keeps its statement journal in memory: a statement
	// that may fail half-way journals the pages it changes that earlier
	// statements of the transaction had changed, and past 64 KiB SQLite
	// spills that journal to a temporary file, which a cold ingest's chunk
	// inserts wrote some 160 pages to, a syscall each. The journal is
	// bounded by the pages one statement changes.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return wrapErr("apply: begin", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA temp_store = MEMORY"); err != nil {
		return wrapErr("apply: begin", err)
	}
	// The connection goes back to the pool as it was (temporary tables of
	// other statements stay on disk), or is closed.
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA temp_store = DEFAULT"); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	tx, end, err := s.beginWrite(ctx, conn)
	if err != nil {
		return wrapErr("apply: begin", err)
	}
	// Ended on every way out, a panic too: conn.Close waits for it.
	defer end()
	// Inside the write transaction: a forget that commits first is seen.
	// A subagent of a forgotten session is forgotten with it.
	for _, id := range []string{b.Session.ID, b.Session.Parent} {
		if id == "" {
			continue
		}
		if gone, err := forgotten(ctx, tx, id); err != nil {
			return wrapErr("apply", err)
		} else if gone {
			return fmt.Errorf("apply %s: %w", b.Session.ID, carryover.ErrForgotten)
		}
	}
	projectID, err := upsertSession(ctx, tx, b.Session)
	if err != nil {
		return err
	}
	chunkIDs, shared, err := insertChunks(ctx, tx, projectID, b.Session.ID, b.Chunks)
	if err != nil {
		return err
	}
	if err := insertShares(ctx, tx, b.Session.ID, shared); err != nil {
		return err
	}
	if err := upsertItems(ctx, tx, b.Session.ID, chunkIDs, b.Items); err != nil {
		return err
	}
	if err := upsertCompactions(ctx, tx, b.Session.ID, b.Compactions); err != nil {
		return err
	}
	// The vectors and blocks last: they are computed meanwhile.
	if len(b.Chunks) > 0 {
		ok, err := s.vectorsUsable(ctx, tx)
		if err != nil {
			return err
		}
		vecs, err := embedded()
		if err != nil {
			return err
		}
		if ok {
			if err := insertVectors(ctx, tx, b.Chunks, chunkIDs, vecs); err != nil {
				return err
			}
		}
	}
	raw, err := packed()
	if err != nil {
		return err
	}
	if err := s.writeRaw(ctx, tx, b, raw); err != nil {
		return err
	}
	for kind, n := range b.Redactions {
		if n <= 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO redactions (project, kind, count) VALUES (?, ?, ?)
			ON CONFLICT (project, kind) DO UPDATE SET count = count + excluded.count`, b.Session.Project, kind, n); err != nil {
			return wrapErr("apply: redactions", err)
		}
	}
	st := b.State
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET ingest_path = ?, ingest_file_id = ?,
		ingest_offset = ?, ingest_line = ?, ingest_cursor = ? WHERE id = ?`,
		st.Path, st.FileID, st.Offset, st.Line, st.Cursor, b.Session.ID); err != nil {
		return wrapErr("apply: ingest state", err)
	}
	if err := tx.Commit(); err != nil {
		return wrapErr("apply: commit", err)
	}
	return nil
}

// upsertSession upserts the project and the session, and returns the
// session's project id.
func upsertSession(ctx context.Context, tx *sql.Tx, ss carryover.Session) (int64, error) {
	var projectID int64
	// DO UPDATE (a no-op) rather than DO NOTHING so RETURNING yields the id
	// of an existing row too.
	err := tx.QueryRowContext(ctx, `INSERT INTO projects (root) VALUES (?)
		ON CONFLICT (root) DO UPDATE SET root = excluded.root RETURNING id`, ss.Project).Scan(&projectID)
	if err != nil {
		return 0, wrapErr("apply: project", err)
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO sessions
		(id, project_id, transcript_path, version, title, started_ms, updated_ms, windows, turns, owner, team, parent, cwd, branch)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
			project_id = CASE WHEN (SELECT root FROM projects WHERE id = sessions.project_id) = ''
				THEN excluded.project_id ELSE sessions.project_id END,
			transcript_path = CASE WHEN excluded.transcript_path <> '' THEN excluded.transcript_path ELSE sessions.transcript_path END,
			version = CASE WHEN excluded.version <> '' THEN excluded.version ELSE sessions.version END,
			title = CASE WHEN excluded.title <> '' THEN excluded.title ELSE sessions.title END,
			started_ms = CASE WHEN sessions.started_ms = 0 OR (excluded.started_ms <> 0 AND excluded.started_ms < sessions.started_ms)
				THEN excluded.started_ms ELSE sessions.started_ms END,
			updated_ms = max(sessions.updated_ms, excluded.updated_ms),
			windows = max(sessions.windows, excluded.windows),
			turns = max(sessions.turns, excluded.turns),
			owner = CASE WHEN sessions.owner = '' THEN excluded.owner ELSE sessions.owner END,
			team = CASE WHEN excluded.team <> '' THEN excluded.team ELSE sessions.team END,
			parent = CASE WHEN sessions.parent = '' THEN excluded.parent ELSE sessions.parent END,
			cwd = CASE WHEN sessions.cwd = '' THEN excluded.cwd ELSE sessions.cwd END,
			branch = CASE WHEN excluded.branch <> '' THEN excluded.branch ELSE sessions.branch END
		RETURNING project_id`,
		ss.ID, projectID, ss.TranscriptPath, ss.Version, ss.Title, ms(ss.Started), ms(ss.Updated), ss.Windows, ss.Turns, ss.Owner, ss.Team,
		ss.Parent, ss.Cwd, ss.Branch,
	).Scan(&projectID)
	if err != nil {
		return 0, wrapErr("apply: session", err)
	}
	return projectID, nil
}

// rowsPerInsert bounds the rows of one multi-row INSERT, well inside
// SQLite's limit on bound parameters (32,766).
const rowsPerInsert = 200

// Each statement that writes a table with a full-text index through a
// trigger opens a savepoint, and FTS5 writes its pending terms to disk at
// every savepoint: one INSERT per chunk or item gave one tiny index
// segment each, and FTS5's merges of those segments cost more than the
// indexing itself. A multi-row INSERT indexes all its rows into one
// segment, and runs its rows one after the other, as the statements did.

// values returns n parenthesised groups of k placeholders, comma-separated.
func values(n, k int) string {
	group := "(" + strings.Repeat("?, ", k-1) + "?)"
	var b strings.Builder
	b.Grow(n * (len(group) + 2))
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(group)
	}
	return b.String()
}

// insertChunks stores new chunks and returns the row id of each chunk of the
// batch by Seq, the existing row's id for a duplicate, and the duplicates
// whose row is another session's (with their row's id in ID).
func insertChunks(ctx context.Context, tx *sql.Tx, projectID int64, sessionID string, chunks []carryover.Chunk) (map[int]int64, []carryover.Chunk, error) {
	ids := make(map[int]int64, len(chunks))
	if len(chunks) == 0 {
		return ids, nil, nil
	}
	const cols = 20
	inserted := make(map[string]int64, len(chunks)) // by hash
	for start := 0; start < len(chunks); start += rowsPerInsert {
		part := chunks[start:min(start+rowsPerInsert, len(chunks))]
		args := make([]any, 0, cols*len(part))
		for _, c := range part {
			args = append(args, projectID, sessionID, c.Seq, c.Turn, c.Window, c.FirstLine, c.LastLine,
				ms(c.Start), ms(c.End), c.Prompt, c.Summary, c.Text,
				jsonList(c.Tools), jsonList(c.Files), jsonList(c.Commands), jsonList(c.Errors),
				c.Sidechain, c.AgentID, c.Hash, rank.ChunkTerms(c))
		}
		rows, err := tx.QueryContext(ctx, `INSERT INTO chunks
			(project_id, session_id, seq, turn, win, first_line, last_line, start_ms, end_ms,
			 prompt, summary, text, tools, files, commands, errors, sidechain, agent_id, hash, terms)
			VALUES `+values(len(part), cols)+`
			ON CONFLICT (project_id, hash) DO NOTHING
			RETURNING id, hash`, args...)
		if err != nil {
			return nil, nil, wrapErr(fmt.Sprintf("apply: chunks %d-%d", part[0].Seq, part[len(part)-1].Seq), err)
		}
		for rows.Next() {
			var id int64
			var hash string
			if err := rows.Scan(&id, &hash); err != nil {
				rows.Close()
				return nil, nil, wrapErr("apply: chunks", err)
			}
			inserted[hash] = id
		}
		if err := rows.Close(); err != nil {
			return nil, nil, wrapErr("apply: chunks", err)
		}
		if err := rows.Err(); err != nil {
			return nil, nil, wrapErr("apply: chunks", err)
		}
	}
	if err := addSpans(ctx, tx, projectID, slices.Collect(maps.Values(inserted))); err != nil {
		return nil, nil, wrapErr("apply: chunk spans", err)
	}
	// A chunk not inserted has a duplicate, stored before or earlier in
	// this batch: the row with its hash.
	var existing *sql.Stmt
	var shared []carryover.Chunk
	for _, c := range chunks {
		if id, ok := inserted[c.Hash]; ok {
			ids[c.Seq] = id
			continue
		}
		if existing == nil {
			var err error
			if existing, err = tx.PrepareContext(ctx, `SELECT id, session_id FROM chunks WHERE project_id = ? AND hash = ?`); err != nil {
				return nil, nil, wrapErr("apply: chunks", err)
			}
			defer existing.Close()
		}
		var id int64
		var owner string
		if err := existing.QueryRowContext(ctx, projectID, c.Hash).Scan(&id, &owner); err != nil {
			return nil, nil, wrapErr(fmt.Sprintf("apply: chunk %d: find duplicate", c.Seq), err)
		}
		ids[c.Seq] = id
		if owner != sessionID {
			c.ID = id
			shared = append(shared, c)
		}
	}
	return ids, shared, nil
}

// insertShares records that the session holds the chunks, stored under
// other sessions, at the places the batch gives them. A share already
// recorded (the same lines ingested again) is kept as it is, as a
// session's own chunk keeps its row.
func insertShares(ctx context.Context, tx *sql.Tx, sessionID string, shared []carryover.Chunk) error {
	const cols = 7
	for start := 0; start < len(shared); start += rowsPerInsert {
		part := shared[start:min(start+rowsPerInsert, len(shared))]
		args := make([]any, 0, cols*len(part))
		for _, c := range part {
			args = append(args, sessionID, c.ID, c.Seq, c.Turn, c.Window, c.FirstLine, c.LastLine)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO chunk_shares
			(session_id, chunk_id, seq, turn, win, first_line, last_line) VALUES `+values(len(part), cols), args...); err != nil {
			return wrapErr("apply: shared chunks", err)
		}
	}
	return nil
}

func upsertItems(ctx context.Context, tx *sql.Tx, sessionID string, chunkIDs map[int]int64, items []carryover.Item) error {
	if len(items) == 0 {
		return nil
	}
	// Each item's chunk first: the statement below writes only items.
	chunks := make([]sql.NullInt64, len(items))
	var bySeq *sql.Stmt
	for i, it := range items {
		chunkID, ok := chunkIDs[it.ChunkSeq]
		if !ok {
			// The chunk came in an earlier batch.
			if bySeq == nil {
				var err error
				// The session's own chunk, else one it shares.
				if bySeq, err = tx.PrepareContext(ctx, `SELECT id FROM (SELECT id FROM chunks WHERE session_id = ?1 AND seq = ?2
					UNION ALL SELECT chunk_id FROM chunk_shares WHERE session_id = ?1 AND seq = ?2) LIMIT 1`); err != nil {
					return wrapErr("apply: items", err)
				}
				defer bySeq.Close()
			}
			err := bySeq.QueryRowContext(ctx, sessionID, it.ChunkSeq).Scan(&chunkID)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return wrapErr("apply: item chunk", err)
			}
			chunkIDs[it.ChunkSeq] = chunkID // 0 when unknown: stored as NULL
		}
		if chunkID != 0 {
			chunks[i] = sql.NullInt64{Int64: chunkID, Valid: true}
		}
	}
	var err error
	if items, chunks, err = mergeNewItems(ctx, tx, sessionID, items, chunks); err != nil {
		return err
	}
	const cols = 14
	for start := 0; start < len(items); start += rowsPerInsert {
		end := min(start+rowsPerInsert, len(items))
		args := make([]any, 0, cols*(end-start))
		for i := start; i < end; i++ {
			it := items[i]
			args = append(args, sessionID, chunks[i], it.ChunkSeq, string(it.Kind), it.Key, it.Text, it.Detail,
				it.Turn, it.Window, it.Line, ms(it.Time), it.Weight, it.Resolved, max(it.Count, 1))
		}
		// Rows later in the statement upsert onto rows earlier in it, as
		// separate statements would.
		if _, err := tx.ExecContext(ctx, `INSERT INTO items
		(session_id, chunk_id, chunk_seq, kind, key, text, detail, turn, win, line, time_ms, weight, resolved, count)
		VALUES `+values(end-start, cols)+`
		ON CONFLICT (session_id, kind, key) DO UPDATE SET
			chunk_id = CASE WHEN excluded.line > line THEN coalesce(excluded.chunk_id, chunk_id) ELSE chunk_id END,
			chunk_seq = CASE WHEN excluded.line > line THEN excluded.chunk_seq ELSE chunk_seq END,
			text = CASE WHEN excluded.line > line THEN excluded.text ELSE text END,
			detail = CASE WHEN excluded.detail <> '' AND (excluded.line > line OR detail = '')
				THEN excluded.detail ELSE detail END,
			turn = CASE WHEN excluded.line > line THEN excluded.turn ELSE turn END,
			win = CASE WHEN excluded.line > line THEN excluded.win ELSE win END,
			time_ms = CASE WHEN excluded.line > line THEN excluded.time_ms ELSE time_ms END,
			count = count + CASE WHEN excluded.line > line THEN excluded.count ELSE 0 END,
			line = max(line, excluded.line),
			weight = max(weight, excluded.weight),
			resolved = resolved OR excluded.resolved`, args...); err != nil {
			return wrapErr(fmt.Sprintf("apply: items %d-%d", start, end-1), err)
		}
	}
	return nil
}

// mergeNewItems merges the items of a batch that share a kind and key,
// as the upsert of upsertItems would merge them one after the other, when
// the session has no items stored yet (a first ingest): each is then
// indexed once. An update of an indexed row deletes its full-text entry,
// and FTS5 writes its pending terms to disk for each such delete: a cold
// ingest's repeated items (edits of one file, one command run again) cost
// more than all the others. With items stored, the upsert merges each
// occurrence with the stored row, in order, as before.
func mergeNewItems(ctx context.Context, tx *sql.Tx, sessionID string, items []carryover.Item, chunks []sql.NullInt64) ([]carryover.Item, []sql.NullInt64, error) {
	var stored bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM items WHERE session_id = ?)`, sessionID).Scan(&stored); err != nil {
		return nil, nil, wrapErr("apply: items", err)
	}
	if stored {
		return items, chunks, nil
	}
	type itemKey struct{ kind, key string }
	at := make(map[itemKey]int, len(items))
	outItems := make([]carryover.Item, 0, len(items))
	outChunks := make([]sql.NullInt64, 0, len(items))
	for i, it := range items {
		it.Count = max(it.Count, 1)
		k := itemKey{string(it.Kind), it.Key}
		j, ok := at[k]
		if !ok {
			at[k] = len(outItems)
			outItems = append(outItems, it)
			outChunks = append(outChunks, chunks[i])
			continue
		}
		// The upsert's SET clause, on the row so far (its line before this
		// occurrence's).
		e := &outItems[j]
		later := it.Line > e.Line
		if it.Detail != "" && (later || e.Detail == "") {
			e.Detail = it.Detail
		}
		if later {
			if chunks[i].Valid {
				outChunks[j] = chunks[i]
			}
			e.ChunkSeq, e.Text, e.Turn, e.Window, e.Time = it.ChunkSeq, it.Text, it.Turn, it.Window, it.Time
			e.Count += it.Count
			e.Line = it.Line
		}
		e.Weight = max(e.Weight, it.Weight)
		e.Resolved = e.Resolved || it.Resolved
	}
	return outItems, outChunks, nil
}

func upsertCompactions(ctx context.Context, tx *sql.Tx, sessionID string, cs []carryover.Compaction) error {
	for _, c := range cs {
		_, err := tx.ExecContext(ctx, `INSERT INTO compactions
			(session_id, win, trigger_type, pre_tokens, post_tokens, line, time_ms, summary)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_id, win) DO UPDATE SET
				trigger_type = CASE WHEN excluded.trigger_type <> '' THEN excluded.trigger_type ELSE trigger_type END,
				pre_tokens = CASE WHEN excluded.pre_tokens <> 0 THEN excluded.pre_tokens ELSE pre_tokens END,
				post_tokens = CASE WHEN excluded.post_tokens <> 0 THEN excluded.post_tokens ELSE post_tokens END,
				line = CASE WHEN excluded.line <> 0 THEN excluded.line ELSE line END,
				time_ms = CASE WHEN excluded.time_ms <> 0 THEN excluded.time_ms ELSE time_ms END,
				summary = CASE WHEN excluded.summary <> '' THEN excluded.summary ELSE summary END`,
			sessionID, c.Window, c.Trigger, c.PreTokens, c.PostTokens, c.Line, ms(c.Time), c.Summary)
		if err != nil {
			return wrapErr(fmt.Sprintf("apply: compaction %d", c.Window), err)
		}
	}
	return nil
}

// IngestState returns the session's ingest state, or an error wrapping
// carryover.ErrNotFound when the session is unknown.
func (s *Store) IngestState(ctx context.Context, sessionID string) (carryover.IngestState, error) {
	st := carryover.IngestState{SessionID: sessionID}
	err := s.db.QueryRowContext(ctx, `SELECT ingest_path, ingest_file_id, ingest_offset, ingest_line, ingest_cursor
		FROM sessions WHERE id = ?`, sessionID).Scan(&st.Path, &st.FileID, &st.Offset, &st.Line, &st.Cursor)
	if errors.Is(err, sql.ErrNoRows) {
		return carryover.IngestState{}, fmt.Errorf("ingest state of session %s: %w", sessionID, carryover.ErrNotFound)
	}
	if err != nil {
		return carryover.IngestState{}, wrapErr("ingest state of session "+sessionID, err)
	}
	return st, nil
}

// jsonList encodes a list as a JSON array ("[]" when empty).
func jsonList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l) // cannot fail for a []string
	return string(b)
}

// parseList decodes a JSON array; nil when empty.
func parseList(s string) ([]string, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var l []string
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return nil, err
	}
	return l, nil
}
