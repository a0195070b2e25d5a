package sqlite

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
)

// checkSpans fails t unless every chunk at or above spans_below lies in
// exactly one span, of its own project, and returns the spans.
func checkSpans(t *testing.T, st *Store) []span {
	t.Helper()
	ctx := context.Background()
	spans, err := readSpans(ctx, st.db, `SELECT lo, hi, project_id FROM chunk_spans ORDER BY lo`)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(spans); i++ {
		if spans[i].lo <= spans[i-1].hi || spans[i].lo > spans[i].hi {
			t.Fatalf("spans overlap or are empty: %v", spans)
		}
	}
	var below int64
	if err := st.db.QueryRow(`SELECT value FROM meta WHERE key = 'spans_below'`).Scan(&below); err != nil {
		t.Fatal(err)
	}
	rows, err := st.db.Query(`SELECT id, project_id FROM chunks WHERE id >= ? ORDER BY id`, below)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, project int64
		if err := rows.Scan(&id, &project); err != nil {
			t.Fatal(err)
		}
		i, _ := slices.BinarySearchFunc(spans, id, func(s span, id int64) int {
			switch {
			case s.hi < id:
				return -1
			case s.lo > id:
				return 1
			}
			return 0
		})
		if i == len(spans) || spans[i].lo > id || spans[i].hi < id || spans[i].project != project {
			t.Fatalf("chunk %d of project %d is in no span of its project (below %d): %v", id, project, below, spans)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return spans
}

// TestSpans: the spans follow batches of interleaved projects, the reuse
// of the ids of deleted chunks, a chunk moved to another project and a
// store migrated from before them, and a search of a project finds by
// them what it finds by the project index.
func TestSpans(t *testing.T) {
	ctx := context.Background()
	st := newSpanStore(t)
	n := 0
	apply := func(session, project string, chunks int) {
		t.Helper()
		var cs []carryover.Chunk
		for i := range chunks {
			n++
			text := fmt.Sprintf("osprey step %d in %s", n, project)
			if n%3 == 0 {
				text += " with a heron"
			}
			cs = append(cs, carryover.Chunk{Seq: n, Turn: n, Hash: fmt.Sprint(session, n, i), Text: text})
		}
		if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: session, Project: project}, Chunks: cs}); err != nil {
			t.Fatal(err)
		}
	}
	same := func(what string) {
		t.Helper()
		sameBySpans(t, st, what, "osprey heron", "/a", "/b", "/c")
	}

	apply("s1", "/a", 4)
	apply("s2", "/b", 3)
	apply("s1", "/a", 2)
	apply("s1", "/a", 2) // joins the span before it
	apply("s3", "/c", 5)
	if spans := checkSpans(t, st); len(spans) != 4 {
		t.Fatalf("%d spans of batches a b a a c, want 4: %v", len(spans), spans)
	}
	same("interleaved batches")

	// The newest chunks deleted, their ids are given again to another
	// project's: the spans that held them give them up.
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s3"}); err != nil {
		t.Fatal(err)
	}
	apply("s4", "/b", 3)
	checkSpans(t, st)
	same("ids reused")
	if hits, err := st.Search(ctx, carryover.Query{Text: "osprey heron", Project: "/c"}); err != nil || len(hits) != 0 {
		t.Fatalf("search of /c, all pruned, found %d hits (%v)", len(hits), err)
	}

	// A chunk moved to another project drops the spans; Backfill puts
	// every chunk back, a few at a time, and joins runs across its steps.
	if _, err := st.db.Exec(`UPDATE chunks SET project_id = (SELECT id FROM projects WHERE root = '/b')
		WHERE id = (SELECT min(id) FROM chunks)`); err != nil {
		t.Fatal(err)
	}
	if spans := checkSpans(t, st); len(spans) != 0 {
		t.Fatalf("spans kept after a chunk moved: %v", spans)
	}
	same("spans dropped")
	for {
		k, err := st.backfillSpans(ctx, 3)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			break
		}
		checkSpans(t, st)
	}
	// b a b a b: the moved chunk, the rest of s1's first batch, s2's,
	// s1's later ones, s4's.
	if spans := checkSpans(t, st); len(spans) != 5 {
		t.Fatalf("%d spans after the backfill, want 5: %v", len(spans), spans)
	}
	same("backfilled")
	apply("s5", "/b", 2) // joins the last span
	if spans := checkSpans(t, st); len(spans) != 5 {
		t.Fatalf("%d spans after a batch of the last span's project, want 5: %v", len(spans), spans)
	}

	// A store from before the spans: migrated, it searches by the project
	// index until Apply's backfill has put every chunk in a span.
	if _, err := st.db.Exec(`DROP TRIGGER chunks_spans_au; DROP TRIGGER chunks_spans_ad; DROP TABLE chunk_spans; DELETE FROM meta WHERE key = 'spans_below'; PRAGMA user_version = 13`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err := Open(ctx, st.abs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if spans := checkSpans(t, st); len(spans) != 0 {
		t.Fatalf("spans right after the migration: %v", spans)
	}
	same("migrated")
	apply("s6", "/c", 1)
	var below int64
	if err := st.db.QueryRow(`SELECT value FROM meta WHERE key = 'spans_below'`).Scan(&below); err != nil || below != 1 {
		t.Fatalf("spans_below %d (%v) after a batch's backfill, want 1", below, err)
	}
	if spans := checkSpans(t, st); len(spans) != 6 {
		t.Fatalf("%d spans after the migration's backfill, want 6: %v", len(spans), spans)
	}
	same("migrated and backfilled")
}

// TestCheckRepairsSpans: doctor's check finds spans that disagree with the
// chunks, drops them for Backfill to build again, and leaves good ones.
func TestCheckRepairsSpans(t *testing.T) {
	ctx := context.Background()
	st := newSpanStore(t)
	for i, p := range []string{"/a", "/b", "/a"} {
		cs := []carryover.Chunk{{Seq: i, Turn: i, Hash: fmt.Sprint(i), Text: "osprey"}, {Seq: 10 + i, Turn: i, Hash: fmt.Sprint(10 + i), Text: "heron"}}
		if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: fmt.Sprint("s", i), Project: p}, Chunks: cs}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := st.Check(ctx)
	if err != nil || h.SpansDropped != 0 || len(checkSpans(t, st)) != 3 {
		t.Fatalf("check of good spans: %+v, %v", h, err)
	}
	for _, damage := range []string{
		`UPDATE chunk_spans SET project_id = project_id + 1 WHERE lo = (SELECT max(lo) FROM chunk_spans)`, // a chunk in another project's span
		`UPDATE chunk_spans SET hi = hi + 1 WHERE lo = (SELECT min(lo) FROM chunk_spans)`,                 // overlapping spans
		`DELETE FROM chunk_spans WHERE lo = (SELECT min(lo) FROM chunk_spans)`,                            // chunks in no span
	} {
		if _, err := st.db.Exec(damage); err != nil {
			t.Fatal(err)
		}
		h, err := st.Check(ctx)
		if err != nil || h.SpansDropped == 0 {
			t.Fatalf("%s: check found %d, %v; want the damage found", damage, h.SpansDropped, err)
		}
		if spans := checkSpans(t, st); len(spans) != 0 {
			t.Fatalf("%s: spans kept after the check: %v", damage, spans)
		}
		if _, err := st.backfillSpans(ctx, 100); err != nil {
			t.Fatal(err)
		}
		if spans := checkSpans(t, st); len(spans) != 3 {
			t.Fatalf("%s: %d spans built again, want 3: %v", damage, len(spans), spans)
		}
	}
}

