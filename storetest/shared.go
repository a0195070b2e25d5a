package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/exportfile"
)

// Resumed builds the batch of session id resuming the session of batch a
// in a new transcript: n chunks whose first `shared` are a's first ones
// (same hash and content) at places of id's own, shift lines further
// down and a turn later, as a resumed transcript that starts with a few
// lines of its own repeats the old session's.
func Resumed(a carryover.Batch, id string, shared, n, shift int) carryover.Batch {
	b := Batch(id, a.Session.Project, 0, n)
	b.Session.Updated = a.Session.Updated.Add(time.Hour)
	for i := range shared {
		c, old := &b.Chunks[i], a.Chunks[i]
		c.Hash, c.Text, c.Summary, c.Prompt = old.Hash, old.Text, old.Summary, old.Prompt
		c.Tools, c.Files, c.Commands, c.Errors = old.Tools, old.Files, old.Commands, old.Errors
		c.Start, c.End = old.Start, old.End
		c.FirstLine, c.LastLine, c.Turn = old.FirstLine+shift, old.LastLine+shift, old.Turn+1
	}
	for i := range b.Items {
		b.Items[i].Line += shift
	}
	return b
}

// place is where a session holds a chunk, and what the chunk is.
type place struct {
	Session                        string
	Seq, Turn, Window              int
	FirstLine, LastLine            int
	Start, End                     int64
	Hash, Prompt, Summary, Text    string
	Tools, Files, Commands, Errors []string
}

func placeOf(c carryover.Chunk) place {
	return place{Session: c.SessionID, Seq: c.Seq, Turn: c.Turn, Window: c.Window, FirstLine: c.FirstLine,
		LastLine: c.LastLine, Start: c.Start.UnixMilli(), End: c.End.UnixMilli(), Hash: c.Hash, Prompt: c.Prompt,
		Summary: c.Summary, Text: c.Text, Tools: c.Tools, Files: c.Files, Commands: c.Commands, Errors: c.Errors}
}

// wantPlaces is what a session's chunk reads must give for its batch:
// every chunk, at the batch's places.
func wantPlaces(b carryover.Batch) []place {
	out := make([]place, len(b.Chunks))
	for i, c := range b.Chunks {
		c.SessionID = b.Session.ID
		out[i] = placeOf(c)
	}
	return out
}

func places(cs []carryover.Chunk) []place {
	out := make([]place, len(cs))
	for i, c := range cs {
		out[i] = placeOf(c)
	}
	return out
}

// checkPlaces compares a session's chunks with the batch it was written
// from.
func checkPlaces(t *testing.T, what string, got []carryover.Chunk, b carryover.Batch) {
	t.Helper()
	if g, w := places(got), wantPlaces(b); !slices.EqualFunc(g, w, func(x, y place) bool { return fmt.Sprint(x) == fmt.Sprint(y) }) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

// checkItemChunks checks that every item of the session points at a
// chunk, and at the one of the session's chunks its ChunkSeq names.
func checkItemChunks(t *testing.T, st carryover.Store, session string) {
	t.Helper()
	bySeq := map[int]int64{}
	for _, c := range allChunks(t, st, session) {
		bySeq[c.Seq] = c.ID
	}
	for _, it := range items(t, st, carryover.ItemFilter{SessionID: session}) {
		if it.ChunkID == 0 || it.ChunkID != bySeq[it.ChunkSeq] {
			t.Errorf("item %s of %s: chunk %d, want %d (its chunk %d)", it.Key, session, it.ChunkID, bySeq[it.ChunkSeq], it.ChunkSeq)
		}
	}
}

// found returns the "session/seq" of each hit (search without its checks
// of the scores: hits of one turn may score below their BM25).
func found(t *testing.T, st carryover.Store, q carryover.Query) []string {
	t.Helper()
	hits, err := st.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s/%d", h.Chunk.SessionID, h.Chunk.Seq))
	}
	return out
}

