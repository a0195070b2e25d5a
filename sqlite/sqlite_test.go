package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// base is a fixed, millisecond-aligned time for fixtures.
var base = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

func openStore(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newStore(t testing.TB) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "carryover.db")
	return openStore(t, path), path
}

// rawDB opens the file directly, for what the Store API cannot do (tamper
// with the schema, count rows behind its back).
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t testing.TB, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	b := storetest.Batch("s1", "/src/app", 0, 3)
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}

	ss, err := st.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := b.Session
	want.Chunks = 3
	if !reflect.DeepEqual(ss, want) {
		t.Errorf("Session:\n got %+v\nwant %+v", ss, want)
	}
	if _, err := st.Session(ctx, "nope"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("Session(nope) = %v, want ErrNotFound", err)
	}

	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(chunks), 3; got != want {
		t.Fatalf("got %d chunks, want %d", got, want)
	}
	for i, c := range chunks {
		if c.ID == 0 {
			t.Errorf("chunk %d has no id", i)
		}
		w := b.Chunks[i]
		w.ID = c.ID
		if !reflect.DeepEqual(c, w) {
			t.Errorf("chunk %d:\n got %+v\nwant %+v", i, c, w)
		}
	}

	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(items), 4; got != want {
		t.Fatalf("got %d items, want %d", got, want)
	}
	for i := 1; i < len(items); i++ {
		if items[i-1].Line < items[i].Line {
			t.Errorf("items not newest line first: %d before %d", items[i-1].Line, items[i].Line)
		}
	}
	byKey := map[string]carryover.Item{}
	for _, it := range items {
		byKey[it.Key] = it
	}
	for _, w := range b.Items {
		got := byKey[w.Key]
		if got.ID == 0 || got.Count != 1 || got.ChunkID != chunks[w.ChunkSeq].ID {
			t.Errorf("item %s: id %d count %d chunk %d, want count 1 chunk %d", w.Key, got.ID, got.Count, got.ChunkID, chunks[w.ChunkSeq].ID)
		}
		got.ID, got.ChunkID, got.Count = 0, 0, 0
		if !reflect.DeepEqual(got, w) {
			t.Errorf("item:\n got %+v\nwant %+v", got, w)
		}
	}

	comps, err := st.Compactions(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(comps, b.Compactions) {
		t.Errorf("Compactions:\n got %+v\nwant %+v", comps, b.Compactions)
	}

	state, err := st.IngestState(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(state, b.State) {
		t.Errorf("IngestState:\n got %+v\nwant %+v", state, b.State)
	}
}

func TestChunkFilters(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	if err := st.Apply(ctx, storetest.Batch("s1", "/p", 0, 8)); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, storetest.Batch("s2", "/p", 0, 2)); err != nil {
		t.Fatal(err)
	}
	seqs := func(f carryover.ChunkFilter) []int {
		t.Helper()
		cs, err := st.Chunks(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, c := range cs {
			out = append(out, c.Seq)
		}
		return out
	}
	all, _ := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1})
	for _, tc := range []struct {
		name string
		f    carryover.ChunkFilter
		want []int
	}{
		{"all", carryover.ChunkFilter{SessionID: "s1", Turn: -1}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"turn 0", carryover.ChunkFilter{SessionID: "s1", Turn: 0}, []int{0, 1}},
		{"turn 2", carryover.ChunkFilter{SessionID: "s1", Turn: 2}, []int{4, 5}},
		{"before window 1", carryover.ChunkFilter{SessionID: "s1", Turn: -1, BeforeWindow: 1}, []int{0, 1, 2, 3}},
		{"from seq", carryover.ChunkFilter{SessionID: "s1", Turn: -1, FromSeq: 6}, []int{6, 7}},
		{"limit", carryover.ChunkFilter{SessionID: "s1", Turn: -1, Limit: 3}, []int{0, 1, 2}},
		{"newest", carryover.ChunkFilter{SessionID: "s1", Turn: -1, Newest: true, Limit: 3}, []int{7, 6, 5}},
		{"line range", carryover.ChunkFilter{SessionID: "s1", Turn: -1, FromLine: all[3].LastLine, ToLine: all[4].FirstLine}, []int{3, 4}},
		{"ids", carryover.ChunkFilter{Turn: -1, IDs: []int64{all[7].ID, all[2].ID}}, []int{2, 7}},
		{"other session", carryover.ChunkFilter{SessionID: "s2", Turn: -1}, []int{0, 1}},
		{"unknown session", carryover.ChunkFilter{SessionID: "nope", Turn: -1}, nil},
	} {
		if got := seqs(tc.f); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got seqs %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSessionsAndItemFilters(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	for _, b := range []carryover.Batch{storetest.Batch("old", "/a", 0, 1), storetest.Batch("new", "/a", 0, 5), storetest.Batch("other", "/b", 0, 3)} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(ss []carryover.Session) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	all, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(all), []string{"new", "other", "old"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Sessions = %v, want %v (most recently updated first)", got, want)
	}
	if all[0].Chunks != 5 {
		t.Errorf("session new has Chunks %d, want 5", all[0].Chunks)
	}
	a, err := st.Sessions(ctx, carryover.SessionFilter{Project: "/a", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(a), []string{"new"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Sessions(/a, limit 1) = %v, want %v", got, want)
	}

	for _, tc := range []struct {
		name string
		f    carryover.ItemFilter
		want int
	}{
		{"all", carryover.ItemFilter{}, 2 + 6 + 4},
		{"project", carryover.ItemFilter{Project: "/a"}, 2 + 6},
		{"session", carryover.ItemFilter{SessionID: "new"}, 6},
		{"kinds", carryover.ItemFilter{Project: "/a", Kinds: []carryover.ItemKind{carryover.KindError}}, 2},
		{"two kinds", carryover.ItemFilter{SessionID: "new", Kinds: []carryover.ItemKind{carryover.KindError, carryover.KindCommand}}, 6},
		{"before window", carryover.ItemFilter{SessionID: "new", BeforeWindow: 1}, 5},
		{"limit", carryover.ItemFilter{SessionID: "new", Limit: 2}, 2},
	} {
		items, err := st.Items(ctx, tc.f)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(items) != tc.want {
			t.Errorf("%s: got %d items, want %d", tc.name, len(items), tc.want)
		}
		for _, it := range items {
			if tc.f.SessionID != "" && it.SessionID != tc.f.SessionID {
				t.Errorf("%s: item of session %s", tc.name, it.SessionID)
			}
			if tc.f.BeforeWindow > 0 && it.Window >= tc.f.BeforeWindow {
				t.Errorf("%s: item of window %d", tc.name, it.Window)
			}
		}
	}
}

func TestApplyTwiceStoresNothingTwice(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	b := storetest.Batch("s1", "/p", 0, 4)
	for range 2 {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	db := rawDB(t, path)
	for table, want := range map[string]int{"chunks": 4, "items": 5, "compactions": 1, "sessions": 1, "projects": 1} {
		if got := count(t, db, table); got != want {
			t.Errorf("%s: %d rows, want %d", table, got, want)
		}
	}
	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Count != 1 {
			t.Errorf("item %s: Count %d after a re-ingest, want 1", it.Key, it.Count)
		}
	}
	// The search index holds each chunk once.
	hits, err := st.Search(ctx, carryover.Query{Text: "cache.go"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, h := range hits {
		if seen[h.Chunk.ID] {
			t.Errorf("chunk %d found twice", h.Chunk.ID)
		}
		seen[h.Chunk.ID] = true
	}
	if len(seen) != 4 {
		t.Errorf("search after a re-ingest: %d chunks, want 4", len(seen))
	}
}

func TestItemMerge(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	b := storetest.Batch("s1", "/p", 0, 3)
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	get := func() carryover.Item {
		t.Helper()
		items, err := st.Items(ctx, carryover.ItemFilter{SessionID: "s1", Kinds: []carryover.ItemKind{carryover.KindError}})
		if err != nil || len(items) != 1 {
			t.Fatalf("error items: %v, %v", items, err)
		}
		return items[0]
	}
	first := get()

	// The same error seen again later, resolved, with a fix in its detail.
	later := carryover.Batch{Session: b.Session, State: b.State, Items: []carryover.Item{{
		ChunkSeq: 2, Kind: carryover.KindError, Key: "error:undefined key", Text: "cache.go:12: undefined: Key",
		Detail: "added type Key", Line: 29, Time: base.Add(time.Hour), Weight: 0.8, Resolved: true,
	}}}
	if err := st.Apply(ctx, later); err != nil {
		t.Fatal(err)
	}
	got := get()
	if got.Count != 2 || got.Line != 29 || got.Text != "cache.go:12: undefined: Key" || got.Detail != "added type Key" ||
		!got.Resolved || got.Weight != 1 || got.ID != first.ID || got.ChunkSeq != 2 || !got.Time.Equal(base.Add(time.Hour)) {
		t.Errorf("after a later occurrence: %+v", got)
	}
	chunks, _ := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1})
	if got.ChunkID != chunks[2].ID {
		t.Errorf("ChunkID %d, want chunk seq 2 from the earlier batch (%d)", got.ChunkID, chunks[2].ID)
	}

	// Re-ingesting the first occurrence (unresolved, older line) changes
	// nothing: Resolved stays, Count stays.
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	again := get()
	if !reflect.DeepEqual(again, got) {
		t.Errorf("re-ingest of an older occurrence changed the item:\n got %+v\nwant %+v", again, got)
	}
}

func TestDuplicateChunkPointsItemsAtExistingRow(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	a := storetest.Batch("a", "/p", 0, 1)
	if err := st.Apply(ctx, a); err != nil {
		t.Fatal(err)
	}
	// A resumed session repeats the chunk (same hash, same project).
	b := storetest.Batch("b", "/p", 0, 1)
	b.Chunks[0].Hash = a.Chunks[0].Hash
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if got := count(t, rawDB(t, path), "chunks"); got != 1 {
		t.Errorf("%d chunks, want 1 (duplicate hash in one project)", got)
	}
	ca, _ := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "a", Turn: -1})
	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.ChunkID != ca[0].ID {
			t.Errorf("item %s of b: ChunkID %d, want the existing chunk %d", it.Key, it.ChunkID, ca[0].ID)
		}
	}
	// The same hash in another project is another chunk.
	c := storetest.Batch("c", "/q", 0, 1)
	c.Chunks[0].Hash = a.Chunks[0].Hash
	if err := st.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got := count(t, rawDB(t, path), "chunks"); got != 2 {
		t.Errorf("%d chunks, want 2 (same hash, other project)", got)
	}
}