// sameBySpans fails t unless a search of text in each project finds by
// the spans what it finds by the project index (spans_below above 1).
func sameBySpans(t *testing.T, st *Store, what, text string, projects ...string) {
	t.Helper()
	ctx := context.Background()
	search := func(project string) []carryover.Hit {
		t.Helper()
		hits, err := st.Search(ctx, carryover.Query{Text: text, Project: project, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	byIndex := func(project string) []carryover.Hit {
		t.Helper()
		var below int64
		if err := st.db.QueryRow(`SELECT value FROM meta WHERE key = 'spans_below'`).Scan(&below); err != nil {
			t.Fatal(err)
		}
		if _, err := st.db.Exec(`UPDATE meta SET value = 1 << 62 WHERE key = 'spans_below'`); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if _, err := st.db.Exec(`UPDATE meta SET value = ? WHERE key = 'spans_below'`, below); err != nil {
				t.Fatal(err)
			}
		}()
		return search(project)
	}
	for _, p := range projects {
		got, want := search(p), byIndex(p)
		if len(got) != len(want) {
			t.Fatalf("%s: %s: %d hits by the spans, %d by the project index", what, p, len(got), len(want))
		}
		for i := range got {
			if got[i].Chunk.ID != want[i].Chunk.ID || got[i].Score != want[i].Score || got[i].Chunk.Project != p {
				t.Fatalf("%s: %s: hit %d is chunk %d of %s (%g) by the spans, %d (%g) by the project index",
					what, p, i, got[i].Chunk.ID, got[i].Chunk.Project, got[i].Score, want[i].Chunk.ID, want[i].Score)
			}
		}
	}
}

// TestSpansCapped: a query whose rarest word is in more chunks than a
// search ranks (rank.MaxCandidates) ranks the newest matches of the
// project, by the spans as by the project index.
func TestSpansCapped(t *testing.T) {
	ctx := context.Background()
	st := newSpanStore(t)
	for b := range 6 {
		var cs []carryover.Chunk
		for i := range 400 {
			cs = append(cs, carryover.Chunk{Seq: i, Turn: i, Hash: fmt.Sprint(b, i), Text: fmt.Sprintf("osprey %d%s", i, strings.Repeat(" heron", i%3))})
		}
		if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: fmt.Sprint("s", b), Project: fmt.Sprint("/p", b%2)}, Chunks: cs}); err != nil {
			t.Fatal(err)
		}
	}
	if spans := checkSpans(t, st); len(spans) != 6 {
		t.Fatalf("%d spans of 6 batches of alternating projects: %v", len(spans), spans)
	}
	p, err := st.plan(ctx, "chunks_fts", queryTerms("osprey"), 0, math.MaxInt64)
	if err != nil || !p.capped {
		t.Fatalf("plan of osprey, in 2,400 chunks: %+v, %v; want it capped", p, err)
	}
	sameBySpans(t, st, "capped", "osprey", "/p0", "/p1")
}