// testSharedChunkReads checks that a resumed session's reads include the
// chunks it shares with the session it resumed, at its own places, that
// the chunks are stored once, and that an item of a later batch finds a
// shared chunk by its sequence number.
func testSharedChunkReads(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a := Batch("a", "/p", 0, 3)
	b := Resumed(a, "b", 2, 4, 100)
	apply(t, st, a, b)
	checkPlaces(t, "chunks of b", allChunks(t, st, "b"), b)
	checkPlaces(t, "chunks of a", allChunks(t, st, "a"), a)
	if all := allChunks(t, st, ""); len(all) != 5 {
		t.Errorf("%d chunks stored, want 5 (a's 3 and b's 2 of its own): %+v", len(all), places(all))
	}
	if s, err := st.Session(ctx, "b"); err != nil || s.Chunks != 4 {
		t.Errorf("session b holds %d chunks (%v), want 4", s.Chunks, err)
	}
	seqs := func(f carryover.ChunkFilter) []int {
		t.Helper()
		cs, err := st.Chunks(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, c := range cs {
			if c.SessionID != f.SessionID {
				t.Errorf("%+v: chunk %d of session %s", f, c.ID, c.SessionID)
			}
			out = append(out, c.Seq)
		}
		return out
	}
	shared := allChunks(t, st, "a")[1].ID
	for name, tc := range map[string]struct {
		f    carryover.ChunkFilter
		want []int
	}{
		// b's turns: its shared chunks are a turn later than in a.
		"turn":          {carryover.ChunkFilter{SessionID: "b", Turn: 1}, []int{0, 1, 2, 3}},
		"turn 0":        {carryover.ChunkFilter{SessionID: "b", Turn: 0}, nil},
		"before window": {carryover.ChunkFilter{SessionID: "b", Turn: -1, BeforeWindow: 1}, []int{0, 1, 2, 3}},
		"from seq":      {carryover.ChunkFilter{SessionID: "b", Turn: -1, FromSeq: 1}, []int{1, 2, 3}},
		"b's lines":     {carryover.ChunkFilter{SessionID: "b", Turn: -1, FromLine: 105, ToLine: 115}, []int{0, 1}},
		"a's lines":     {carryover.ChunkFilter{SessionID: "b", Turn: -1, FromLine: 1, ToLine: 9}, nil},
		"newest":        {carryover.ChunkFilter{SessionID: "b", Turn: -1, Newest: true, Limit: 3}, []int{3, 2, 1}},
		"oldest":        {carryover.ChunkFilter{SessionID: "b", Turn: -1, Limit: 1}, []int{0}},
		"ids":           {carryover.ChunkFilter{SessionID: "b", Turn: -1, IDs: []int64{shared}}, []int{1}},
	} {
		if got := seqs(tc.f); !slices.Equal(got, tc.want) {
			t.Errorf("%s: seqs %v, want %v", name, got, tc.want)
		}
	}
	// Without a session, each chunk once, where it was stored.
	if cs, err := st.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: []int64{shared}}); err != nil || len(cs) != 1 || cs[0].SessionID != "a" || cs[0].Seq != 1 {
		t.Errorf("chunk %d by id: %+v, %v; want a's chunk 1 once", shared, cs, err)
	}
	// An item of a later batch whose chunk came in an earlier one finds
	// it by sequence number, shared or not.
	later := carryover.Batch{Session: b.Session, State: b.State, Items: []carryover.Item{
		{SessionID: "b", ChunkSeq: 1, Kind: carryover.KindDecision, Text: "keep the cache key", Key: "decision:cache key",
			Line: 200, Time: base.Add(time.Hour), Weight: 1},
		{SessionID: "b", ChunkSeq: 3, Kind: carryover.KindDecision, Text: "drop the build tag", Key: "decision:build tag",
			Line: 201, Time: base.Add(time.Hour), Weight: 1},
	}}
	apply(t, st, later)
	checkItemChunks(t, st, "b")
	checkItemChunks(t, st, "a")
	// The same lines again store nothing new.
	apply(t, st, b)
	checkPlaces(t, "chunks of b after the same batch again", allChunks(t, st, "b"), b)
	if all := allChunks(t, st, ""); len(all) != 5 {
		t.Errorf("%d chunks stored after the same batch again, want 5", len(all))
	}
}