func TestSessionMerge(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	b := storetest.Batch("s1", "/p", 0, 2)
	b.Session.Windows, b.Session.Turns = 2, 5
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	// A later batch knowing less: no title, fewer windows, an older start.
	next := carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p", Windows: 1, Turns: 7,
		Started: base.Add(-time.Hour), Updated: base.Add(time.Hour)}}
	if err := st.Apply(ctx, next); err != nil {
		t.Fatal(err)
	}
	ss, err := st.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if ss.Title != b.Session.Title || ss.Version != b.Session.Version || ss.TranscriptPath != b.Session.TranscriptPath {
		t.Errorf("empty fields overwrote stored ones: %+v", ss)
	}
	if ss.Windows != 2 || ss.Turns != 7 || !ss.Started.Equal(base.Add(-time.Hour)) || !ss.Updated.Equal(base.Add(time.Hour)) {
		t.Errorf("windows/turns/started/updated not merged: %+v", ss)
	}
	next.Session.Title = "a better title"
	if err := st.Apply(ctx, next); err != nil {
		t.Fatal(err)
	}
	if ss, _ := st.Session(ctx, "s1"); ss.Title != "a better title" {
		t.Errorf("title %q, want the new non-empty one", ss.Title)
	}
}

func TestIngestState(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	if _, err := st.IngestState(ctx, "s1"); !errors.Is(err, carryover.ErrNotFound) {
		t.Fatalf("IngestState of an unknown session = %v, want ErrNotFound", err)
	}
	b := storetest.Batch("s1", "/p", 0, 1)
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	// A rewritten file: new identity, back to the start, no cursor.
	b.State = carryover.IngestState{SessionID: "s1", Path: "/moved/s1.jsonl", FileID: "dev:ino:43", Offset: 17, Line: 1}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	got, err := st.IngestState(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != b.State.Path || got.FileID != b.State.FileID || got.Offset != 17 || got.Line != 1 || len(got.Cursor) != 0 {
		t.Errorf("IngestState = %+v, want %+v", got, b.State)
	}
}

func TestCompactionUpsert(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	b := storetest.Batch("s1", "/p", 0, 1)
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	// PreCompact records the compaction before its summary exists; the
	// boundary line read later carries fewer fields.
	up := carryover.Batch{Session: b.Session, State: b.State, Compactions: []carryover.Compaction{
		{Window: 1, Trigger: "manual", Line: 41},
		{Window: 2, Trigger: "auto", PreTokens: 150000, Line: 90, Time: base.Add(2 * time.Hour)},
	}}
	if err := st.Apply(ctx, up); err != nil {
		t.Fatal(err)
	}
	got, err := st.Compactions(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := []carryover.Compaction{
		{SessionID: "s1", Window: 1, Trigger: "manual", PreTokens: 160000, PostTokens: 9000, Line: 41,
			Time: base.Add(time.Hour), Summary: "Summary: the build was fixed."},
		{SessionID: "s1", Window: 2, Trigger: "auto", PreTokens: 150000, Line: 90, Time: base.Add(2 * time.Hour)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compactions:\n got %+v\nwant %+v", got, want)
	}
}

func TestApplyIsAtomic(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	db := rawDB(t, path)
	// Make the last statement of Apply's transaction fail.
	if _, err := db.Exec(`CREATE TRIGGER fail BEFORE UPDATE OF ingest_offset ON sessions
		WHEN new.ingest_offset = 666 BEGIN SELECT RAISE(ABORT, 'boom'); END`); err != nil {
		t.Fatal(err)
	}
	b := storetest.Batch("s1", "/p", 0, 3)
	b.State.Offset = 666
	if err := st.Apply(ctx, b); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Apply = %v, want the trigger's error", err)
	}
	for _, table := range []string{"sessions", "chunks", "items", "compactions", "projects"} {
		if got := count(t, db, table); got != 0 {
			t.Errorf("%s: %d rows after a failed Apply, want 0", table, got)
		}
	}
	if hits, err := st.Search(ctx, carryover.Query{Text: "cache"}); err != nil || len(hits) != 0 {
		t.Errorf("search after a failed Apply: %d hits, %v", len(hits), err)
	}
}

func TestApplyRejectsInconsistentBatch(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	for name, mutate := range map[string]func(*carryover.Batch){
		"no session id":       func(b *carryover.Batch) { b.Session.ID = "" },
		"chunk other session": func(b *carryover.Batch) { b.Chunks[0].SessionID = "s2" },
		"chunk other project": func(b *carryover.Batch) { b.Chunks[0].Project = "/elsewhere" },
		"chunk without hash":  func(b *carryover.Batch) { b.Chunks[1].Hash = "" },
		"item without key":    func(b *carryover.Batch) { b.Items[0].Key = "" },
		"state other session": func(b *carryover.Batch) { b.State.SessionID = "s2" },
	} {
		b := storetest.Batch("s1", "/p", 0, 2)
		mutate(&b)
		if err := st.Apply(ctx, b); err == nil {
			t.Errorf("%s: Apply succeeded", name)
		}
	}
	if got := count(t, rawDB(t, path), "sessions"); got != 0 {
		t.Errorf("%d sessions after rejected batches", got)
	}
	// Parts may leave the session and project empty.
	b := storetest.Batch("s1", "/p", 0, 2)
	b.Chunks[0].SessionID, b.Chunks[0].Project, b.Items[0].SessionID, b.State.SessionID = "", "", "", ""
	if err := st.Apply(ctx, b); err != nil {
		t.Fatalf("Apply with empty part ids: %v", err)
	}
}

func TestInjections(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	in := carryover.Injection{Time: base, SessionID: "s1", Project: "/p", Event: "SessionStart:compact", Window: 1,
		Chars: 3900, Tokens: 975, ChunkIDs: []int64{3, 1, 2}, ItemIDs: []int64{7}, Hash: "abc", Latency: 4200 * time.Microsecond}
	id1, err := st.RecordInjection(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	other := carryover.Injection{SessionID: "s2", Event: "PreCompact"}
	id2, err := st.RecordInjection(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if id1 == 0 || id2 <= id1 {
		t.Errorf("ids %d, %d: want increasing", id1, id2)
	}
	all, err := st.Injections(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != id2 || all[1].ID != id1 {
		t.Fatalf("Injections(all) = %+v, want newest first", all)
	}
	if all[0].Time.IsZero() {
		t.Error("a zero Time was not set to now")
	}
	in.ID = id1
	if !reflect.DeepEqual(all[1], in) {
		t.Errorf("injection:\n got %+v\nwant %+v", all[1], in)
	}
	s1, err := st.Injections(ctx, "s1", 0)
	if err != nil || len(s1) != 1 || s1[0].ID != id1 {
		t.Errorf("Injections(s1) = %+v, %v", s1, err)
	}
	if lim, _ := st.Injections(ctx, "", 1); len(lim) != 1 {
		t.Errorf("limit 1: %d injections", len(lim))
	}
}
func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "carryover.db")
	st := openStore(t, path)
	if st.Path() != path {
		t.Errorf("Path() = %q, want %q", st.Path(), path)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", p, got, want)
		}
	}
	// Reopening a migrated store keeps its data.
	if err := st.Apply(context.Background(), storetest.Batch("s1", "/p", 0, 1)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("WAL file: %v, %v; want mode 600", fi, err)
	}
	var mode string
	if err := rawDB(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q, %v; want wal", mode, err)
	}
	st.Close()
	again := openStore(t, path)
	if _, err := again.Session(context.Background(), "s1"); err != nil {
		t.Errorf("after reopen: %v", err)
	}
}

func TestOpenOddPath(t *testing.T) {
	// Characters that mean something in a URI stay part of the name.
	dir := filepath.Join(t.TempDir(), "a b#c?d%20e&mode=ro")
	path := filepath.Join(dir, "store.db")
	st := openStore(t, path)
	if err := st.Apply(context.Background(), storetest.Batch("s1", "/p", 0, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("store not at its path: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "store.db") {
			t.Errorf("unexpected file %q", e.Name())
		}
	}
}

func TestOpenGarbageIsCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "carryover.db")
	garbage := bytes.Repeat([]byte("this is not a database\x00\xff"), 400)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		st, err := sqlite.Open(context.Background(), path, sqlite.Options{ReadOnly: ro})
		if err == nil {
			st.Close()
			t.Fatalf("read-only %v: Open of a garbage file succeeded", ro)
		}
		if !errors.Is(err, sqlite.ErrCorrupt) {
			t.Errorf("read-only %v: Open = %v, want ErrCorrupt", ro, err)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, garbage) {
		t.Error("Open changed the garbage file")
	}
}

func TestDamagedPagesAreCorrupt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	st := openStore(t, path)
	if err := st.Apply(ctx, storetest.Batch("s1", "/p", 0, 50)); err != nil {
		t.Fatal(err)
	}
	st.Close() // checkpoints the WAL into the file
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the header page, overwrite the rest.
	for i := 4096; i < len(data); i++ {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err = sqlite.Open(ctx, path, sqlite.Options{})
	if err == nil {
		defer st.Close()
		_, err = st.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1})
	}
	if !errors.Is(err, sqlite.ErrCorrupt) {
		t.Errorf("reading damaged pages: %v, want ErrCorrupt", err)
	}
}

func TestOpenNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "carryover.db")
	openStore(t, path).Close()
	if _, err := rawDB(t, path).Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		st, err := sqlite.Open(context.Background(), path, sqlite.Options{ReadOnly: ro})
		if err == nil {
			st.Close()
		}
		if !errors.Is(err, carryover.ErrSchemaTooNew) {
			t.Errorf("read-only %v: Open = %v, want ErrSchemaTooNew", ro, err)
		}
	}
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	rw := openStore(t, path)
	if err := rw.Apply(ctx, storetest.Batch("s1", "/p", 0, 2)); err != nil {
		t.Fatal(err)
	}
	rw.Close()

	ro, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	checkReadOnly(t, ro)
}

func TestReadOnlyFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file modes; TestReadOnly covers Options.ReadOnly")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	rw := openStore(t, path)
	if err := rw.Apply(ctx, storetest.Batch("s1", "/p", 0, 2)); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open of a read-only file: %v", err)
	}
	defer st.Close()
	checkReadOnly(t, st)
}

func TestReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file modes")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	path := filepath.Join(dir, "carryover.db")
	rw := openStore(t, path)
	if err := rw.Apply(ctx, storetest.Batch("s1", "/p", 0, 2)); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	// WAL needs its side files: Open or the first write must fail cleanly.
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err == nil {
		err = st.Apply(ctx, storetest.Batch("s2", "/p", 0, 1))
		st.Close()
	}
	if err == nil {
		t.Fatal("writing to a store in a read-only directory succeeded")
	}
	t.Logf("read-only directory: %v", err)
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	again := openStore(t, path)
	if chunks, err := again.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1}); err != nil || len(chunks) != 2 {
		t.Errorf("after the failed write: %d chunks, %v", len(chunks), err)
	}
}