// TestSpansOlderWriter: chunks an older carryover stores keep no span.
// They lie past every span, so searches use the project index until an
// Apply finds them and drops the spans for Backfill to build again;
// deleting the newest chunks trims the spans; a chunk with the highest id
// there is leaves spans_below an integer.
func TestSpansOlderWriter(t *testing.T) {
	ctx := context.Background()
	st := newSpanStore(t)
	n := 0
	apply := func(session, project string) {
		t.Helper()
		var cs []carryover.Chunk
		for range 3 {
			n++
			cs = append(cs, carryover.Chunk{Seq: n, Turn: n, Hash: fmt.Sprint(n), Text: fmt.Sprintf("osprey heron %d", n)})
		}
		if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: session, Project: project}, Chunks: cs}); err != nil {
			t.Fatal(err)
		}
	}
	// As an older carryover stores a chunk: no span.
	older := func(id any, project string) {
		t.Helper()
		n++
		if _, err := st.db.Exec(`INSERT INTO chunks (id, project_id, session_id, seq, turn, win, first_line, last_line, start_ms, end_ms,
				prompt, summary, text, tools, files, commands, errors, sidechain, agent_id, hash, terms)
			SELECT ?, (SELECT id FROM projects WHERE root = ?), session_id, ?, 0, 0, 1, 1, 0, 0, '', '', 'osprey heron older', '[]', '[]', '[]', '[]', 0, '', ?, ''
			FROM chunks WHERE project_id = (SELECT id FROM projects WHERE root = ?) LIMIT 1`, id, project, n, fmt.Sprint("older", n), project); err != nil {
			t.Fatal(err)
		}
	}
	usable := func() bool {
		t.Helper()
		_, _, ok, err := st.projectRange(ctx, "/a")
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	apply("s1", "/a")
	apply("s2", "/b")
	older(nil, "/b")
	if usable() {
		t.Fatal("spans used with a chunk past the newest span")
	}
	sameBySpans(t, st, "a chunk of an older carryover", "osprey heron", "/a", "/b")
	// The next batch finds the older chunk and drops the spans; the
	// batch's own Backfill builds them again, the older chunk in b's.
	apply("s1", "/a")
	spans := checkSpans(t, st)
	if len(spans) != 3 || spans[1].hi != spans[2].lo-1 || !usable() {
		t.Fatalf("after the next batch: %v (usable %v); want a, b with the older chunk, a", spans, usable())
	}
	sameBySpans(t, st, "built again", "osprey heron", "/a", "/b")

	// Deleting the newest chunks trims the spans to the newest left.
	if _, err := st.db.Exec(`DELETE FROM chunks WHERE id > (SELECT max(id) - 2 FROM chunks)`); err != nil {
		t.Fatal(err)
	}
	spans = checkSpans(t, st)
	var newest int64
	if err := st.db.QueryRow(`SELECT max(id) FROM chunks`).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	if spans[len(spans)-1].hi != newest || !usable() {
		t.Fatalf("spans %v after the newest chunks were deleted, newest chunk %d (usable %v)", spans, newest, usable())
	}
	apply("s2", "/b")
	checkSpans(t, st)
	sameBySpans(t, st, "ids given again", "osprey heron", "/a", "/b")

	// The highest id SQLite has, stored by hand: spans_below stays an
	// integer when the spans are dropped, and batches go on.
	older(int64(math.MaxInt64), "/b")
	if h, err := st.Check(ctx); err != nil || h.SpansDropped == 0 {
		t.Fatalf("check with a chunk in no span: %+v, %v", h, err)
	}
	apply("s1", "/a")
	if _, err := st.backfillSpans(ctx, 100); err != nil {
		t.Fatal(err)
	}
	sameBySpans(t, st, "the highest id", "osprey heron", "/a", "/b")
}

