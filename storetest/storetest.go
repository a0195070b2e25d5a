// Package storetest is the conformance suite every carryover.Store runs:
// the embedded SQLite store always, the PostgreSQL store against a real
// server. It checks behaviour through the Store interface alone (ingest,
// incremental ingest, deduplication, merge rules, search with any text,
// the reads a restore makes, the audit trail, notes, hook runs,
// redactions, prune, forget, concurrent writers and the raw archive with
// its export), so that the backends cannot drift apart.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/rank"
)

// Open returns a new, empty store for one test; the suite closes it.
type Open func(t *testing.T) carryover.Store

// base is a fixed, millisecond-aligned time for fixtures.
var base = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// Run runs the suite, each test on a store of its own from open.
func Run(t *testing.T, open Open) {
	tests := []struct {
		name string
		fn   func(*testing.T, carryover.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"IncrementalIngest", testIncrementalIngest},
		{"ApplyTwiceStoresNothingTwice", testApplyTwice},
		{"DuplicateChunk", testDuplicateChunk},
		{"ItemMerge", testItemMerge},
		{"SessionMerge", testSessionMerge},
		{"CompactionUpsert", testCompactionUpsert},
		{"RejectsInconsistentBatch", testRejects},
		{"ChunkFilters", testChunkFilters},
		{"SessionAndItemFilters", testSessionAndItemFilters},
		{"ItemGroups", testItemGroups},
		{"RestoreReads", testRestoreReads},
		{"Search", testSearch},
		{"SearchFilters", testSearchFilters},
		{"SearchAnyText", testSearchAnyText},
		{"SearchRankedOrder", testSearchRankedOrder},
		{"SearchCapped", testSearchCapped},
		{"SearchScriptsWithoutSpaces", testSearchScriptsWithoutSpaces},
		{"OddText", testOddText},
		{"Injections", testInjections},
		{"Notes", testNotes},
		{"HookRunsAndRedactions", testHookRunsAndRedactions},
		{"Prune", testPrune},
		{"PruneKeepsSharedChunk", testPruneKeepsSharedChunk},
		{"PruneSharedReport", testPruneSharedReport},
		{"PruneBothSharers", testPruneBothSharers},
		{"ForgetKeepsSharedChunk", testForgetKeepsSharedChunk},
		{"SharedChunkReads", testSharedChunkReads},
		{"SearchFindsSharedOnce", testSearchFindsSharedOnce},
		{"SharedExportImport", testSharedExportImport},
		{"SharedChainPruneOrders", testSharedChainPruneOrders},
		{"SharedBothWays", testSharedBothWays},
		{"SharedReingest", testSharedReingest},
		{"ForgetMiddleOfChain", testForgetMiddleOfChain},
		{"SharedSubagent", testSharedSubagent},
		{"SharedCounts", testSharedCounts},
		{"SessionWithoutCounts", testSessionWithoutCounts},
		{"SharedFootprints", testSharedFootprints},
		{"Forget", testForget},
		{"ForgetRacingWriters", testForgetRacingWriters},
		{"ConcurrentWriters", testConcurrentWriters},
		{"RawLines", testRawLines},
		{"RawRestart", testRawRestart},
		{"RawAppendOnly", testRawAppendOnly},
		{"RawConcurrentWriters", testRawConcurrentWriters},
		{"RawPruneForget", testRawPruneForget},
		{"RawExportImport", testRawExportImport},
		{"SessionFamily", testSessionFamily},
		{"PruneFamily", testPruneFamily},
		{"ForgetFamily", testForgetFamily},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := open(t)
			t.Cleanup(func() {
				if err := st.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
			tc.fn(t, st)
		})
	}
}

// Batch builds a session batch with n chunks (seq from, from+1, ...), one
// command item per chunk, one error item and one compaction.
func Batch(session, project string, from, n int) carryover.Batch {
	b := carryover.Batch{
		Session: carryover.Session{
			ID: session, Project: project, TranscriptPath: "/home/u/.claude/" + session + ".jsonl", Version: "2.1.3",
			Title: "fix the flaky build", Started: base, Updated: base.Add(time.Duration(from+n) * time.Minute),
			Windows: 1, Turns: 2,
		},
		State: carryover.IngestState{SessionID: session, Path: "/home/u/.claude/" + session + ".jsonl", FileID: "dev:ino:42",
			Offset: int64(1000 * (from + n)), Line: 10 * (from + n), Cursor: []byte(`{"turn":2}`)},
	}
	for i := from; i < from+n; i++ {
		b.Chunks = append(b.Chunks, carryover.Chunk{
			SessionID: session, Project: project, Seq: i, Turn: i / 2, Window: i / 4,
			FirstLine: 10*i + 1, LastLine: 10*i + 9, Start: base.Add(time.Duration(i) * time.Minute),
			End: base.Add(time.Duration(i)*time.Minute + 30*time.Second), Prompt: "fix the flaky build",
			Summary:  fmt.Sprintf("step %d: ran go test", i),
			Text:     fmt.Sprintf("step %d of %s: ran go test ./... and looked at internal/build/cache.go", i, session),
			Tools:    []string{"Bash", "Read"},
			Files:    []string{"internal/build/cache.go"},
			Commands: []string{fmt.Sprintf("go test -run TestCache%d ./...", i)},
			Errors:   []string{"cache.go:12: undefined: Key\nexit status 1"},
			Hash:     fmt.Sprintf("%s-%d", session, i),
		})
		b.Items = append(b.Items, carryover.Item{
			SessionID: session, ChunkSeq: i, Kind: carryover.KindCommand,
			Text: fmt.Sprintf("go test -run TestCache%d ./...", i), Key: fmt.Sprintf("command:go test cache%d", i),
			Turn: i / 2, Window: i / 4, Line: 10*i + 5, Time: base.Add(time.Duration(i) * time.Minute), Weight: 0.5,
		})
	}
	if n > 0 {
		b.Items = append(b.Items, carryover.Item{
			SessionID: session, ChunkSeq: from, Kind: carryover.KindError, Text: "undefined: Key",
			Key: "error:undefined key", Line: 10*from + 6, Time: base, Weight: 1,
		})
		b.Compactions = []carryover.Compaction{{SessionID: session, Window: 1, Trigger: "auto", PreTokens: 160000,
			PostTokens: 9000, Line: 40, Time: base.Add(time.Hour), Summary: "Summary: the build was fixed."}}
	}
	return b
}

func apply(t *testing.T, st carryover.Store, bs ...carryover.Batch) {
	t.Helper()
	for _, b := range bs {
		if err := st.Apply(context.Background(), b); err != nil {
			t.Fatalf("apply %s: %v", b.Session.ID, err)
		}
	}
}

