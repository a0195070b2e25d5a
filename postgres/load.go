package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
)

// Load bulk-loads chunks of one session with COPY, for copying an archive
// to the server and for benchmarks: the session is upserted as Apply does,
// the chunks are copied into a temporary table and inserted from there
// with their index and vectors, a chunk whose hash the owner already
// stored in the project being skipped. Items, compactions and ingest state are
// Apply's business. It returns how many chunks were new.
func (s *Store) Load(ctx context.Context, ss carryover.Session, chunks []carryover.Chunk) (n int64, err error) {
	b := cleanBatch(carryover.Batch{Session: ss, Chunks: chunks})
	if err := b.Validate(); err != nil {
		return 0, fmt.Errorf("load: %w", err)
	}
	vecs := s.embedChunks(b.Chunks)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, wrap("load: begin", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	sess, err := s.upsertSession(ctx, tx, b.Session)
	if err != nil {
		return 0, err
	}
	if len(b.Chunks) == 0 {
		return 0, wrap("load: commit", tx.Commit(ctx))
	}
	if ok, err := s.vectorsUsable(ctx, tx); err != nil {
		return 0, err
	} else if !ok {
		vecs = nil
	}
	vecType := "bytea"
	if s.pgvector {
		vecType = "real[]"
	}
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE load_chunks (
		id bigint, seq integer, turn integer, win integer, first_line integer, last_line integer,
		start_at timestamptz, end_at timestamptz, prompt text, summary text, text text,
		tools text[], files text[], commands text[], errors text[], sidechain boolean, agent_id text, hash text,
		tsv text, fts_len integer, vec `+vecType+`) ON COMMIT DROP`); err != nil {
		return 0, wrap("load: staging table", err)
	}
	ids, err := allocateIDs(ctx, tx, len(b.Chunks))
	if err != nil {
		return 0, err
	}
	cols := []string{"id", "seq", "turn", "win", "first_line", "last_line", "start_at", "end_at", "prompt", "summary", "text",
		"tools", "files", "commands", "errors", "sidechain", "agent_id", "hash", "tsv", "fts_len", "vec"}
	i := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if i >= len(b.Chunks) {
			return nil, nil
		}
		c := b.Chunks[i]
		ix := indexChunk(c)
		var vec any
		if vecs != nil {
			vec = s.vecValue(vecs[i])
		}
		row := []any{ids[i], c.Seq, c.Turn, c.Window, c.FirstLine, c.LastLine, ts(c.Start), ts(c.End), c.Prompt, c.Summary, c.Text,
			list(c.Tools), list(c.Files), list(c.Commands), list(c.Errors), c.Sidechain, c.AgentID, c.Hash, ix.tsv, ix.len, vec}
		i++
		return row, nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"load_chunks"}, cols, src); err != nil {
		return 0, wrap("load: copy", err)
	}
	vecExpr := "vec"
	if s.pgvector {
		vecExpr = "vec::vector"
	}
	var tokens int64
	err = tx.QueryRow(ctx, `WITH ins AS (INSERT INTO chunks (id, owner, team, project, session_id, seq, turn, win, first_line, last_line,
			start_at, end_at, prompt, summary, text, tools, files, commands, errors, sidechain, agent_id, hash, tsv, fts_len, vec)
		OVERRIDING SYSTEM VALUE
		SELECT id, $1, $2, $3, $4, seq, turn, win, first_line, last_line, start_at, end_at, prompt, summary, text,
			tools, files, commands, errors, sidechain, agent_id, hash, tsv::tsvector, fts_len, `+vecExpr+`
		FROM load_chunks ORDER BY hash
		ON CONFLICT (owner, project, hash) DO NOTHING RETURNING fts_len)
		SELECT count(*), coalesce(sum(fts_len), 0) FROM ins`, s.owner, sess.team, sess.project, sess.id).Scan(&n, &tokens)
	if err != nil {
		return 0, wrap("load: insert", err)
	}
	if err := countIndexed(ctx, tx, sess.id, s.owner, int(n), int(tokens)); err != nil {
		return 0, err
	}
	return n, wrap("load: commit", tx.Commit(ctx))
}