// checkReadOnly checks that writes to a store holding storetest.Batch("s1", "/p", 0,
// 2) fail cleanly and leave its rows readable.
func checkReadOnly(t *testing.T, st *sqlite.Store) {
	t.Helper()
	ctx := context.Background()
	err := st.Apply(ctx, storetest.Batch("s2", "/p", 0, 1))
	if err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("Apply on a read-only store = %v, want a read-only error", err)
	}
	if _, err := st.AddNote(ctx, carryover.Note{Text: "x"}); err == nil {
		t.Error("AddNote on a read-only store succeeded")
	}
	if _, err := st.RecordInjection(ctx, carryover.Injection{Event: "x"}); err == nil {
		t.Error("RecordInjection on a read-only store succeeded")
	}
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1})
	if err != nil || len(chunks) != 2 {
		t.Errorf("Chunks on a read-only store: %d, %v", len(chunks), err)
	}
	hits, err := st.Search(ctx, carryover.Query{Text: "cache.go"})
	if err != nil || len(hits) != 2 {
		t.Errorf("Search on a read-only store: %d hits, %v", len(hits), err)
	}
	if _, err := st.Session(ctx, "s2"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("session of the failed Apply: %v", err)
	}
}

func TestReadOnlyMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "carryover.db")
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{ReadOnly: true})
	if err == nil {
		st.Close()
		t.Fatal("read-only Open of a missing file succeeded")
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only Open created the directory: %v", err)
	}
}

