package exportfile_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/exportfile"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/sqlite"
)

const demoID = "7f3c2a9e-5b1d-4e8a-9c6f-2d4b8e1a0c53"

// counts is what a store holds of the demo session.
type counts struct {
	chunks, items, compactions, injections, notes int
}

func countsOf(t *testing.T, st carryover.Store) counts {
	t.Helper()
	ctx := context.Background()
	cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: demoID, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	its, err := st.Items(ctx, carryover.ItemFilter{SessionID: demoID})
	if err != nil {
		t.Fatal(err)
	}
	comps, err := st.Compactions(ctx, demoID)
	if err != nil {
		t.Fatal(err)
	}
	ins, err := st.Injections(ctx, demoID, 0)
	if err != nil {
		t.Fatal(err)
	}
	notes, err := st.Notes(ctx, "", demoID)
	if err != nil {
		t.Fatal(err)
	}
	return counts{len(cs), len(its), len(comps), len(ins), len(notes)}
}

func open(t *testing.T, name string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), name+".db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// demoLines is the sample session the demo replays.
func demoLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimRight(string(data), "\n"), "\n")
}

// archive writes the first n lines as the session's transcript and
// archives what is new.
func archive(t *testing.T, st carryover.Store, dir string, lines []string, n int) {
	t.Helper()
	path := filepath.Join(dir, demoID+".jsonl")
	text := strings.Join(lines[:n], "")
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (&ingest.Archiver{Store: st}).File(context.Background(), path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
}

func export(t *testing.T, st carryover.Store) []byte {
	t.Helper()
	ctx := context.Background()
	sessions, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := exportfile.Write(ctx, &buf, st, exportfile.WriteOptions{Sessions: sessions, Orphans: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func importInto(t *testing.T, st carryover.Store, data []byte) exportfile.ReadReport {
	t.Helper()
	rep, err := exportfile.Read(context.Background(), bytes.NewReader(data), st, exportfile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestImportIdempotent: importing an export into the store it came from,
// or twice into another, adds nothing; into a store that archived the
// session itself (in other batches, so with other chunk boundaries), it
// adds no chunk over the lines that store already archived.
func TestImportIdempotent(t *testing.T) {
	ctx := context.Background()
	lines := demoLines(t)
	src := open(t, "src")
	archive(t, src, t.TempDir(), lines, len(lines))
	if _, err := src.RecordInjection(ctx, carryover.Injection{Time: time.Now(), SessionID: demoID, Project: "/p",
		Event: "SessionStart:compact", Window: 1, Chars: 10, Hash: "abc"}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddNote(ctx, carryover.Note{Time: time.Now(), SessionID: demoID, Project: "/p", Kind: "decision", Text: "use fpdf"}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddNote(ctx, carryover.Note{Time: time.Now(), Project: "/p", Kind: "constraint", Text: "no cgo"}); err != nil {
		t.Fatal(err)
	}
	data := export(t, src)
	want := countsOf(t, src)
	if want.chunks == 0 || want.items == 0 || want.injections != 1 || want.notes != 1 {
		t.Fatalf("source store: %+v", want)
	}

	// Into the store it came from.
	rep := importInto(t, src, data)
	if got := countsOf(t, src); got != want || rep.NewInjections != 0 || rep.NewNotes != 0 {
		t.Errorf("import into its own store: %+v (report %+v), want %+v and nothing new", got, rep, want)
	}

	// Twice into an empty store.
	dst := open(t, "dst")
	importInto(t, dst, data)
	if got := countsOf(t, dst); got != want {
		t.Errorf("first import: %+v, want %+v", got, want)
	}
	rep = importInto(t, dst, data)
	if got := countsOf(t, dst); got != want || rep.NewInjections != 0 || rep.NewNotes != 0 {
		t.Errorf("second import: %+v (report %+v), want %+v and nothing new", got, rep, want)
	}
	projNotes, err := dst.Notes(ctx, "/p", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(projNotes) != 2 {
		t.Errorf("project /p has %d notes after two imports, want 2", len(projNotes))
	}

	// Into a store that archived the session in three steps.
	inc := open(t, "inc")
	dir := t.TempDir()
	third := len(lines) / 3
	archive(t, inc, dir, lines, third)
	archive(t, inc, dir, lines, 2*third)
	before := countsOf(t, inc)
	st, err := inc.IngestState(ctx, demoID)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := src.Chunks(ctx, carryover.ChunkFilter{SessionID: demoID, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	beyond := 0
	for _, c := range chunks {
		if c.LastLine > st.Line {
			beyond++
		}
	}
	importInto(t, inc, data)
	got := countsOf(t, inc)
	if got.chunks > before.chunks+beyond {
		t.Errorf("import into a store that archived %d lines itself: %d chunks, want at most %d (its %d + %d beyond them)",
			st.Line, got.chunks, before.chunks+beyond, before.chunks, beyond)
	}
	importInto(t, inc, data)
	if again := countsOf(t, inc); again != got {
		t.Errorf("second import into it: %+v, want %+v", again, got)
	}
}

// TestExportKeepsFamilies exports a session with its subagents (one of
// the subagents/ layout, whose id holds a "/") and imports them elsewhere:
// parents, directories and branches come through.
func TestExportKeepsFamilies(t *testing.T) {
	ctx := context.Background()
	src := open(t, "src")
	base := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	for _, s := range []carryover.Session{
		{ID: demoID, Project: "/src/app", Cwd: "/src/app/cmd", Branch: "main"},
		{ID: demoID + "/agent-a1b2c3", Parent: demoID, Project: "/src/app", Cwd: "/src/app/.claude/worktrees/a1", Branch: "wt-a1", Title: "Trace the cache"},
		{ID: "agent-5e6f7a8b", Parent: demoID, Project: "/src/app", Cwd: "/src/app"},
	} {
		s.Started, s.Updated = base, base
		if err := src.Apply(ctx, carryover.Batch{Session: s}); err != nil {
			t.Fatal(err)
		}
	}
	dst := open(t, "dst")
	importInto(t, dst, export(t, src))
	want, err := src.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dst.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(want) != 3 {
		t.Fatalf("%d sessions imported of %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if g.ID != w.ID || g.Parent != w.Parent || g.Cwd != w.Cwd || g.Branch != w.Branch || g.Subagents != w.Subagents || g.Title != w.Title {
			t.Errorf("imported %+v, want %+v", g, w)
		}
	}
}