// TestSpansCarve: an id given again inside a span (a chunk stored with its
// own id) is taken out of that span, which is split around it.
func TestSpansCarve(t *testing.T) {
	ctx := context.Background()
	st := newSpanStore(t)
	var cs []carryover.Chunk
	for i := range 10 {
		cs = append(cs, carryover.Chunk{Seq: i, Turn: i, Hash: fmt.Sprint(i), Text: fmt.Sprintf("osprey %d", i)})
	}
	for _, b := range []carryover.Batch{
		{Session: carryover.Session{ID: "s1", Project: "/a"}, Chunks: cs},
		{Session: carryover.Session{ID: "s2", Project: "/b"}, Chunks: cs[:1]},
	} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	var mid, b int64
	if err := st.db.QueryRow(`SELECT min(id) + 4, (SELECT id FROM projects WHERE root = '/b') FROM chunks`).Scan(&mid, &b); err != nil {
		t.Fatal(err)
	}
	tx, err := st.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`UPDATE chunks SET session_id = 's2', project_id = ?, hash = 'moved' WHERE id = ?`, b, mid); err != nil {
		t.Fatal(err)
	}
	// The trigger dropped the spans; as if it had not, put them back.
	if _, err := tx.Exec(`INSERT INTO chunk_spans (lo, hi, project_id) SELECT min(id), max(id), project_id FROM chunks
		WHERE project_id <> ? GROUP BY project_id; INSERT INTO chunk_spans (lo, hi, project_id) SELECT max(id), max(id), ? FROM chunks;
		UPDATE meta SET value = 1 WHERE key = 'spans_below'`, b, b); err != nil {
		t.Fatal(err)
	}
	if err := addSpans(ctx, tx, b, []int64{mid}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if spans := checkSpans(t, st); len(spans) != 4 || spans[1].lo != mid || spans[1].hi != mid {
		t.Fatalf("spans after chunk %d moved into b: %v; want a's split around it", mid, spans)
	}
	sameBySpans(t, st, "carved", "osprey", "/a", "/b")
}

// newSpanStore opens a new store, closed when the test ends.
func newSpanStore(t *testing.T) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "carryover.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