// testSearchFindsSharedOnce checks that a chunk two sessions hold is one
// hit, in a search of the project and of either session, found in a
// session search as that session's.
func testSearchFindsSharedOnce(t *testing.T, st carryover.Store) {
	a := Batch("a", "/p", 0, 3)
	a.Chunks[1].Text += " zebrafish quorum"
	b := Resumed(a, "b", 2, 3, 100)
	apply(t, st, a, b, Batch("c", "/p", 0, 2))
	if got := search(t, st, carryover.Query{Text: "zebrafish quorum", Project: "/p"}); !slices.Equal(got, []string{"a/1"}) {
		t.Errorf("search of the project = %v, want [a/1]", got)
	}
	if got := search(t, st, carryover.Query{Text: "zebrafish quorum"}); !slices.Equal(got, []string{"a/1"}) {
		t.Errorf("search of every project = %v, want [a/1]", got)
	}
	if got := search(t, st, carryover.Query{Text: "zebrafish quorum", SessionID: "a"}); !slices.Equal(got, []string{"a/1"}) {
		t.Errorf("search of a = %v, want [a/1]", got)
	}
	if got := search(t, st, carryover.Query{Text: "zebrafish quorum", SessionID: "b"}); !slices.Equal(got, []string{"b/1"}) {
		t.Errorf("search of b = %v, want [b/1]", got)
	}
	// Session b's search ranks its own chunks and those it shares, and
	// places them as b does.
	hits, err := st.Search(context.Background(), carryover.Query{Text: "ran go test cache.go", SessionID: "b", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%s/%d@%d", h.Chunk.SessionID, h.Chunk.Seq, h.Chunk.FirstLine))
	}
	slices.Sort(got)
	if want := []string{"b/0@101", "b/1@111", "b/2@21"}; !slices.Equal(got, want) {
		t.Errorf("search of b = %v, want %v", got, want)
	}
	if got := search(t, st, carryover.Query{Text: "zebrafish", SessionID: "b", BeforeWindow: 1}); !slices.Equal(got, []string{"b/1"}) {
		t.Errorf("search of b's first window = %v, want [b/1]", got)
	}
	if got := search(t, st, carryover.Query{Text: "zebrafish", SessionID: "c"}); len(got) != 0 {
		t.Errorf("search of c finds %v", got)
	}
}

// testPruneSharedReport checks that a prune's dry run reports what it
// removes and what it leaves to the session that shares it, and that
// pruning the sharer afterwards removes the chunk.
func testPruneSharedReport(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a := Batch("a", "/p", 0, 3)
	b := Resumed(a, "b", 2, 4, 100)
	apply(t, st, a, b)
	dry, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Chunks != 1 || dry.Shared != 2 {
		t.Errorf("dry run: %d chunks removed, %d left to b; want 1 and 2", dry.Chunks, dry.Shared)
	}
	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rep) != fmt.Sprint(dry) {
		t.Errorf("prune report %+v differs from the dry run %+v", rep, dry)
	}
	checkPlaces(t, "chunks of b after pruning a", allChunks(t, st, "b"), b)
	checkItemChunks(t, st, "b")
	if n := len(allChunks(t, st, "")); n != 4 {
		t.Errorf("%d chunks left, want b's 4", n)
	}
	if got := found(t, st, carryover.Query{Text: "step 2 of a"}); slices.Contains(got, "a/2") {
		t.Errorf("a's own chunk is still found: %v", got)
	}
	// c resumes b: it shares a chunk that b took over from a.
	c := Resumed(b, "c", 1, 2, 50)
	apply(t, st, c)
	rep, err = st.Prune(ctx, carryover.PruneFilter{SessionID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunks != 3 || rep.Shared != 1 {
		t.Errorf("pruning b: %d chunks removed, %d left to c; want 3 and 1", rep.Chunks, rep.Shared)
	}
	checkPlaces(t, "chunks of c after pruning b", allChunks(t, st, "c"), c)
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "c"}); err != nil {
		t.Fatal(err)
	}
	if all := allChunks(t, st, ""); len(all) != 0 {
		t.Errorf("after pruning every session, chunks left: %+v", places(all))
	}
}