// allChunks lists every chunk of a session (of all sessions for "").
func allChunks(t *testing.T, st carryover.Store, session string) []carryover.Chunk {
	t.Helper()
	cs, err := st.Chunks(context.Background(), carryover.ChunkFilter{SessionID: session, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func items(t *testing.T, st carryover.Store, f carryover.ItemFilter) []carryover.Item {
	t.Helper()
	its, err := st.Items(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return its
}

// search returns the "session/seq" of each hit.
func search(t *testing.T, st carryover.Store, q carryover.Query) []string {
	t.Helper()
	hits, err := st.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	var out []string
	for _, h := range hits {
		if h.Score <= 0 || h.BM25 < 0 || h.Score < h.BM25 {
			t.Errorf("search %q: hit %s/%d scores %v (BM25 %v): want positive, Score >= BM25", q.Text, h.Chunk.SessionID, h.Chunk.Seq, h.Score, h.BM25)
		}
		out = append(out, fmt.Sprintf("%s/%d", h.Chunk.SessionID, h.Chunk.Seq))
	}
	return out
}

func testRoundTrip(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	b := Batch("s1", "/src/app", 0, 3)
	apply(t, st, b)
	ss, err := st.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := b.Session
	want.Chunks = 3
	want.Owner = ss.Owner // the embedded store keeps the batch's; a server store writes its role's
	if !reflect.DeepEqual(ss, want) {
		t.Errorf("Session:\n got %+v\nwant %+v", ss, want)
	}
	if _, err := st.Session(ctx, "nope"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("Session(nope) = %v, want ErrNotFound", err)
	}
	chunks := allChunks(t, st, "s1")
	if len(chunks) != 3 {
		t.Fatalf("got %d chunks, want 3", len(chunks))
	}
	for i, c := range chunks {
		w := b.Chunks[i]
		w.ID = c.ID
		if !reflect.DeepEqual(c, w) {
			t.Errorf("chunk %d:\n got %+v\nwant %+v", i, c, w)
		}
	}
	its := items(t, st, carryover.ItemFilter{SessionID: "s1"})
	if len(its) != 4 {
		t.Fatalf("got %d items, want 4", len(its))
	}
	for i := 1; i < len(its); i++ {
		if its[i].Line > its[i-1].Line {
			t.Errorf("items not newest line first: %d after %d", its[i].Line, its[i-1].Line)
		}
	}
	for _, it := range its {
		if it.ID == 0 || it.Count != 1 || it.ChunkID != chunks[it.ChunkSeq].ID {
			t.Errorf("item %s: id %d, count %d, chunk %d (want %d)", it.Key, it.ID, it.Count, it.ChunkID, chunks[it.ChunkSeq].ID)
		}
	}
	// One chunk's items (the filter ChunkSeqs), the first chunk's too.
	for _, seq := range []int{0, 1, 2} {
		var want []string
		for _, it := range its {
			if it.ChunkSeq == seq {
				want = append(want, it.Key)
			}
		}
		var got []string
		for _, it := range items(t, st, carryover.ItemFilter{SessionID: "s1", ChunkSeqs: []int{seq}}) {
			got = append(got, it.Key)
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("items of chunk %d: %q, want %q", seq, got, want)
		}
	}
	comps, err := st.Compactions(ctx, "s1")
	if err != nil || len(comps) != 1 || !reflect.DeepEqual(comps[0], b.Compactions[0]) {
		t.Errorf("Compactions = %+v, %v; want %+v", comps, err, b.Compactions)
	}
	state, err := st.IngestState(ctx, "s1")
	if err != nil || !reflect.DeepEqual(state, b.State) {
		t.Errorf("IngestState = %+v, %v; want %+v", state, err, b.State)
	}
	if _, err := st.IngestState(ctx, "nope"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("IngestState(nope) = %v, want ErrNotFound", err)
	}
}

func testIncrementalIngest(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	first := Batch("s1", "/p", 0, 3)
	apply(t, st, first)
	// The next hook reads what was appended: more chunks, an item of an
	// earlier chunk seen again, a new state.
	next := Batch("s1", "/p", 3, 2)
	next.Items = append(next.Items, carryover.Item{ChunkSeq: 1, Kind: carryover.KindDecision, Key: "decision:cache",
		Text: "keep the cache", Line: 17, Weight: 0.7})
	apply(t, st, next)
	chunks := allChunks(t, st, "s1")
	if len(chunks) != 5 {
		t.Fatalf("%d chunks after two batches, want 5", len(chunks))
	}
	for i, c := range chunks {
		if c.Seq != i {
			t.Errorf("chunk %d has seq %d: not in sequence order", i, c.Seq)
		}
	}
	state, err := st.IngestState(ctx, "s1")
	if err != nil || state.Offset != next.State.Offset || state.Line != next.State.Line {
		t.Errorf("IngestState = %+v, %v; want the second batch's", state, err)
	}
	dec := items(t, st, carryover.ItemFilter{SessionID: "s1", Kinds: []carryover.ItemKind{carryover.KindDecision}})
	if len(dec) != 1 || dec[0].ChunkID != chunks[1].ID {
		t.Errorf("item of an earlier batch's chunk: %+v, want chunk id %d", dec, chunks[1].ID)
	}
	ss, err := st.Session(ctx, "s1")
	if err != nil || ss.Chunks != 5 || !ss.Updated.Equal(next.Session.Updated) {
		t.Errorf("session after two batches: %+v, %v", ss, err)
	}
	// Only the new part is searched for once.
	if got := search(t, st, carryover.Query{Text: "TestCache4"}); !slices.Contains(got, "s1/4") {
		t.Errorf("search of the second batch: %v", got)
	}
}

func testApplyTwice(t *testing.T, st carryover.Store) {
	b := Batch("s1", "/p", 0, 4)
	apply(t, st, b, b)
	if n := len(allChunks(t, st, "")); n != 4 {
		t.Errorf("%d chunks after applying a batch twice, want 4", n)
	}
	its := items(t, st, carryover.ItemFilter{SessionID: "s1"})
	if len(its) != 5 {
		t.Errorf("%d items, want 5", len(its))
	}
	for _, it := range its {
		if it.Count != 1 {
			t.Errorf("item %s: Count %d after a re-ingest, want 1", it.Key, it.Count)
		}
	}
	if cs, _ := st.Compactions(context.Background(), "s1"); len(cs) != 1 {
		t.Errorf("%d compactions, want 1", len(cs))
	}
	got := search(t, st, carryover.Query{Text: "cache.go"})
	slices.Sort(got)
	if want := []string{"s1/0", "s1/1", "s1/2", "s1/3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("search after a re-ingest = %v, want each chunk once %v", got, want)
	}
}

func testDuplicateChunk(t *testing.T, st carryover.Store) {
	a := Batch("a", "/p", 0, 1)
	apply(t, st, a)
	// A resumed session repeats the chunk (same hash, same project).
	b := Batch("b", "/p", 0, 1)
	b.Chunks[0].Hash = a.Chunks[0].Hash
	apply(t, st, b)
	if n := len(allChunks(t, st, "")); n != 1 {
		t.Errorf("%d chunks, want 1 (duplicate hash in one project)", n)
	}
	ca := allChunks(t, st, "a")
	for _, it := range items(t, st, carryover.ItemFilter{SessionID: "b"}) {
		if it.ChunkID != ca[0].ID {
			t.Errorf("item %s of b: ChunkID %d, want the stored chunk %d", it.Key, it.ChunkID, ca[0].ID)
		}
	}
	// The same hash in another project is another chunk.
	c := Batch("c", "/q", 0, 1)
	c.Chunks[0].Hash = a.Chunks[0].Hash
	apply(t, st, c)
	if n := len(allChunks(t, st, "")); n != 2 {
		t.Errorf("%d chunks, want 2 (same hash, other project)", n)
	}
}

func testItemMerge(t *testing.T, st carryover.Store) {
	b := Batch("s1", "/p", 0, 3)
	apply(t, st, b)
	get := func() carryover.Item {
		t.Helper()
		its := items(t, st, carryover.ItemFilter{SessionID: "s1", Kinds: []carryover.ItemKind{carryover.KindError}})
		if len(its) != 1 {
			t.Fatalf("error items: %+v", its)
		}
		return its[0]
	}
	first := get()
	later := carryover.Batch{Session: b.Session, State: b.State, Items: []carryover.Item{{
		ChunkSeq: 2, Kind: carryover.KindError, Key: "error:undefined key", Text: "cache.go:12: undefined: Key",
		Detail: "added type Key", Line: 29, Time: base.Add(time.Hour), Weight: 0.8, Resolved: true,
	}}}
	apply(t, st, later)
	got := get()
	if got.Count != 2 || got.Line != 29 || got.Text != "cache.go:12: undefined: Key" || got.Detail != "added type Key" ||
		!got.Resolved || got.Weight != 1 || got.ID != first.ID || got.ChunkSeq != 2 || !got.Time.Equal(base.Add(time.Hour)) {
		t.Errorf("after a later occurrence: %+v", got)
	}
	if chunks := allChunks(t, st, "s1"); got.ChunkID != chunks[2].ID {
		t.Errorf("ChunkID %d, want chunk seq 2 of the earlier batch (%d)", got.ChunkID, chunks[2].ID)
	}
	// Re-ingesting the first occurrence (older line) changes nothing.
	apply(t, st, b)
	if again := get(); !reflect.DeepEqual(again, got) {
		t.Errorf("re-ingest of an older occurrence changed the item:\n got %+v\nwant %+v", again, got)
	}
}

func testSessionMerge(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	b := Batch("s1", "/p", 0, 2)
	b.Session.Windows, b.Session.Turns = 2, 5
	apply(t, st, b)
	next := carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p", Windows: 1, Turns: 7,
		Started: base.Add(-time.Hour), Updated: base.Add(time.Hour)}}
	apply(t, st, next)
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
	// A batch without a project does not move the session.
	apply(t, st, carryover.Batch{Session: carryover.Session{ID: "s1", Title: "a better title"}})
	ss, _ = st.Session(ctx, "s1")
	if ss.Title != "a better title" || ss.Project != "/p" {
		t.Errorf("session %+v: want the new title and the first project", ss)
	}
}

func testCompactionUpsert(t *testing.T, st carryover.Store) {
	b := Batch("s1", "/p", 0, 1)
	apply(t, st, b)
	apply(t, st, carryover.Batch{Session: b.Session, State: b.State, Compactions: []carryover.Compaction{
		{Window: 1, Trigger: "manual", Line: 41},
		{Window: 2, Trigger: "auto", PreTokens: 150000, Line: 90, Time: base.Add(2 * time.Hour)},
	}})
	got, err := st.Compactions(context.Background(), "s1")
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

func testRejects(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	for name, mutate := range map[string]func(*carryover.Batch){
		"no session id":       func(b *carryover.Batch) { b.Session.ID = "" },
		"chunk other session": func(b *carryover.Batch) { b.Chunks[0].SessionID = "s2" },
		"chunk other project": func(b *carryover.Batch) { b.Chunks[0].Project = "/elsewhere" },
		"chunk without hash":  func(b *carryover.Batch) { b.Chunks[1].Hash = "" },
		"item without key":    func(b *carryover.Batch) { b.Items[0].Key = "" },
		"state other session": func(b *carryover.Batch) { b.State.SessionID = "s2" },
	} {
		b := Batch("s1", "/p", 0, 2)
		mutate(&b)
		if err := st.Apply(ctx, b); err == nil {
			t.Errorf("%s: Apply succeeded", name)
		}
	}
	if ss, err := st.Sessions(ctx, carryover.SessionFilter{}); err != nil || len(ss) != 0 {
		t.Errorf("sessions after rejected batches: %+v, %v", ss, err)
	}
	if n := len(allChunks(t, st, "")); n != 0 {
		t.Errorf("%d chunks after rejected batches", n)
	}
	b := Batch("s1", "/p", 0, 2)
	b.Chunks[0].SessionID, b.Chunks[0].Project, b.Items[0].SessionID, b.State.SessionID = "", "", "", ""
	if err := st.Apply(ctx, b); err != nil {
		t.Fatalf("Apply with empty part ids: %v", err)
	}
}

func testChunkFilters(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	apply(t, st, Batch("s1", "/p", 0, 8), Batch("s2", "/p", 0, 2))
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
	all := allChunks(t, st, "s1")
	for name, tc := range map[string]struct {
		f    carryover.ChunkFilter
		want []int
	}{
		"turn":          {carryover.ChunkFilter{SessionID: "s1", Turn: 1}, []int{2, 3}},
		"before window": {carryover.ChunkFilter{SessionID: "s1", Turn: -1, BeforeWindow: 1}, []int{0, 1, 2, 3}},
		"from seq":      {carryover.ChunkFilter{SessionID: "s1", Turn: -1, FromSeq: 6}, []int{6, 7}},
		"lines":         {carryover.ChunkFilter{SessionID: "s1", Turn: -1, FromLine: 25, ToLine: 41}, []int{2, 3, 4}},
		"ids":           {carryover.ChunkFilter{Turn: -1, IDs: []int64{all[5].ID, all[1].ID}}, []int{1, 5}},
		"newest":        {carryover.ChunkFilter{SessionID: "s1", Turn: -1, Newest: true, Limit: 3}, []int{7, 6, 5}},
		"limit":         {carryover.ChunkFilter{SessionID: "s1", Turn: -1, Limit: 2}, []int{0, 1}},
	} {
		if got := seqs(tc.f); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: seqs %v, want %v", name, got, tc.want)
		}
	}
	// The chunks that hold lines, read at once (a search's passages): the
	// first of each line's, as Chunks gives it alone; none for a line no
	// chunk holds or an unknown session's.
	refs := []carryover.LineRef{{SessionID: "s1", Line: all[4].FirstLine}, {SessionID: "s2", Line: 1},
		{SessionID: "s1", Line: all[7].LastLine}, {SessionID: "s1", Line: all[7].LastLine + 1000}, {SessionID: "nope", Line: 1},
		{SessionID: "s1", Line: all[0].LastLine}}
	at, err := carryover.ReadChunksAt(ctx, st, refs)
	if err != nil || len(at) != len(refs) {
		t.Fatalf("ReadChunksAt: %d of %d, %v", len(at), len(refs), err)
	}
	for i, r := range refs {
		want, err := st.Chunks(ctx, carryover.ChunkAt(r))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(at[i], want) {
			t.Errorf("ReadChunksAt %v = %+v, want %+v", r, at[i], want)
		}
	}
	if n := len(at[0]) + len(at[1]) + len(at[2]) + len(at[5]); n != 4 || len(at[3])+len(at[4]) != 0 {
		t.Errorf("ReadChunksAt found %d of 4 chunks, and %d for lines no chunk holds", n, len(at[3])+len(at[4]))
	}
}

func testSessionAndItemFilters(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a, b, c := Batch("a", "/p", 0, 2), Batch("b", "/p", 0, 6), Batch("c", "/q", 0, 1)
	a.Session.Updated, b.Session.Updated, c.Session.Updated = base.Add(time.Hour), base.Add(3*time.Hour), base.Add(2*time.Hour)
	apply(t, st, a, b, c)
	ids := func(ss []carryover.Session) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return strings.Join(out, ",")
	}
	all, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil || ids(all) != "b,c,a" {
		t.Errorf("Sessions = %s, %v; want b,c,a (most recently updated first)", ids(all), err)
	}
	if p, _ := st.Sessions(ctx, carryover.SessionFilter{Project: "/p", Limit: 1}); ids(p) != "b" {
		t.Errorf("Sessions(/p, limit 1) = %s, want b", ids(p))
	}
	if n := len(items(t, st, carryover.ItemFilter{Project: "/p"})); n != 3+7 {
		t.Errorf("items of /p: %d, want 10", n)
	}
	errs := items(t, st, carryover.ItemFilter{Project: "/p", Kinds: []carryover.ItemKind{carryover.KindError, carryover.KindGoal}})
	if len(errs) != 2 {
		t.Errorf("error items of /p: %d, want 2", len(errs))
	}
	early := items(t, st, carryover.ItemFilter{SessionID: "b", BeforeWindow: 1, Kinds: []carryover.ItemKind{carryover.KindCommand}})
	if len(early) != 4 {
		t.Errorf("command items of b before window 1: %d, want 4", len(early))
	}
	late := items(t, st, carryover.ItemFilter{SessionID: "b", FromWindow: 1, Kinds: []carryover.ItemKind{carryover.KindCommand}})
	commands := items(t, st, carryover.ItemFilter{SessionID: "b", Kinds: []carryover.ItemKind{carryover.KindCommand}})
	if len(late) == 0 || len(early)+len(late) != len(commands) || slices.ContainsFunc(late, func(it carryover.Item) bool { return it.Window < 1 }) {
		t.Errorf("command items of b from window 1: %d (of %d, %d before it), want those of windows 1 and later", len(late), len(commands), len(early))
	}
	if lim := items(t, st, carryover.ItemFilter{SessionID: "b", Limit: 2}); len(lim) != 2 || lim[0].Line < lim[1].Line {
		t.Errorf("limit 2: %+v", lim)
	}
	// Across sessions, newest time first.
	across := items(t, st, carryover.ItemFilter{Project: "/p", Kinds: []carryover.ItemKind{carryover.KindCommand}})
	for i := 1; i < len(across); i++ {
		if across[i].Time.After(across[i-1].Time) {
			t.Errorf("items across sessions not newest first: %v after %v", across[i].Time, across[i-1].Time)
		}
	}
}

// searchFixture stores chunks whose words the search tests look for.
func searchFixture(t *testing.T, st carryover.Store) {
	b := carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p", Updated: base}}
	add := func(seq, window int, text string, files ...string) {
		b.Chunks = append(b.Chunks, carryover.Chunk{Seq: seq, Turn: seq, Window: window, FirstLine: seq*10 + 1, LastLine: seq*10 + 9,
			Start: base.Add(time.Duration(seq) * time.Hour), End: base.Add(time.Duration(seq) * time.Hour),
			Text: text + " alpha", Files: files, Hash: fmt.Sprintf("h%d", seq)})
	}
	add(0, 0, "the deploy failed with a timeout talking to the registry")
	add(1, 0, "renamed parseHTTPResponse to decodeReply in the client")
	add(2, 1, "edited the handler", "src/app/main.go")
	add(3, 1, "set MAX_RETRIES to 5 and the zebra flag")
	add(4, 2, "the weather is nice; nothing about code here")
	apply(t, st, b)
	other := carryover.Batch{Session: carryover.Session{ID: "s2", Project: "/q", Updated: base},
		Chunks: []carryover.Chunk{{Seq: 0, Text: "another zebra in another project", Hash: "q0", Start: base, End: base}}}
	apply(t, st, other)
}

func testSearch(t *testing.T, st carryover.Store) {
	searchFixture(t, st)
	for q, want := range map[string]string{
		"deploy timeout":          "s1/0",
		"http response":           "s1/1", // parts of a camelCase identifier
		"parseHTTPResponse":       "s1/1",
		"main.go":                 "s1/2", // a file's base name
		"src/app/main.go":         "s1/2",
		"max_retries":             "s1/3",
		"what was the DEPLOY fix": "s1/0",
	} {
		got := search(t, st, carryover.Query{Text: q, Project: "/p"})
		if len(got) == 0 || got[0] != want {
			t.Errorf("search %q = %v, want %s first", q, got, want)
		}
	}
	if got := search(t, st, carryover.Query{Text: "unicorn"}); len(got) != 0 {
		t.Errorf("search of an absent word = %v, want nothing", got)
	}
	if got := search(t, st, carryover.Query{Text: "zebra", Limit: 1}); len(got) != 1 {
		t.Errorf("limit 1: %v", got)
	}
	if got := search(t, st, carryover.Query{Text: "zebra"}); len(got) != 2 {
		t.Errorf("zebra in all projects = %v, want 2 hits", got)
	}
}

func testSearchFilters(t *testing.T, st carryover.Store) {
	searchFixture(t, st)
	for name, tc := range map[string]struct {
		q    carryover.Query
		want []string
	}{
		"project":       {carryover.Query{Text: "zebra", Project: "/q"}, []string{"s2/0"}},
		"session":       {carryover.Query{Text: "zebra", SessionID: "s1"}, []string{"s1/3"}},
		"before window": {carryover.Query{Text: "alpha", SessionID: "s1", BeforeWindow: 1}, []string{"s1/0", "s1/1"}},
		"file":          {carryover.Query{Text: "handler edited", File: "MAIN.go"}, []string{"s1/2"}},
		"file wildcard": {carryover.Query{Text: "handler edited", File: "%"}, nil},
		"since":         {carryover.Query{Text: "alpha", Project: "/p", Since: base.Add(150 * time.Minute)}, []string{"s1/3", "s1/4"}},
	} {
		got := search(t, st, tc.q)
		slices.Sort(got)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

// testSearchCapped: a query whose every word matches more rows than a
// search ranks (rank.MaxCandidates) ranks only the newest
// rank.CappedCandidates matches of the word it keeps.
func testSearchCapped(t *testing.T, st carryover.Store) {
	const n = rank.MaxCandidates + 100
	b := carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p", Updated: base}}
	for seq := range n {
		b.Chunks = append(b.Chunks, carryover.Chunk{Seq: seq, Turn: seq, FirstLine: seq + 1, LastLine: seq + 1,
			Start: base, End: base, Text: fmt.Sprintf("heron number %d wading", seq), Hash: fmt.Sprint("c", seq)})
	}
	apply(t, st, b)
	hits, err := st.Search(context.Background(), carryover.Query{Text: "heron", Project: "/p", Limit: 2 * rank.CappedCandidates})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != rank.CappedCandidates {
		t.Errorf("%d hits, want the %d newest matches", len(hits), rank.CappedCandidates)
	}
	for _, h := range hits {
		if h.Chunk.Seq < n-rank.CappedCandidates {
			t.Fatalf("hit %d is not among the newest %d matches", h.Chunk.Seq, rank.CappedCandidates)
		}
	}
}

// testSearchRankedOrder checks whole rankings, not only the top hit, on
// fixtures where BM25 decides: every chunk has as many tokens, each in its
// own turn, so that the order follows from how often and where a chunk
// holds the query's words and how rare they are.
func testSearchRankedOrder(t *testing.T, st carryover.Store) {
	b := carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p", Updated: base}}
	add := func(prompt, summary, file, text string) {
		seq := len(b.Chunks)
		b.Chunks = append(b.Chunks, carryover.Chunk{Seq: seq, Turn: seq, FirstLine: seq + 1, LastLine: seq + 1,
			Start: base, End: base, Prompt: prompt, Summary: summary, Files: []string{file}, Text: text, Hash: fmt.Sprint("r", seq)})
	}
	// Six words of prose each: kestrel in five of them, lantern in three.
	add("plan", "notes", "docs/readme.md", "kestrel kestrel lantern moss fern reed")    // 0: both, kestrel twice
	add("plan", "notes", "docs/readme.md", "kestrel lantern moss fern reed sedge")      // 1: both
	add("plan", "notes", "docs/readme.md", "lantern moss fern reed sedge rush")         // 2: the rarer word
	add("plan", "notes", "docs/readme.md", "kestrel moss fern reed sedge rush")         // 3: the commoner word
	add("plan", "notes", "docs/readme.md", "kestrel moss fern reed sedge rush bulrush") // 4: the same, longer
	add("plan", "notes", "docs/readme.md", "kestrel sparrow finch wren robin lark")     // 5: the commoner word, other words
	// The same words, osprey in another field each: a file, the prompt,
	// the prose.
	add("plan", "notes", "docs/osprey.md", "moss fern reed sedge rush bulrush")   // 6
	add("osprey", "notes", "docs/readme.md", "moss fern reed sedge rush bulrush") // 7
	add("plan", "notes", "docs/readme.md", "osprey fern reed sedge rush bulrush") // 8
	for range 4 {
		add("plan", "notes", "docs/readme.md", "moss fern reed sedge rush bulrush")
	}
	apply(t, st, b)
	for q, want := range map[string][]string{
		"kestrel lantern": {"s1/0", "s1/1", "s1/2"},
		"osprey":          {"s1/6", "s1/7", "s1/8"},
	} {
		got := search(t, st, carryover.Query{Text: q, Project: "/p", Limit: 3})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("search %q = %v, want %v", q, got, want)
		}
	}
	// Below the top three: one word, shorter before longer.
	got := search(t, st, carryover.Query{Text: "kestrel lantern", Project: "/p"})
	if len(got) != 6 || got[3] == "s1/4" || slices.Index(got, "s1/3") > slices.Index(got, "s1/4") {
		t.Errorf("search %q = %v, want all six, s1/3 before s1/4", "kestrel lantern", got)
	}
	hits, err := st.Search(context.Background(), carryover.Query{Text: "kestrel lantern", Project: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hit %d scores %v after %v: not best first", i, hits[i].Score, hits[i-1].Score)
		}
	}
}

// testSearchScriptsWithoutSpaces checks that a word inside a run of
// Chinese, Japanese or Korean is found, and only where the run holds it.
func testSearchScriptsWithoutSpaces(t *testing.T, st carryover.Store) {
	b := carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p", Updated: base}}
	for i, text := range []string{
		"首次全量 = 自动化优先",
		"データベースの移行を完了しました",
		"데이터베이스를 백업했습니다",
		"全量同步 finished",
		"the deploy finished",
	} {
		b.Chunks = append(b.Chunks, carryover.Chunk{Seq: i, Turn: i, Start: base, End: base, Text: text, Hash: fmt.Sprint("c", i)})
	}
	apply(t, st, b)
	for q, want := range map[string][]string{
		"全量":     {"s1/0", "s1/3"},
		"自动化":    {"s1/0"},
		"自动化优先":  {"s1/0"},
		"全量同步":   {"s1/3"},
		"移行":     {"s1/1"},
		"データベース": {"s1/1"},
		"데이터베이스": {"s1/2"},
		"同步优先":   nil,
	} {
		got := search(t, st, carryover.Query{Text: q, Project: "/p"})
		slices.Sort(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("search %q = %v, want %v", q, got, want)
		}
	}
}

func testSearchAnyText(t *testing.T, st carryover.Store) {
	searchFixture(t, st)
	for _, q := range []string{
		"", "   ", `"`, `'`, `\`, "*", "-", "!", "&", "|", "<->", ":*", "()", ")(", `foo-bar: (x "unterminated`,
		"AND OR NOT", "NEAR(a b)", "a:*", "deploy & | ! <-> :* ( )", "'; DROP TABLE chunks; --", "$1 $$ ?",
		"deploy\x00timeout", "\xff\xfe deploy", "ﬁle ①２", "🦓 zebra", strings.Repeat("zebra deploy ", 2000),
		"e = mc^2", "C:\\Users\\x\\main.go", "{{vec_type}}", "％", "a b c d e f g h",
	} {
		if _, err := st.Search(context.Background(), carryover.Query{Text: q, File: q}); err != nil {
			t.Errorf("search %q: %v", q, err)
		}
	}
	if got := search(t, st, carryover.Query{Text: `deploy AND ("timeout"`}); len(got) == 0 || got[0] != "s1/0" {
		t.Errorf("search with operators in it = %v, want s1/0 first", got)
	}
}

func testOddText(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	b := Batch("s1", "/p", 0, 1)
	b.Chunks[0].Text = "a NUL \x00 byte, invalid \xff UTF-8, quotes ' \" and a backslash \\ near okapi"
	b.Items[0].Text = "nul \x00 in an item"
	apply(t, st, b)
	if got := search(t, st, carryover.Query{Text: "okapi"}); len(got) != 1 {
		t.Errorf("search of a chunk with odd bytes = %v", got)
	}
	cs := allChunks(t, st, "s1")
	if len(cs) != 1 || !strings.Contains(cs[0].Text, "backslash \\ near okapi") {
		t.Errorf("stored text %q", cs[0].Text)
	}
	if _, err := st.AddNote(ctx, carryover.Note{SessionID: "s1", Project: "/p", Text: "note with \x00"}); err != nil {
		t.Errorf("note with a NUL: %v", err)
	}
}

func testInjections(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	in := carryover.Injection{Time: base, SessionID: "s1", Project: "/p", Event: "SessionStart:compact", Window: 1,
		Chars: 3900, Tokens: 975, ChunkIDs: []int64{3, 1, 2}, ItemIDs: []int64{7}, Hash: "abc", Latency: 4200 * time.Microsecond,
		Text:   "## carryover: restored after compaction (session s1, window 1)\n- `go test -race ./...` 'quoted' \"é\" 漢字\n",
		Reason: "restore after compaction 1: 1 item, 3 chunks"}
	id1, err := st.RecordInjection(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	id2, err := st.RecordInjection(ctx, carryover.Injection{SessionID: "s2", Event: "PreCompact"})
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
	if s1, err := st.Injections(ctx, "s1", 0); err != nil || len(s1) != 1 || s1[0].ID != id1 {
		t.Errorf("Injections(s1) = %+v, %v", s1, err)
	}
	if lim, _ := st.Injections(ctx, "", 1); len(lim) != 1 {
		t.Errorf("limit 1: %d injections", len(lim))
	}

	// A session and its records read at once (prompt recall): what
	// SessionWithoutCounts and the records read alone give; an unknown
	// session's records come with an error wrapping ErrNotFound.
	apply(t, st, Batch("s1", "/p", 0, 2))
	if _, err := st.RecordInjection(ctx, carryover.Injection{SessionID: "s1", Event: "UserPromptSubmit", Window: 1, ChunkIDs: []int64{9}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id      string
		known   bool
		records int
	}{{"s1", true, 1}, {"s2", false, 1}, {"s", false, 0}} {
		sess, prev, err := carryover.ReadSessionAndInjections(ctx, st, tc.id, 1)
		if tc.known != (err == nil) || !tc.known && !errors.Is(err, carryover.ErrNotFound) {
			t.Errorf("ReadSessionAndInjections(%s): %v", tc.id, err)
		}
		want, _ := carryover.SessionWithoutCounts(ctx, st, tc.id)
		wantPrev, _ := carryover.ReadInjectionsWithoutText(ctx, st, tc.id, 1)
		if !reflect.DeepEqual(sess, want) || len(prev) != tc.records || len(prev) != len(wantPrev) ||
			tc.records > 0 && (prev[0].ID != wantPrev[0].ID || !reflect.DeepEqual(prev[0].ChunkIDs, wantPrev[0].ChunkIDs) ||
				prev[0].Window != wantPrev[0].Window) {
			t.Errorf("ReadSessionAndInjections(%s) = %+v, %+v; want %+v, %+v", tc.id, sess, prev, want, wantPrev)
		}
	}

	// A text over the cap is kept cut, the same way by every store.
	long := strings.Repeat("- a long restore line with a path internal/pdf/render.go\n", 1000)
	if _, err := st.RecordInjection(ctx, carryover.Injection{SessionID: "s3", Event: "UserPromptSubmit", Chars: len(long),
		Text: long, Reason: "recall"}); err != nil {
		t.Fatal(err)
	}
	s3, err := st.Injections(ctx, "s3", 0)
	if err != nil || len(s3) != 1 {
		t.Fatalf("Injections(s3) = %d, %v", len(s3), err)
	}
	if got := s3[0].Text; got != carryover.ClipInjectionText(long) || len(got) > carryover.InjectionTextCap || s3[0].Chars != len(long) {
		t.Errorf("a %d-byte text was kept as %d bytes (cap %d), chars %d", len(long), len(got), carryover.InjectionTextCap, s3[0].Chars)
	}
}

func testNotes(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	for _, n := range []carryover.Note{
		{Time: base, SessionID: "s1", Project: "/p", Kind: "decision", Text: "use sqlite"},
		{Time: base, SessionID: "s1", Project: "/p", Kind: "state", Text: "step 1 of 3"},
		{Time: base, SessionID: "s2", Project: "/p", Kind: "state", Text: "other session"},
		{Time: base, Project: "/p", Kind: "state", Text: "project state 1"},
		{Time: base, SessionID: "s1", Project: "/p", Kind: "state", Text: "step 2 of 3"},
		{Time: base, Project: "/p", Kind: "state", Text: "project state 2"},
		{SessionID: "s1", Project: "/p", Text: "plain"},
	} {
		if _, err := st.AddNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	texts := func(ns []carryover.Note) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.Kind+":"+n.Text)
		}
		return out
	}
	s1, err := st.Notes(ctx, "", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(s1), []string{"decision:use sqlite", "state:step 2 of 3", "note:plain"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Notes(s1) = %q, want %q", got, want)
	}
	p, err := st.Notes(ctx, "/p", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(p), []string{"decision:use sqlite", "state:other session", "state:step 2 of 3",
		"state:project state 2", "note:plain"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Notes(/p) = %q, want %q", got, want)
	}
	if s1[0].ID == 0 || !s1[0].Time.Equal(base) || s1[0].Project != "/p" || s1[0].SessionID != "s1" {
		t.Errorf("note fields: %+v", s1[0])
	}
	if s1[2].Time.IsZero() {
		t.Error("a zero Time was not set to now")
	}
	// Both as a restore reads them (at once where the store can) are the
	// same two lists.
	both := func(project, sessionID string) ([]carryover.Note, []carryover.Note, error) {
		r, err := carryover.ReadForRestore(ctx, st, carryover.RestoreReads{SessionID: sessionID, Project: project,
			Recent: carryover.ChunkFilter{SessionID: sessionID, Turn: -1, Limit: 1}})
		return r.SessionNotes, r.ProjectNotes, err
	}
	ps, pp, err := both("/p", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ps, s1) || !reflect.DeepEqual(pp, p) {
		t.Errorf("ReadForRestore's notes = %q, %q; want Notes' %q, %q", texts(ps), texts(pp), texts(s1), texts(p))
	}
	if ps, pp, err := both("/none", "s9"); err != nil || len(ps)+len(pp) != 0 {
		t.Errorf("ReadForRestore's notes of nothing = %q, %q, %v", texts(ps), texts(pp), err)
	}
}

func testHookRunsAndRedactions(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	for i, ev := range []string{"PreCompact", "UserPromptSubmit", "UserPromptSubmit"} {
		err := st.RecordHookRun(ctx, carryover.HookRun{Time: base.Add(time.Duration(i) * time.Second), SessionID: "s1",
			Project: "/p", Event: ev, Latency: time.Duration(i+1) * time.Millisecond, Outcome: "ok", Chars: 10 * i})
		if err != nil {
			t.Fatal(err)
		}
	}
	runs, err := st.HookRuns(ctx, carryover.HookRunFilter{Project: "/p", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Latency != 3*time.Millisecond || runs[0].Chars != 20 || !runs[0].Time.Equal(base.Add(2*time.Second)) {
		t.Fatalf("runs = %+v", runs)
	}
	if since, _ := st.HookRuns(ctx, carryover.HookRunFilter{SessionID: "s1", Since: base.Add(time.Second)}); len(since) != 2 {
		t.Errorf("runs since 1s: %d, want 2", len(since))
	}
	b := Batch("s1", "/p", 0, 1)
	b.Redactions = map[string]int{"aws-access-key": 2, "jwt": 1}
	apply(t, st, b)
	b = Batch("s1", "/p", 1, 1)
	b.Redactions = map[string]int{"aws-access-key": 1}
	apply(t, st, b)
	c := Batch("s2", "/q", 0, 1)
	c.Redactions = map[string]int{"jwt": 5}
	apply(t, st, c)
	red, err := st.Redactions(ctx, "")
	if err != nil || red["aws-access-key"] != 3 || red["jwt"] != 6 {
		t.Fatalf("redactions = %v, %v", red, err)
	}
	if red, _ := st.Redactions(ctx, "/p"); red["jwt"] != 1 {
		t.Errorf("redactions of /p = %v", red)
	}
	if n, err := st.Size(ctx); err != nil || n < 4096 {
		t.Fatalf("size = %d, %v", n, err)
	}
}

func testPrune(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	apply(t, st, Batch("s1", "/p/a", 0, 6), Batch("s2", "/p/a", 0, 4), Batch("s3", "/p/b", 0, 3))
	if _, err := st.AddNote(ctx, carryover.Note{SessionID: "s1", Project: "/p/a", Kind: "note", Text: "remember zebra"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordInjection(ctx, carryover.Injection{SessionID: "s1", Project: "/p/a", Event: "UserPromptSubmit", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{}); err == nil {
		t.Fatal("prune with no filter succeeded")
	}
	dry, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Sessions) != 1 || dry.Chunks != 6 || dry.Notes != 1 || dry.Injections != 1 || dry.Items != 7 || dry.Compactions != 1 {
		t.Fatalf("dry run report = %+v", dry)
	}
	if n := len(allChunks(t, st, "s1")); n != 6 {
		t.Fatalf("dry run removed chunks: %d left", n)
	}
	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep, dry) {
		t.Fatalf("prune report %+v differs from dry run %+v", rep, dry)
	}
	for _, h := range search(t, st, carryover.Query{Text: "s1 cache"}) {
		if strings.HasPrefix(h, "s1/") {
			t.Fatalf("search still finds the pruned session: %s", h)
		}
	}
	if _, err := st.Session(ctx, "s1"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("pruned session: %v", err)
	}
	if n := len(items(t, st, carryover.ItemFilter{SessionID: "s1"})); n != 0 {
		t.Errorf("%d items left", n)
	}
	if ns, _ := st.Notes(ctx, "", "s1"); len(ns) != 0 {
		t.Errorf("notes left: %+v", ns)
	}
	if in, _ := st.Injections(ctx, "s1", 0); len(in) != 0 {
		t.Errorf("injections left: %+v", in)
	}
	if n := len(allChunks(t, st, "")); n != 7 {
		t.Errorf("other sessions' chunks = %d, want 7", n)
	}
	old, err := st.Prune(ctx, carryover.PruneFilter{UpdatedBefore: base.Add(5 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(old.Sessions, ",") != "s3,s2" {
		t.Errorf("pruned by age = %v, want s3,s2 (oldest first)", old.Sessions)
	}
	if ss, _ := st.Sessions(ctx, carryover.SessionFilter{}); len(ss) != 0 {
		t.Errorf("sessions left: %+v", ss)
	}
}

// testPruneKeepsSharedChunk checks that pruning a session leaves the
// chunks another session holds too. A session resumed in a new file repeats
// the old one's lines (same uuids, same text), so its first chunks have the
// old session's hashes and Apply stores them once, under the old session:
// pruning the old one, the oldest, must not take the kept session's turns.
func testPruneKeepsSharedChunk(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a := Batch("a", "/p", 0, 2)
	apply(t, st, a)
	b := Batch("b", "/p", 0, 3)
	b.Chunks[0].Hash, b.Chunks[1].Hash = a.Chunks[0].Hash, a.Chunks[1].Hash
	b.Chunks[0].Text, b.Chunks[1].Text = a.Chunks[0].Text, a.Chunks[1].Text
	apply(t, st, b)
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a"}); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range allChunks(t, st, "") {
		texts = append(texts, c.Text)
	}
	for _, c := range b.Chunks {
		if !slices.Contains(texts, c.Text) {
			t.Errorf("after pruning a, session b's chunk %d (%q) is gone", c.Seq, c.Text)
		}
	}
	for _, it := range items(t, st, carryover.ItemFilter{SessionID: "b"}) {
		if it.ChunkID == 0 {
			t.Errorf("after pruning a, item %s of b has lost its chunk", it.Key)
		}
	}
}

// testForget checks that a forgotten session stays gone: Apply refuses it
// and stores nothing until Unforget.
func testForget(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	apply(t, st, Batch("s1", "/p/a", 0, 4), Batch("s2", "/p/a", 0, 3))
	if _, err := st.Prune(ctx, carryover.PruneFilter{Project: "/p/a", Forget: true}); err == nil {
		t.Fatal("forget without a session id succeeded")
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1", Forget: true, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if gone, err := st.Forgotten(ctx, "s1"); err != nil || gone {
		t.Fatalf("forgotten after a dry run = %v, %v", gone, err)
	}
	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1", Forget: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sessions) != 1 || rep.Chunks != 4 {
		t.Fatalf("forget report = %+v", rep)
	}
	if gone, err := st.Forgotten(ctx, "s1"); err != nil || !gone {
		t.Fatalf("forgotten = %v, %v, want true", gone, err)
	}
	if gone, err := st.Forgotten(ctx, "s2"); err != nil || gone {
		t.Fatalf("s2 forgotten = %v, %v, want false", gone, err)
	}
	redBefore, err := st.Redactions(ctx, "/p/a")
	if err != nil {
		t.Fatal(err)
	}
	b := Batch("s1", "/p/a", 0, 6)
	b.Redactions = map[string]int{"aws-key": 2}
	if err := st.Apply(ctx, b); !errors.Is(err, carryover.ErrForgotten) {
		t.Fatalf("apply of a forgotten session: %v, want ErrForgotten", err)
	}
	if _, err := st.Session(ctx, "s1"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("forgotten session came back: %v", err)
	}
	if _, err := st.IngestState(ctx, "s1"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("forgotten session's ingest state came back: %v", err)
	}
	if n := len(allChunks(t, st, "s1")); n != 0 {
		t.Errorf("%d chunks of the forgotten session stored", n)
	}
	if n := len(items(t, st, carryover.ItemFilter{SessionID: "s1"})); n != 0 {
		t.Errorf("%d items of the forgotten session stored", n)
	}
	for _, h := range search(t, st, carryover.Query{Text: "s1 cache"}) {
		if strings.HasPrefix(h, "s1/") {
			t.Fatalf("search finds the forgotten session: %s", h)
		}
	}
	if red, err := st.Redactions(ctx, "/p/a"); err != nil || !reflect.DeepEqual(red, redBefore) {
		t.Errorf("redactions = %v (%v), want %v", red, err, redBefore)
	}
	// Other sessions are not affected.
	apply(t, st, Batch("s2", "/p/a", 3, 2))
	// A session never archived can be forgotten ahead.
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s9", Forget: true}); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, Batch("s9", "/p/b", 0, 1)); !errors.Is(err, carryover.ErrForgotten) {
		t.Fatalf("apply of a session forgotten ahead: %v, want ErrForgotten", err)
	}

	if err := st.Unforget(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := st.Unforget(ctx, "s1"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("second unforget: %v, want ErrNotFound", err)
	}
	if gone, err := st.Forgotten(ctx, "s1"); err != nil || gone {
		t.Fatalf("forgotten after unforget = %v, %v", gone, err)
	}
	apply(t, st, Batch("s1", "/p/a", 0, 6))
	if n := len(allChunks(t, st, "s1")); n != 6 {
		t.Errorf("%d chunks after unforget, want 6", n)
	}
}

// testForgetRacingWriters forgets a session while writers apply batches
// of it: once the forget returns, nothing of the session may be stored.
func testForgetRacingWriters(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	apply(t, st, Batch("s1", "/p", 0, 2))
	var wg sync.WaitGroup
	started := make(chan struct{}, 3)
	errs := make(chan error, 3)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				err := st.Apply(ctx, Batch("s1", "/p", 2+10*(3*i+w), 2))
				if i == 0 {
					started <- struct{}{}
				}
				if errors.Is(err, carryover.ErrForgotten) {
					return
				}
				if err != nil || i == 5000 {
					errs <- fmt.Errorf("writer %d, batch %d: %v", w, i, err)
					return
				}
			}
		}()
	}
	for range 3 {
		<-started
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1", Forget: true}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s, err := st.Session(ctx, "s1"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("forgotten session stored after the forget: %+v, %v", s, err)
	}
	if n := len(allChunks(t, st, "")); n != 0 {
		t.Errorf("%d chunks stored after the forget", n)
	}
}

// testConcurrentWriters runs writers at once, each ingesting its own
// session batch by batch into one project, with chunks that other writers
// store too (a resumed session repeats its parent's): nothing may fail,
// and every chunk is stored exactly once.
func testConcurrentWriters(t *testing.T, st carryover.Store) {
	const writers, batches, perBatch = 4, 6, 3
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("w%d", w)
			for i := range batches {
				b := Batch(id, "/p", i*perBatch, perBatch)
				// The first chunk of every batch is shared by all writers.
				b.Chunks[0].Hash = fmt.Sprintf("shared-%d", i)
				b.Redactions = map[string]int{"jwt": 1, "aws": 1}
				if err := st.Apply(ctx, b); err != nil {
					errs <- fmt.Errorf("writer %s batch %d: %w", id, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := batches + writers*batches*(perBatch-1)
	if n := len(allChunks(t, st, "")); n != want {
		t.Errorf("%d chunks, want %d", n, want)
	}
	for w := range writers {
		id := fmt.Sprintf("w%d", w)
		state, err := st.IngestState(ctx, id)
		if err != nil || state.Offset != int64(1000*batches*perBatch) {
			t.Errorf("writer %s: state %+v, %v", id, state, err)
		}
		if its := items(t, st, carryover.ItemFilter{SessionID: id, Kinds: []carryover.ItemKind{carryover.KindCommand}}); len(its) != batches*perBatch {
			t.Errorf("writer %s: %d command items, want %d", id, len(its), batches*perBatch)
		}
	}
	if red, err := st.Redactions(ctx, "/p"); err != nil || red["jwt"] != writers*batches {
		t.Errorf("redactions = %v, %v; want %d jwt", red, err, writers*batches)
	}
}
