package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/internal/rawblock"
)

// Apply writes a batch in one transaction: all of it or nothing. The
// merge rules are the embedded store's (see sqlite.Store.Apply): a session
// keeps non-empty fields, its earliest start and largest update, windows
// and turns; a chunk whose hash the owner already stored in the project is
// not stored again (the batch's items point at the stored row); an item
// per (session, kind, key) is merged (a later line replaces it and adds its
// count; Resolved is sticky, Weight the maximum); a compaction per
// (session, window) keeps non-empty fields; the ingest state is replaced;
// raw lines are added (or replaced) as carryover.Batch.Raw says, compressed
// before the transaction.
//
// New rows get the store's owner and the session's team (the batch's, else
// the store's); when a batch changes a session's team, its chunks, items
// and compactions follow. A chunk the owner stored under another of its
// sessions (a resumed session repeats the lines of the one it resumed) is
// recorded as shared by this one, at the batch's place (see
// sqlite.Store.Apply). A session is the owner's: another role's session
// of the same id is another session, which this batch neither reads nor
// changes. With row security, sharing with a team the role is not a member
// of fails, and a session shared with a team the role has since left
// becomes private. A batch with chunks then indexes again up to
// BackfillBatch chunks stored before schema version 4 (see Backfill).
func (s *Store) Apply(ctx context.Context, b carryover.Batch) error {
	if err := b.Validate(); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	b = cleanBatch(b)
	// Embed and compress before the transaction: they are the slow part.
	raw := s.prepareRaw(ctx, b)
	vecs := s.embedChunks(b.Chunks)
	rw, err := raw()
	if err != nil {
		return err
	}
	// Rows are written in key order, so concurrent batches wait for each
	// other rather than deadlock; a deadlock the server still detects (with
	// a writer that orders otherwise) is retried.
	for attempt := 0; ; attempt++ {
		err := s.apply(ctx, b, vecs, rw)
		if attempt < 3 && (isCode(err, "40P01") || isCode(err, "40001")) {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	return nil
}

// backfillAfter indexes again chunks stored before schema version 4, as a
// schema migrated from version 3 catches up as it is used, when the
// batch's transaction found any (backfillLeft asks it). The batch is
// stored whatever happens here: a failure (a hook's deadline) is not the
// batch's, and the next Apply tries again.
func (s *Store) backfillAfter(ctx context.Context, left bool) {
	if left {
		_, _ = s.Backfill(ctx, BackfillBatch)
	} else {
		s.indexed.Store(true)
	}
}

// backfillLeft asks whether any of the owner's chunks waits for Backfill.
const backfillLeft = `SELECT EXISTS (SELECT 1 FROM chunks c WHERE c.fts_len IS NULL AND c.owner = $1)`

func (s *Store) apply(ctx context.Context, b carryover.Batch, vecs [][]float32, raw *rawWrite) (err error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return wrap("apply: begin", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	// A server may be a network away: the transaction's statements go in
	// three batches, a round trip each, between its begin and commit. The
	// first writes the session's row, which holds the session's key until
	// commit, then reads what the others need: whether the session (and
	// its parent) were forgotten, the chunks' ids and where the raw lines
	// and passages go on. A forget locks the session's row first (see
	// Prune): either it waits for this transaction, or this one waited for
	// it, and then the check, a later statement, sees its record. Only the
	// owner can lock that row, so no other role can hold an Apply up.
	pre, err := s.applyFirst(ctx, tx, b, raw)
	if err != nil {
		return err
	}
	sess := pre.sess
	if pre.oldTeam != nil && *pre.oldTeam != sess.team {
		if err := s.shareSessionRows(ctx, tx, sess); err != nil {
			return err
		}
	}
	if pre.gone {
		return fmt.Errorf("apply %s: %w", b.Session.ID, carryover.ErrForgotten)
	}
	if pre.parentGone {
		return fmt.Errorf("apply %s: %w (subagent %s)", b.Session.Parent, carryover.ErrForgotten, b.Session.ID)
	}
	if len(b.Chunks) == 0 {
		vecs = nil
	} else if ok, err := s.vectorsUsable(ctx, tx); err != nil {
		return err
	} else if !ok {
		vecs = nil
	}
	// The second batch: the chunks, whose ids the items need.
	chunkIDs, shared, added, tokens, err := s.insertChunks(ctx, tx, sess, b.Chunks, vecs, pre.ids)
	if err != nil {
		return err
	}
	// The third: everything else, in the order the rows were always
	// written in (concurrent batches wait for each other rather than
	// deadlock).
	var last steps
	queueCountIndexed(&last, sess.id, s.owner, added, tokens)
	s.queueShares(&last, sess, shared)
	s.queueItems(&last, sess, chunkIDs, b.Items)
	s.queueCompactions(&last, sess, b.Compactions)
	if err := s.queueRaw(ctx, tx, &last, sess, b, raw, pre); err != nil {
		return err
	}
	kinds := make([]string, 0, len(b.Redactions))
	for kind := range b.Redactions {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		n := b.Redactions[kind]
		if n <= 0 {
			continue
		}
		last.batch.Queue(`INSERT INTO redactions (owner, team, project, kind, count) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (owner, project, kind) DO UPDATE SET count = redactions.count + excluded.count`,
			s.owner, sess.team, sess.project, kind, n)
		last.end("apply: redactions")
	}
	st := b.State
	last.batch.Queue(`UPDATE sessions SET ingest_path = $1, ingest_file_id = $2,
		ingest_offset = $3, ingest_line = $4, ingest_cursor = $5 WHERE id = $6 AND owner = $7`,
		st.Path, st.FileID, st.Offset, st.Line, st.Cursor, b.Session.ID, s.owner)
	last.end("apply: ingest state")
	// Whether chunks stored before schema version 4 wait for Backfill, in
	// the same round trip (a new process knows nothing of it yet).
	var left bool
	ask := len(b.Chunks) > 0 && !s.indexed.Load()
	if ask {
		last.query(func(r pgx.Row) error { return r.Scan(&left) }, backfillLeft, s.owner)
		last.end("apply: backfill")
	}
	if err := last.send(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return wrap("apply: commit", err)
	}
	if ask {
		s.backfillAfter(ctx, left)
	}
	return nil
}

// steps is a batch of statements whose results are not read, each group
// named for its errors.
type steps struct {
	batch  pgx.Batch
	ends   []int // the batch's length after each group
	labels []string
	scans  map[int]func(pgx.Row) error // the statements whose row is read
}

// query queues a statement whose one row scan reads.
func (st *steps) query(scan func(pgx.Row) error, sql string, args ...any) {
	if st.scans == nil {
		st.scans = map[int]func(pgx.Row) error{}
	}
	st.scans[st.batch.Len()] = scan
	st.batch.Queue(sql, args...)
}

// end names the statements queued since the last group's end.
func (st *steps) end(label string) {
	if n := st.batch.Len(); len(st.ends) == 0 || st.ends[len(st.ends)-1] < n {
		st.ends = append(st.ends, n)
		st.labels = append(st.labels, label)
	}
}

// send runs the batch in tx, one round trip, and returns the first
// statement's error, wrapped with its group's name.
func (st *steps) send(ctx context.Context, tx pgx.Tx) error {
	if st.batch.Len() == 0 {
		return nil
	}
	br := tx.SendBatch(ctx, &st.batch)
	g := 0
	for i := range st.batch.Len() {
		for g < len(st.ends)-1 && i >= st.ends[g] {
			g++
		}
		var err error
		if scan := st.scans[i]; scan != nil {
			err = scan(br.QueryRow())
		} else {
			_, err = br.Exec()
		}
		if err != nil {
			br.Close()
			label := "apply"
			if g < len(st.labels) {
				label = st.labels[g]
			}
			return wrap(label, err)
		}
	}
	return wrap("apply", br.Close())
}

// applied is what an Apply's first batch wrote and read.
type applied struct {
	sess             session
	oldTeam          *string
	gone, parentGone bool
	ids              []int64         // for the batch's chunks, in order
	rawTail          *rawblock.Block // the stored tail block, without its data
	passageMark      int
}

// applyFirst runs an Apply's first batch (see apply).
func (s *Store) applyFirst(ctx context.Context, tx pgx.Tx, b carryover.Batch, raw *rawWrite) (applied, error) {
	var pre applied
	pre.sess.id = b.Session.ID
	batch := &pgx.Batch{}
	q, args := s.sessionUpsert(b.Session)
	batch.Queue(q, args...).QueryRow(func(r pgx.Row) error {
		return r.Scan(&pre.sess.project, &pre.sess.team, &pre.oldTeam)
	})
	batch.Queue(forgottenQuery, s.owner, carryover.ForgottenKey(b.Session.ID)).QueryRow(func(r pgx.Row) error {
		return r.Scan(&pre.gone)
	})
	if p := b.Session.Parent; p != "" {
		// A subagent of a forgotten session is forgotten with it. The
		// parent's row, when there is one, is held so that a forget of the
		// parent (which locks it) either sees this subagent or is seen.
		batch.Queue(`SELECT 1 FROM sessions WHERE id = $1 AND owner = $2 FOR SHARE`, p, s.owner)
		batch.Queue(forgottenQuery, s.owner, carryover.ForgottenKey(p)).QueryRow(func(r pgx.Row) error {
			return r.Scan(&pre.parentGone)
		})
	}
	if n := len(b.Chunks); n > 0 {
		batch.Queue(allocateQuery, n).QueryRow(func(r pgx.Row) error { return r.Scan(&pre.ids) })
	}
	if raw != nil {
		// Read after the session's row is locked: no other Apply of the
		// session changes them until commit.
		q, args := s.rawTailQuery(b.Session.ID, raw.from, false)
		batch.Queue(q, args...).QueryRow(func(r pgx.Row) (err error) {
			pre.rawTail, err = scanRawTail(r)
			return err
		})
		batch.Queue(passageMarkQuery, b.Session.ID, s.owner).QueryRow(func(r pgx.Row) error {
			return scanMark(r, &pre.passageMark)
		})
	}
	err := tx.SendBatch(ctx, batch).Close()
	if isCode(err, "42501") {
		team := cmp.Or(b.Session.Team, s.team)
		return pre, fmt.Errorf("apply: session %s: %w (row security: the owner, %s, must be the role connected as, and the team, %q, empty or a role it is a member of)",
			b.Session.ID, err, s.owner, team)
	}
	if err != nil {
		return pre, wrap("apply: session", err)
	}
	return pre, nil
}

// session is what a batch's rows take from their stored session.
type session struct {
	id, project, team string
}

func (s *Store) upsertSession(ctx context.Context, tx pgx.Tx, ss carryover.Session) (session, error) {
	out := session{id: ss.ID}
	var oldTeam *string
	q, args := s.sessionUpsert(ss)
	err := tx.QueryRow(ctx, q, args...).Scan(&out.project, &out.team, &oldTeam)
	if isCode(err, "42501") {
		return out, fmt.Errorf("apply: session %s: %w (row security: the owner, %s, must be the role connected as, and the team, %q, empty or a role it is a member of)",
			ss.ID, err, s.owner, cmp.Or(ss.Team, s.team))
	}
	if err != nil {
		return out, wrap("apply: session", err)
	}
	if oldTeam != nil && *oldTeam != out.team {
		if err := s.shareSessionRows(ctx, tx, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// shareSessionRows carries a session's changed team to its other rows.
func (s *Store) shareSessionRows(ctx context.Context, tx pgx.Tx, sess session) error {
	for _, table := range []string{"chunks", "items", "compactions", "raw_blocks", "chunk_shares", "passages", "passage_marks"} {
		if _, err := tx.Exec(ctx, `UPDATE `+table+` SET team = $1 WHERE session_id = $2 AND owner = $3`, sess.team, sess.id, s.owner); err != nil {
			return wrap("apply: share "+table, err)
		}
	}
	return nil
}

// sessionUpsert is the statement that writes a batch's session and
// returns its project, its team and its team before the statement.
func (s *Store) sessionUpsert(ss carryover.Session) (string, []any) {
	team := ss.Team
	if team == "" {
		team = s.team
	}
	// The CTE reads the row as it was before the statement: a changed team
	// must be carried to the session's other rows. A team the role may no
	// longer share with (row security is on and it left the team) is
	// dropped rather than kept, which would fail the write.
	return `WITH old AS (SELECT team FROM sessions WHERE id = $1 AND owner = $2)
		INSERT INTO sessions (id, owner, team, project, transcript_path, version, title, started, updated, windows, turns,
			parent, cwd, branch)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $13, $14, $15)
		ON CONFLICT (id, owner) DO UPDATE SET
			project = CASE WHEN sessions.project = '' THEN excluded.project ELSE sessions.project END,
			parent = CASE WHEN sessions.parent = '' THEN excluded.parent ELSE sessions.parent END,
			cwd = CASE WHEN sessions.cwd = '' THEN excluded.cwd ELSE sessions.cwd END,
			branch = CASE WHEN excluded.branch <> '' THEN excluded.branch ELSE sessions.branch END,
			transcript_path = CASE WHEN excluded.transcript_path <> '' THEN excluded.transcript_path ELSE sessions.transcript_path END,
			version = CASE WHEN excluded.version <> '' THEN excluded.version ELSE sessions.version END,
			title = CASE WHEN excluded.title <> '' THEN excluded.title ELSE sessions.title END,
			started = CASE WHEN sessions.started IS NULL OR excluded.started < sessions.started
				THEN coalesce(excluded.started, sessions.started) ELSE sessions.started END,
			updated = greatest(sessions.updated, excluded.updated),
			windows = greatest(sessions.windows, excluded.windows),
			turns = greatest(sessions.turns, excluded.turns),
			team = CASE WHEN $12 <> '' THEN $12
				WHEN sessions.team = '' OR NOT row_security_active('sessions') OR sessions.team = ANY (carryover_teams())
				THEN sessions.team ELSE '' END
		RETURNING project, team, (SELECT team FROM old)`,
		[]any{ss.ID, s.owner, team, ss.Project, ss.TranscriptPath, ss.Version, ss.Title, ts(ss.Started), ts(ss.Updated),
			ss.Windows, ss.Turns, ss.Team, ss.Parent, ss.Cwd, ss.Branch}
}

// vecArg renders the placeholder of a vector parameter: a bytea, or a
// real[] cast to pgvector's type.
func (s *Store) vecArg(n int) string {
	if s.pgvector {
		return fmt.Sprintf("$%d::real[]::vector", n)
	}
	return fmt.Sprintf("$%d", n)
}

// insertChunks stores new chunks and returns the row id of each chunk of
// the batch by Seq, the stored row's id for a duplicate, and the
// duplicates whose row is another session's (with their row's id in ID).
// vecs is nil when vectors are not stored. The new chunks' tokens are
// added to the session's index statistics.
func (s *Store) insertChunks(ctx context.Context, tx pgx.Tx, sess session, chunks []carryover.Chunk, vecs [][]float32, newIDs []int64) (
	ids map[int]int64, shared []carryover.Chunk, added, tokens int, err error) {
	ids = make(map[int]int64, len(chunks))
	if len(chunks) == 0 {
		return ids, nil, 0, 0, nil
	}
	if len(newIDs) != len(chunks) {
		return nil, nil, 0, 0, fmt.Errorf("apply: %d chunk ids for %d chunks", len(newIDs), len(chunks))
	}
	// The union's second part does not see the first's insert (one
	// snapshot): at most one id comes back. None comes back when a
	// concurrent Apply inserted the same chunk first: this insert waits for
	// it, then does nothing, and the row it committed meanwhile is newer
	// than the statement's snapshot (see the second read below).
	q := `WITH ins AS (INSERT INTO chunks (id, owner, team, project, session_id, seq, turn, win, first_line, last_line,
			start_at, end_at, prompt, summary, text, tools, files, commands, errors, sidechain, agent_id, hash, tsv, fts_len, vec)
		OVERRIDING SYSTEM VALUE
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
			$23::tsvector, $24, ` + s.vecArg(25) + `)
		ON CONFLICT (owner, project, hash) DO NOTHING RETURNING id, session_id)
		SELECT id, true, session_id FROM ins
		UNION ALL SELECT id, false, session_id FROM chunks WHERE owner = $2 AND project = $4 AND hash = $22 LIMIT 1`
	// Rows are written in key order, so concurrent batches wait for each
	// other rather than deadlock.
	order := make([]int, len(chunks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return chunks[order[i]].Hash < chunks[order[j]].Hash })
	lens := make([]int, len(chunks))
	batch := &pgx.Batch{}
	for _, i := range order {
		c := chunks[i]
		ix := indexChunk(c)
		lens[i] = ix.len
		var vec any
		if vecs != nil {
			vec = s.vecValue(vecs[i])
		}
		batch.Queue(q, newIDs[i], s.owner, sess.team, sess.project, sess.id, c.Seq, c.Turn, c.Window, c.FirstLine, c.LastLine,
			ts(c.Start), ts(c.End), c.Prompt, c.Summary, c.Text, list(c.Tools), list(c.Files), list(c.Commands), list(c.Errors),
			c.Sidechain, c.AgentID, c.Hash, ix.tsv, ix.len, vec)
	}
	br := tx.SendBatch(ctx, batch)
	var raced []carryover.Chunk
	for _, i := range order {
		c := chunks[i]
		var id int64
		var inserted bool
		var holder string
		err := br.QueryRow().Scan(&id, &inserted, &holder)
		if errors.Is(err, pgx.ErrNoRows) {
			raced = append(raced, c)
			continue
		}
		if err != nil {
			br.Close()
			return nil, nil, 0, 0, wrap(fmt.Sprintf("apply: chunk %d", c.Seq), err)
		}
		ids[c.Seq] = id
		if inserted {
			added++
			tokens += lens[i]
		} else if holder != sess.id {
			c.ID = id
			shared = append(shared, c)
		}
	}
	if err := br.Close(); err != nil {
		return nil, nil, 0, 0, wrap("apply: chunks", err)
	}
	// A later statement of this (read committed) transaction sees the row
	// the concurrent Apply committed.
	for _, c := range raced {
		var id int64
		var holder string
		if err := tx.QueryRow(ctx, `SELECT id, session_id FROM chunks WHERE owner = $1 AND project = $2 AND hash = $3`,
			s.owner, sess.project, c.Hash).Scan(&id, &holder); err != nil {
			return nil, nil, 0, 0, wrap(fmt.Sprintf("apply: chunk %d", c.Seq), err)
		}
		ids[c.Seq] = id
		if holder != sess.id {
			c.ID = id
			shared = append(shared, c)
		}
	}
	return ids, shared, added, tokens, nil
}

// queueShares records that the session holds the chunks, stored under
// other sessions of the owner, at the places the batch gives them. A share
// already recorded (the same lines ingested again) is kept as it is, as a
// session's own chunk keeps its row.
func (s *Store) queueShares(st *steps, sess session, shared []carryover.Chunk) {
	// In key order, as the chunks.
	slices.SortFunc(shared, func(a, b carryover.Chunk) int { return cmp.Compare(a.ID, b.ID) })
	for _, c := range shared {
		st.batch.Queue(`INSERT INTO chunk_shares (owner, team, project, session_id, chunk_id, seq, turn, win, first_line, last_line)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (session_id, owner, chunk_id) DO NOTHING`,
			s.owner, sess.team, sess.project, sess.id, c.ID, c.Seq, c.Turn, c.Window, c.FirstLine, c.LastLine)
	}
	st.end("apply: shared chunks")
}

// allocateQuery takes $1 chunk ids from the identity's sequence, in
// order: in the batch's order, as the embedded store's rowids (BM25 ties
// are broken by id, and a turn's chunks follow each other).
const allocateQuery = `SELECT array_agg(v ORDER BY v) FROM (SELECT nextval(pg_get_serial_sequence('chunks', 'id')) AS v
	FROM generate_series(1, $1)) x`

// allocateIDs takes n chunk ids from the identity's sequence, in order.
func allocateIDs(ctx context.Context, tx pgx.Tx, n int) ([]int64, error) {
	var ids []int64
	err := tx.QueryRow(ctx, allocateQuery, n).Scan(&ids)
	if err != nil {
		return nil, wrap("apply: chunk ids", err)
	}
	return ids, nil
}

// countIndexed adds chunks and tokens newly indexed to the statistics of
// the owner's session.
func countIndexed(ctx context.Context, tx pgx.Tx, sessionID, owner string, chunks, tokens int) error {
	if chunks == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, countIndexedQuery, chunks, tokens, sessionID, owner)
	return wrap("apply: index statistics", err)
}

const countIndexedQuery = `UPDATE sessions SET fts_chunks = fts_chunks + $1, fts_tokens = fts_tokens + $2 WHERE id = $3 AND owner = $4`

// queueCountIndexed is countIndexed in a batch.
func queueCountIndexed(st *steps, sessionID, owner string, chunks, tokens int) {
	if chunks > 0 {
		st.batch.Queue(countIndexedQuery, chunks, tokens, sessionID, owner)
		st.end("apply: index statistics")
	}
}

// vecValue is a vector as the vector column takes it.
func (s *Store) vecValue(v []float32) any {
	if s.pgvector {
		return v
	}
	return embedding.Quantize(v)
}

func list(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func (s *Store) queueItems(st *steps, sess session, chunkIDs map[int]int64, items []carryover.Item) {
	// A chunk of an earlier batch is found by its seq: the session's own,
	// else one it shares.
	const q = `INSERT INTO items (owner, team, project, session_id, chunk_id, chunk_seq, kind, key, text, detail,
			turn, win, line, time, weight, resolved, count)
		VALUES ($1, $2, $3, $4, coalesce($5, (SELECT id FROM chunks WHERE session_id = $4 AND owner = $1 AND seq = $6 LIMIT 1),
				(SELECT chunk_id FROM chunk_shares WHERE session_id = $4 AND owner = $1 AND seq = $6 LIMIT 1)),
			$6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
		ON CONFLICT (session_id, owner, kind, key) DO UPDATE SET
			chunk_id = CASE WHEN excluded.line > items.line THEN coalesce(excluded.chunk_id, items.chunk_id) ELSE items.chunk_id END,
			chunk_seq = CASE WHEN excluded.line > items.line THEN excluded.chunk_seq ELSE items.chunk_seq END,
			text = CASE WHEN excluded.line > items.line THEN excluded.text ELSE items.text END,
			detail = CASE WHEN excluded.detail <> '' AND (excluded.line > items.line OR items.detail = '')
				THEN excluded.detail ELSE items.detail END,
			turn = CASE WHEN excluded.line > items.line THEN excluded.turn ELSE items.turn END,
			win = CASE WHEN excluded.line > items.line THEN excluded.win ELSE items.win END,
			time = CASE WHEN excluded.line > items.line THEN excluded.time ELSE items.time END,
			count = items.count + CASE WHEN excluded.line > items.line THEN excluded.count ELSE 0 END,
			line = greatest(items.line, excluded.line),
			weight = greatest(items.weight, excluded.weight),
			resolved = items.resolved OR excluded.resolved`
	for _, it := range items {
		var chunk *int64
		if id, ok := chunkIDs[it.ChunkSeq]; ok {
			chunk = &id
		}
		st.batch.Queue(q, s.owner, sess.team, sess.project, sess.id, chunk, it.ChunkSeq, string(it.Kind), it.Key, it.Text, it.Detail,
			it.Turn, it.Window, it.Line, ts(it.Time), it.Weight, it.Resolved, max(it.Count, 1))
		st.end(fmt.Sprintf("apply: item %s %q", it.Kind, it.Key))
	}
}

func (s *Store) queueCompactions(st *steps, sess session, cs []carryover.Compaction) {
	for _, c := range cs {
		st.batch.Queue(`INSERT INTO compactions
			(owner, team, project, session_id, win, trigger_type, pre_tokens, post_tokens, line, time, summary)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (session_id, owner, win) DO UPDATE SET
				trigger_type = CASE WHEN excluded.trigger_type <> '' THEN excluded.trigger_type ELSE compactions.trigger_type END,
				pre_tokens = CASE WHEN excluded.pre_tokens <> 0 THEN excluded.pre_tokens ELSE compactions.pre_tokens END,
				post_tokens = CASE WHEN excluded.post_tokens <> 0 THEN excluded.post_tokens ELSE compactions.post_tokens END,
				line = CASE WHEN excluded.line <> 0 THEN excluded.line ELSE compactions.line END,
				time = coalesce(excluded.time, compactions.time),
				summary = CASE WHEN excluded.summary <> '' THEN excluded.summary ELSE compactions.summary END`,
			s.owner, sess.team, sess.project, sess.id, c.Window, c.Trigger, c.PreTokens, c.PostTokens, c.Line, ts(c.Time), c.Summary)
		st.end(fmt.Sprintf("apply: compaction %d", c.Window))
	}
}

// IngestState returns the ingest state of the owner's session, or an error
// wrapping carryover.ErrNotFound when the owner has no such session: how
// far another role (a teammate) archived a session of that id says nothing
// about the owner's.
func (s *Store) IngestState(ctx context.Context, sessionID string) (carryover.IngestState, error) {
	q, args := s.ingestStateQuery(sessionID)
	return scanIngestState(s.pool.QueryRow(ctx, q, args...), sessionID)
}

// IngestStateAndSession reads the session's ingest state and the session
// without its counts in one round trip (carryover.IngestStateSession).
func (s *Store) IngestStateAndSession(ctx context.Context, sessionID string) (carryover.IngestState, carryover.Session, bool, error) {
	if sessionID == "" {
		// No session to list (an empty prefix would list them all).
		state, err := s.IngestState(ctx, sessionID)
		return state, carryover.Session{}, false, err
	}
	var state carryover.IngestState
	var stateErr error
	var ss []carryover.Session
	batch := &pgx.Batch{}
	q, args := s.ingestStateQuery(sessionID)
	batch.Queue(q, args...).QueryRow(func(row pgx.Row) error {
		state, stateErr = scanIngestState(row, sessionID)
		return nil // reported below: a missing state is no failure of the batch
	})
	q, args = s.sessionsQuery(carryover.SessionWithoutCountsFilter(sessionID))
	queueCollect(batch, q, args, "sessions", sessionRow, &ss)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return carryover.IngestState{}, carryover.Session{}, false, wrap("ingest state and session", err)
	}
	if stateErr != nil {
		return state, carryover.Session{}, false, stateErr
	}
	sess, err := carryover.PickSession(ss, sessionID)
	return state, sess, err == nil, nil
}

// ingestStateQuery is IngestState's query and its parameters.
func (s *Store) ingestStateQuery(sessionID string) (string, []any) {
	return `SELECT ingest_path, ingest_file_id, ingest_offset, ingest_line, ingest_cursor
		FROM sessions WHERE id = $1 AND owner = $2`, []any{sessionID, s.owner}
}

// scanIngestState reads the row of ingestStateQuery.
func scanIngestState(row pgx.Row, sessionID string) (carryover.IngestState, error) {
	st := carryover.IngestState{SessionID: sessionID}
	err := row.Scan(&st.Path, &st.FileID, &st.Offset, &st.Line, &st.Cursor)
	if errors.Is(err, pgx.ErrNoRows) {
		return carryover.IngestState{}, fmt.Errorf("ingest state of session %s: %w", sessionID, carryover.ErrNotFound)
	}
	if err != nil {
		return carryover.IngestState{}, wrap("ingest state of session "+sessionID, err)
	}
	return st, nil
}

// clean makes text storable: PostgreSQL's text takes neither NUL bytes
// nor invalid UTF-8, which a transcript may hold.
func clean(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func cleanList(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = clean(s)
	}
	return out
}

// cleanBatch returns b with every stored text cleaned (see clean); the
// caller's batch is not changed.
func cleanBatch(b carryover.Batch) carryover.Batch {
	ss := &b.Session
	ss.Project, ss.TranscriptPath, ss.Version, ss.Title = clean(ss.Project), clean(ss.TranscriptPath), clean(ss.Version), clean(ss.Title)
	b.Chunks = append([]carryover.Chunk(nil), b.Chunks...)
	for i := range b.Chunks {
		c := &b.Chunks[i]
		c.Prompt, c.Summary, c.Text, c.AgentID, c.Hash = clean(c.Prompt), clean(c.Summary), clean(c.Text), clean(c.AgentID), clean(c.Hash)
		c.Tools, c.Files, c.Commands, c.Errors = cleanList(c.Tools), cleanList(c.Files), cleanList(c.Commands), cleanList(c.Errors)
	}
	b.Items = append([]carryover.Item(nil), b.Items...)
	for i := range b.Items {
		it := &b.Items[i]
		it.Text, it.Detail, it.Key = clean(it.Text), clean(it.Detail), clean(it.Key)
	}
	b.Compactions = append([]carryover.Compaction(nil), b.Compactions...)
	for i := range b.Compactions {
		c := &b.Compactions[i]
		c.Trigger, c.Summary = clean(c.Trigger), clean(c.Summary)
	}
	b.State.Path, b.State.FileID = clean(b.State.Path), clean(b.State.FileID)
	return b
}
