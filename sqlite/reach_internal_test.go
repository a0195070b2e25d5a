package sqlite

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
)

// TestReachesKept: a plan over the whole chunk index journals the reaches
// it walked to; the next plans read them instead of walking and plan the
// same; a write folds them into term_reach; deleting a chunk drops them
// all, and a reach found before the deletion is not stored after it; a
// store opened read-only journals nothing.
func TestReachesKept(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	apply := func(session string, n int) {
		t.Helper()
		var chunks []carryover.Chunk
		for i := range n {
			text := fmt.Sprintf("osprey step %d", i)
			if i%4 == 0 {
				text += " with a heron"
			}
			chunks = append(chunks, carryover.Chunk{Seq: i, Turn: i, Hash: fmt.Sprint(session, i), Text: text})
		}
		if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: session, Project: "/p"}, Chunks: chunks}); err != nil {
			t.Fatal(err)
		}
	}
	apply("s1", 12)
	apply("s2", 12)
	const limit = 5
	terms := queryTerms("osprey heron kestrel")
	plan := func(s *Store) searchPlan {
		t.Helper()
		p, err := s.planUpTo(ctx, "chunks_fts", terms, 0, math.MaxInt64, limit)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	reaches := func(s *Store) map[string]int64 {
		t.Helper()
		known, gen := s.knownReaches(ctx, "chunks_fts", terms, limit)
		if gen < 0 {
			t.Fatal("no generation: reaches cannot be kept")
		}
		return known
	}
	tableRows := func() int {
		t.Helper()
		var n int
		if err := st.db.QueryRow(`SELECT count(*) FROM term_reach`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	walked := plan(st)
	// osprey is in all 24 chunks: its 6th match is the 6th chunk; heron in
	// 6 of them, every fourth: its 6th is the last chunk of s2 with one.
	var first, heron int64
	if err := st.db.QueryRow(`SELECT min(id), (SELECT max(id) FROM chunks WHERE text LIKE '%heron%') FROM chunks`).Scan(&first, &heron); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{`"osprey"`: first + limit, `"heron"`: heron}
	if got := reaches(st); !reflect.DeepEqual(got, want) {
		t.Fatalf("journaled reaches = %v, want %v", got, want)
	}
	if got := plan(st); !reflect.DeepEqual(got, walked) {
		t.Fatalf("plan from the kept reaches = %+v, walked %+v", got, walked)
	}
	// They are read, not walked again: a reach changed in the journal
	// changes the plan's order.
	b, err := os.ReadFile(st.records)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.records, append(b, fmt.Sprintf(`{"k":"r","i":"chunks_fts","g":0,"c":%d,"t":["\"osprey\""],"r":[%d]}`+"\n", limit, heron+1)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := plan(st); got.match != `"osprey"` {
		t.Fatalf("plan with osprey reaching furthest kept %q", got.match)
	}
	if err := os.WriteFile(st.records, b, 0o600); err != nil {
		t.Fatal(err)
	}

	// A write folds them into the store.
	if err := st.RecordHookRun(ctx, carryover.HookRun{Time: base(), Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	if n := tableRows(); n != 2 {
		t.Fatalf("term_reach holds %d rows after the fold, want 2", n)
	}
	if _, err := os.Lstat(st.records); !os.IsNotExist(err) {
		t.Fatalf("journal left after the fold (%v)", err)
	}
	if got := reaches(st); !reflect.DeepEqual(got, want) {
		t.Fatalf("stored reaches = %v, want %v", got, want)
	}
	if got := plan(st); !reflect.DeepEqual(got, walked) {
		t.Fatalf("plan from the stored reaches = %+v, walked %+v", got, walked)
	}

	// Adding chunks keeps them: they are added above.
	apply("s3", 4)
	if n := tableRows(); n != 2 {
		t.Fatalf("term_reach holds %d rows after chunks were added, want 2", n)
	}

	// Deleting a passage drops the passage index's reaches only.
	if _, err := st.db.Exec(`INSERT INTO term_reach (idx, term, cap, reach) VALUES ('passages_fts', '"osprey"', 5, 9);
		INSERT INTO passages (session_id, line, part) VALUES ('s2', 1, 0); DELETE FROM passages`); err != nil {
		t.Fatal(err)
	}
	var passageRows, passageGen int
	if err := st.db.QueryRow(`SELECT (SELECT count(*) FROM term_reach WHERE idx = 'passages_fts'),
		(SELECT value FROM meta WHERE key = 'reach_gen:passages_fts')`).Scan(&passageRows, &passageGen); err != nil {
		t.Fatal(err)
	}
	if n := tableRows(); n != 2 || passageRows != 0 || passageGen != 1 {
		t.Fatalf("after a passage's deletion: %d rows, %d of passages, passages' generation %d; want 2, 0, 1", n, passageRows, passageGen)
	}

	// A journaled reach of before a deletion is not stored after it.
	stale := fmt.Sprintf(`{"k":"r","i":"chunks_fts","g":0,"c":%d,"t":["\"step\""],"r":[%d]}`+"\n", limit, first+limit)
	if err := os.WriteFile(st.records, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if n := tableRows(); n != 0 {
		t.Fatalf("term_reach holds %d rows after a prune, want 0", n)
	}
	if err := os.WriteFile(st.records, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := reaches(st); len(got) != 0 {
		t.Fatalf("reaches after a prune = %v, want none", got)
	}
	if err := st.RecordHookRun(ctx, carryover.HookRun{Time: base(), Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	if n := tableRows(); n != 0 {
		t.Fatalf("a reach of before the prune was stored after it (%d rows)", n)
	}
	after := plan(st) // walks the index as it is now
	if got := reaches(st); got[`"osprey"`] <= want[`"osprey"`] {
		t.Fatalf("osprey's reach after the prune = %d, want past %d", got[`"osprey"`], want[`"osprey"`])
	}
	if got := plan(st); !reflect.DeepEqual(got, after) {
		t.Fatalf("plan from the kept reaches after the prune = %+v, walked %+v", got, after)
	}

	// Read-only: nothing is created beside the store.
	if err := st.RecordHookRun(ctx, carryover.HookRun{Time: base(), Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec(`DELETE FROM term_reach`); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if got := plan(ro); !reflect.DeepEqual(got, after) {
		t.Fatalf("read-only plan = %+v, want %+v", got, after)
	}
	if _, err := os.Lstat(ro.records); !os.IsNotExist(err) {
		t.Fatalf("a read-only store journaled its reaches (%v)", err)
	}
}

func base() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// TestReachesReadWithInjections: a recall reads its session's injections
// from the journal, and in the same scan the reaches its plan reads next,
// whatever session wrote the lines around them.
func TestReachesReadWithInjections(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	st, err := Open(ctx, path, Options{DeferHookRuns: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var chunks []carryover.Chunk
	for i := range 8 {
		chunks = append(chunks, carryover.Chunk{Seq: i, Turn: i, Hash: fmt.Sprint(i), Text: "osprey heron"})
	}
	if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p"}, Chunks: chunks}); err != nil {
		t.Fatal(err)
	}
	const limit = 3
	terms := queryTerms("osprey heron")
	for _, s := range []string{"s1", "s2"} {
		if _, err := st.RecordInjection(ctx, carryover.Injection{Time: base(), SessionID: s, Event: "UserPromptSubmit", Text: "block of " + s}); err != nil {
			t.Fatal(err)
		}
	}
	walked, err := st.planUpTo(ctx, "chunks_fts", terms, 0, math.MaxInt64, limit)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordInjection(ctx, carryover.Injection{Time: base(), SessionID: "s2", Event: "UserPromptSubmit", Text: "another"}); err != nil {
		t.Fatal(err)
	}

	// Another process: the injections of s1 first, then the plan.
	st2, err := Open(ctx, path, Options{DeferHookRuns: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	ins, err := st2.InjectionsWithoutText(ctx, "s1", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 1 || ins[0].SessionID != "s1" {
		t.Fatalf("injections of s1 = %+v, want its one", ins)
	}
	st2.jmu.Lock()
	cached, ok := st2.jread[journalKey(st2.records, journalReachLines, "")]
	st2.jmu.Unlock()
	if !ok || len(cached.e.reaches) != 2 || len(cached.e.injections) != 0 {
		t.Fatalf("reaches kept from the injections' scan: %+v (kept: %v), want the 2 reaches alone", cached.e, ok)
	}
	known, gen := st2.knownReaches(ctx, "chunks_fts", terms, limit)
	if gen < 0 || len(known) != 2 {
		t.Fatalf("known reaches after the injections' read = %v (generation %d), want both words'", known, gen)
	}
	if got, err := st2.planUpTo(ctx, "chunks_fts", terms, 0, math.MaxInt64, limit); err != nil || !reflect.DeepEqual(got, walked) {
		t.Fatalf("plan = %+v (%v), walked %+v", got, err, walked)
	}
}