// TestMmapReads: a store that reads through a memory map reads what one
// that copies pages reads, as the file grows under it, its log is
// checkpointed by another process's close, and pages are damaged.
func TestMmapReads(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	w, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { w.Close() }()
	r, err := sqlite.Open(ctx, path, sqlite.Options{CachePages: 64, MmapBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	same := func(when string, chunks int) {
		t.Helper()
		want, err := w.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if len(want) != chunks || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d chunks read through the map, %d by copy, want %d", when, len(got), len(want), chunks)
		}
		wantItems, err := w.Items(ctx, carryover.ItemFilter{SessionID: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		gotItems, err := r.Items(ctx, carryover.ItemFilter{SessionID: "s1"})
		if err != nil || !reflect.DeepEqual(gotItems, wantItems) {
			t.Errorf("%s: items through the map differ (%v)", when, err)
		}
	}
	if err := w.Apply(ctx, storetest.Batch("s1", "/p", 0, 40)); err != nil {
		t.Fatal(err)
	}
	same("first batch", 40)
	if err := w.Apply(ctx, storetest.Batch("s1", "/p", 40, 400)); err != nil {
		t.Fatal(err)
	}
	same("the file grown", 440)
	// The writer's close checkpoints the log into the file; the reader
	// reads the file's pages through its map, and the writer reopens.
	w.Close()
	if w, err = sqlite.Open(ctx, path, sqlite.Options{}); err != nil {
		t.Fatal(err)
	}
	same("checkpointed", 440)

	r.Close()
	w.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096; i < len(data); i++ {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := sqlite.Open(ctx, path, sqlite.Options{MmapBytes: 1 << 30})
	if err == nil {
		_, err = d.Chunks(ctx, carryover.ChunkFilter{SessionID: "s1", Turn: -1})
		d.Close()
	}
	if !errors.Is(err, sqlite.ErrCorrupt) {
		t.Errorf("reading damaged pages through the map: %v, want ErrCorrupt", err)
	}
}

// TestIsBusy: a write that waits past the busy timeout for another
// connection's write lock fails with an error IsBusy recognises (the CLI
// turns it into "run the command again"), and changes nothing.
func TestIsBusy(t *testing.T) {
	ctx := context.Background()
	_, path := newStore(t)
	st, err := sqlite.Open(ctx, path, sqlite.Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conn, err := rawDB(t, path).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	err = st.Apply(ctx, storetest.Batch("s", "/p", 0, 1))
	if err == nil || !sqlite.IsBusy(err) {
		t.Errorf("a write under another's lock: err %v, want one IsBusy recognises", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if sqlite.IsBusy(errors.New("database is locked")) {
		t.Error("IsBusy matched a plain error by its text")
	}
	if err := st.Apply(ctx, storetest.Batch("s", "/p", 0, 1)); err != nil {
		t.Errorf("the same write after the lock is released: %v", err)
	}
}