// testPruneBothSharers checks that a chunk goes once every session that
// holds it is pruned: one after the other, in either order, or in one
// prune.
func testPruneBothSharers(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	for _, order := range [][]carryover.PruneFilter{
		{{SessionID: "a"}, {SessionID: "b"}},
		{{SessionID: "b"}, {SessionID: "a"}},
		{{UpdatedBefore: base.Add(48 * time.Hour), Project: "/p"}},
		{{Project: "/p"}},
	} {
		a := Batch("a", "/p", 0, 3)
		b := Resumed(a, "b", 2, 4, 100)
		apply(t, st, a, b, Batch("other", "/q", 0, 1))
		removed := 0
		for _, f := range order {
			rep, err := st.Prune(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			removed += rep.Chunks
		}
		if removed != 5 {
			t.Errorf("prunes %+v removed %d chunks, want 5", order, removed)
		}
		for _, c := range allChunks(t, st, "") {
			if c.SessionID != "other" {
				t.Errorf("prunes %+v left %s's chunk %d (%q)", order, c.SessionID, c.Seq, c.Text)
			}
		}
		if got := found(t, st, carryover.Query{Text: "step 0 of a"}); slices.ContainsFunc(got, func(h string) bool { return !strings.HasPrefix(h, "other/") }) {
			t.Errorf("prunes %+v: search still finds %v", order, got)
		}
		if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "other"}); err != nil {
			t.Fatal(err)
		}
	}
}

// testForgetKeepsSharedChunk checks that forgetting a session removes
// everything that is only its own (its chunk, items, raw lines) and
// leaves what the session resuming it holds too, whole.
func testForgetKeepsSharedChunk(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	lines := RawLines("r", 1, 60, 0)
	a := Batch("a", "/p", 0, 3)
	a.Chunks[2].Text += " only-in-a"
	a.Raw, a.RawReplace = lines, true
	b := Resumed(a, "b", 2, 4, 0)
	b.Raw, b.RawReplace = lines, true
	apply(t, st, a, b)
	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a", Forget: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunks != 1 || rep.Shared != 2 {
		t.Errorf("forget: %d chunks removed, %d left to b; want 1 and 2", rep.Chunks, rep.Shared)
	}
	if gone, err := st.Forgotten(ctx, "a"); err != nil || !gone {
		t.Fatalf("a forgotten = %v, %v", gone, err)
	}
	for _, c := range allChunks(t, st, "") {
		if c.SessionID != "b" || strings.Contains(c.Text, "only-in-a") {
			t.Errorf("after forgetting a: chunk %d of %s (%q) is left", c.Seq, c.SessionID, c.Text)
		}
	}
	if got := found(t, st, carryover.Query{Text: "only-in-a"}); len(got) != 0 {
		t.Errorf("search finds the forgotten session's own chunk: %v", got)
	}
	if n := len(items(t, st, carryover.ItemFilter{SessionID: "a"})); n != 0 {
		t.Errorf("%d items of the forgotten session left", n)
	}
	if got := rawLines(t, st, "a", 0, 0); len(got) != 0 {
		t.Errorf("%d raw lines of the forgotten session left", len(got))
	}
	checkPlaces(t, "chunks of b after forgetting a", allChunks(t, st, "b"), b)
	checkItemChunks(t, st, "b")
	if msg := sameLines(rawLines(t, st, "b", 0, 0), lines); msg != "" {
		t.Errorf("raw lines of b after forgetting a: %s", msg)
	}
	// A forgotten session that comes back takes nothing from b.
	if err := st.Apply(ctx, a); !errors.Is(err, carryover.ErrForgotten) {
		t.Fatalf("apply of the forgotten session: %v, want ErrForgotten", err)
	}
	checkPlaces(t, "chunks of b after a refused apply of a", allChunks(t, st, "b"), b)
}

// testSharedExportImport exports a resumed session and imports it into
// a store without either session: the same chunks come back, at the same
// places.
func testSharedExportImport(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a := Batch("a", "/p", 0, 3)
	b := Resumed(a, "b", 2, 4, 100)
	apply(t, st, a, b)
	sb, err := st.Session(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	n, err := exportfile.Write(ctx, &file, st, exportfile.WriteOptions{Sessions: []carryover.Session{sb}})
	if err != nil {
		t.Fatal(err)
	}
	if n.Chunks != 4 {
		t.Errorf("export of b wrote %d chunks, want 4", n.Chunks)
	}
	for _, id := range []string{"a", "b"} {
		if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if all := allChunks(t, st, ""); len(all) != 0 {
		t.Fatalf("chunks left before the import: %+v", places(all))
	}
	if _, err := exportfile.Read(ctx, bytes.NewReader(file.Bytes()), st, exportfile.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	checkPlaces(t, "chunks of b imported", allChunks(t, st, "b"), b)
	checkItemChunks(t, st, "b")
}
