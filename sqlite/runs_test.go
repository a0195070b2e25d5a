package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

func openDeferring(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{DeferHookRuns: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func run(session, event string, i int) carryover.HookRun {
	return carryover.HookRun{Time: base.Add(time.Duration(i) * time.Second), SessionID: session, Project: "/p",
		Event: event, Latency: time.Duration(i+1) * time.Millisecond, Outcome: "noop", Chars: i}
}

// A process that only reads records its run in the journal, not in the
// store; HookRuns reads both; the next run recorded by a writer folds the
// journal into the store, once.
func TestDeferredHookRunsAreFolded(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	if err := st.RecordHookRun(ctx, run("s1", "PreCompact", 0)); err != nil {
		t.Fatal(err)
	}
	reader := openDeferring(t, path)
	for i, ev := range []string{"UserPromptSubmit", "SessionStart:compact"} {
		if err := reader.RecordHookRun(ctx, run("s1", ev, i+1)); err != nil {
			t.Fatal(err)
		}
	}
	db := rawDB(t, path)
	if n := count(t, db, "hook_runs"); n != 1 {
		t.Fatalf("the store holds %d runs after two deferred ones, want 1", n)
	}
	journal := sqlite.JournalFiles(path)[0]
	if _, err := os.Stat(journal); err != nil {
		t.Fatalf("no journal: %v", err)
	}
	for _, s := range []*sqlite.Store{st, reader} {
		runs, err := s.HookRuns(ctx, carryover.HookRunFilter{SessionID: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 3 || runs[0].Event != "SessionStart:compact" || runs[1].Event != "UserPromptSubmit" ||
			runs[2].Event != "PreCompact" || runs[0].Latency != 3*time.Millisecond || !runs[0].Time.Equal(base.Add(2*time.Second)) {
			t.Fatalf("runs = %+v", runs)
		}
	}
	if runs, _ := reader.HookRuns(ctx, carryover.HookRunFilter{Limit: 1}); len(runs) != 1 || runs[0].Event != "SessionStart:compact" {
		t.Fatalf("newest run = %+v", runs)
	}
	if runs, _ := reader.HookRuns(ctx, carryover.HookRunFilter{Project: "/q"}); len(runs) != 0 {
		t.Fatalf("runs of another project: %+v", runs)
	}

	if err := st.RecordHookRun(ctx, run("s1", "Stop", 3)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "hook_runs"); n != 4 {
		t.Fatalf("the store holds %d runs after the fold, want 4", n)
	}
	for _, f := range sqlite.JournalFiles(path) {
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			t.Errorf("%s left after the fold (%v)", filepath.Base(f), err)
		}
	}
	if runs, _ := reader.HookRuns(ctx, carryover.HookRunFilter{}); len(runs) != 4 {
		t.Fatalf("%d runs after the fold, want 4", len(runs))
	}
}

// threeSessions archives the sessions "gone", "pruned" and "kept", and
// has a store that defers its records journal one of each by record.
func threeSessions(t *testing.T, record func(reader *sqlite.Store, session string, i int) error) (st *sqlite.Store, path string, reader *sqlite.Store) {
	t.Helper()
	st, path = newStore(t)
	for _, s := range []string{"gone", "pruned", "kept"} {
		if err := st.Apply(context.Background(), storetest.Batch(s, "/p", 0, 2)); err != nil {
			t.Fatal(err)
		}
	}
	reader = openDeferring(t, path)
	for i, s := range []string{"gone", "pruned", "kept"} {
		if err := record(reader, s, i); err != nil {
			t.Fatal(err)
		}
	}
	return st, path, reader
}

// The journal's runs of a forgotten session are neither read nor folded,
// and a prune folds the journal first: the runs of the sessions it removes
// do not come back.
func TestJournalForgetAndPrune(t *testing.T) {
	ctx := context.Background()
	st, path, reader := threeSessions(t, func(r *sqlite.Store, s string, i int) error {
		return r.RecordHookRun(ctx, run(s, "UserPromptSubmit", i))
	})
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "pruned"}); err != nil {
		t.Fatal(err)
	}
	if err := reader.RecordHookRun(ctx, run("gone", "UserPromptSubmit", 4)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "gone", Forget: true}); err != nil {
		t.Fatal(err)
	}
	// Appended by a hook that raced the forget.
	if err := reader.RecordHookRun(ctx, run("gone", "UserPromptSubmit", 5)); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		runs, err := reader.HookRuns(ctx, carryover.HookRunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].SessionID != "kept" {
			t.Fatalf("%s: runs = %+v, want kept's only", when, runs)
		}
	}
	check("journal")
	if err := st.RecordHookRun(ctx, carryover.HookRun{Time: base, Event: "Stop", Outcome: "noop"}); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM hook_runs WHERE session_id IN ('gone', 'pruned')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d runs of removed sessions in the store (%v)", n, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM hook_runs WHERE session_id = 'kept'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d runs of the kept session in the store, want 1 (%v)", n, err)
	}
}

// A torn last line (a hook killed mid-append) and lines that are neither
// runs nor injections are skipped; a journal that is not a regular file is refused, not
// followed.
func TestJournalBadInput(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	journal, records := sqlite.JournalFiles(path)[0], sqlite.JournalFiles(path)[2]
	bad := `not json
{"t":0,"e":"UserPromptSubmit"}
{"t":1796606579634,"s":"../../etc","e":"UserPromptSubmit"}
{"t":1796606579634,"s":"ok-1","p":"/p","e":"UserPromptSubmit","us":12,"o":"noop","c":0}
{"t":1796606579635,"s":"ok-2","p":"/p","e":"UserPro`
	badRecords := `not json
{"k":"i","t":1796606579634,"s":"../x","e":"UserPromptSubmit","x":"escaped"}
{"k":"i","t":1796606579634,"s":"ok-3","e":"UserPromptSubmit","ci":[4],"x":"recalled"}
{"k":"i","t":1796606579634,"s":"ok-3","e":"UserPromptSubmit","ci":"not a list"}
{"k":"r","i":"chunks_fts","g":0,"c":2000,"t":["\"a\""],"r":"not a list"}
{"k":"i","t":1796606579635,"s":"ok-3","e":"UserPro`
	if err := os.WriteFile(journal, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(records, []byte(badRecords), 0o600); err != nil {
		t.Fatal(err)
	}
	runs, err := st.HookRuns(ctx, carryover.HookRunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].SessionID != "ok-1" || runs[0].Latency != 12*time.Microsecond {
		t.Fatalf("runs = %+v", runs)
	}
	if ins, err := st.Injections(ctx, "", 0); err != nil || len(ins) != 1 || ins[0].Text != "recalled" || ins[0].ChunkIDs[0] != 4 {
		t.Fatalf("injections = %+v (%v)", ins, err)
	}
	if err := st.RecordHookRun(ctx, run("s", "Stop", 0)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, rawDB(t, path), "hook_runs"); n != 2 {
		t.Fatalf("%d runs folded, want 2", n)
	}
	if n := count(t, rawDB(t, path), "injections"); n != 1 {
		t.Fatalf("%d injections folded, want 1", n)
	}

	if runtime.GOOS == "windows" {
		return
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, journal); err != nil {
		t.Fatal(err)
	}
	if err := openDeferring(t, path).RecordHookRun(ctx, run("s", "UserPromptSubmit", 1)); err == nil {
		t.Fatal("a run was appended through a symbolic link")
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Fatalf("the link's target was written: %q", b)
	}
	if _, err := st.HookRuns(ctx, carryover.HookRunFilter{}); err == nil {
		t.Fatal("a journal that is a link was read")
	}
	// A fold leaves it alone, and the run it records is kept.
	if err := st.RecordHookRun(ctx, run("s", "Stop", 2)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(journal); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was moved or removed (%v)", err)
	}
}

// Hooks appending while writers fold: every run is in the store once.
func TestJournalConcurrentAppendAndFold(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	const appenders, each = 4, 50
	var wg sync.WaitGroup
	for a := range appenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := openDeferring(t, path)
			for i := range each {
				if err := r.RecordHookRun(ctx, run(fmt.Sprintf("s-%d", a), "UserPromptSubmit", i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	folds := 0
	for done := false; !done; folds++ {
		done = waitTimeout(&wg, time.Millisecond)
		if err := st.RecordHookRun(ctx, run("writer", "Stop", folds)); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := rawDB(t, path).QueryRow(`SELECT count(*) FROM hook_runs WHERE session_id <> 'writer'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != appenders*each {
		t.Fatalf("%d deferred runs in the store after %d folds, want %d", n, folds, appenders*each)
	}
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	c := make(chan struct{})
	go func() { wg.Wait(); close(c) }()
	select {
	case <-c:
		return true
	case <-time.After(d):
		return false
	}
}

// A journal longer than one fold takes keeps its newest runs, within the
// time a hook's record has.
func TestJournalFoldBound(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	var b []byte
	n := sqlite.MaxFold + 10
	for i := range n {
		b = fmt.Appendf(b, `{"t":%d,"s":"s-1","p":"/p","e":"UserPromptSubmit","us":%d,"o":"noop","c":0}`+"\n", base.UnixMilli()+int64(i), i)
	}
	if err := os.WriteFile(sqlite.JournalFiles(path)[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := st.RecordHookRun(ctx, run("s-2", "Stop", 0)); err != nil {
		t.Fatal(err)
	}
	t.Logf("folded %d runs in %v", sqlite.MaxFold, time.Since(start))
	db := rawDB(t, path)
	if got := count(t, db, "hook_runs"); got != sqlite.MaxFold+1 {
		t.Fatalf("%d runs in the store, want %d", got, sqlite.MaxFold+1)
	}
	var oldest int64
	if err := db.QueryRow(`SELECT min(latency_us) FROM hook_runs WHERE session_id = 's-1'`).Scan(&oldest); err != nil || oldest != 10 {
		t.Fatalf("the oldest run kept took %d µs, want 10 (the newest %d kept) (%v)", oldest, sqlite.MaxFold, err)
	}
}

func injection(session, event string, i int, chunks ...int64) carryover.Injection {
	return carryover.Injection{Time: base.Add(time.Duration(i) * time.Second), SessionID: session, Project: "/p",
		Event: event, Window: 1, Chars: 10 + i, Tokens: 3, ChunkIDs: chunks, Hash: fmt.Sprintf("h%d", i),
		Latency: time.Duration(i+1) * time.Millisecond, Text: fmt.Sprintf("block %d\n> quoted", i), Reason: "why"}
}

// A process that only reads records its injections in the journal; both
// kinds of Injections read them beside the store's, newest first, so that
// a later prompt of the window skips what was injected; the next write
// folds them into the store, once, as they were.
func TestDeferredInjectionsAreFolded(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	if _, err := st.RecordInjection(ctx, injection("s1", "PreCompact", 0)); err != nil {
		t.Fatal(err)
	}
	reader := openDeferring(t, path)
	for i, in := range []carryover.Injection{injection("s1", "UserPromptSubmit", 1, 7, 9), injection("s2", "SessionStart:compact", 2)} {
		if id, err := reader.RecordInjection(ctx, in); err != nil || id != 0 {
			t.Fatalf("deferred injection %d: id %d, %v", i, id, err)
		}
	}
	db := rawDB(t, path)
	if n := count(t, db, "injections"); n != 1 {
		t.Fatalf("the store holds %d injections after two deferred ones, want 1", n)
	}
	// In a journal of their own: the hooks read it on every run, and the
	// runs journal grows by a line with every tool call.
	files := sqlite.JournalFiles(path)
	if _, err := os.Stat(files[2]); err != nil {
		t.Fatalf("no journal of injections: %v", err)
	}
	if _, err := os.Lstat(files[0]); !os.IsNotExist(err) {
		t.Fatalf("injections went to the runs journal (%v)", err)
	}
	check := func(when string) {
		t.Helper()
		for _, s := range []*sqlite.Store{st, reader} {
			s1, err := s.Injections(ctx, "s1", 0)
			if err != nil {
				t.Fatal(err)
			}
			want := injection("s1", "UserPromptSubmit", 1, 7, 9)
			if len(s1) != 2 || s1[0].Event != want.Event || s1[1].Event != "PreCompact" || !slices.Equal(s1[0].ChunkIDs, want.ChunkIDs) ||
				s1[0].Text != want.Text || s1[0].Reason != want.Reason || s1[0].Latency != want.Latency || s1[0].Window != 1 ||
				!s1[0].Time.Equal(want.Time) || s1[0].Key() != want.Key() {
				t.Fatalf("%s: injections of s1 = %+v", when, s1)
			}
			brief, err := carryover.ReadInjectionsWithoutText(ctx, s, "s1", 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(brief) != 1 || brief[0].Text != "" || brief[0].Reason != "" || !slices.Equal(brief[0].ChunkIDs, want.ChunkIDs) {
				t.Fatalf("%s: newest injection of s1 without text = %+v", when, brief)
			}
			if all, _ := s.Injections(ctx, "", 0); len(all) != 3 || all[0].SessionID != "s2" {
				t.Fatalf("%s: all injections = %+v", when, all)
			}
		}
	}
	check("journal")
	// A session id that JSON escapes is still found.
	odd := "s\"<é>"
	if _, err := reader.RecordInjection(ctx, injection(odd, "UserPromptSubmit", 3)); err != nil {
		t.Fatal(err)
	}
	if got, err := reader.Injections(ctx, odd, 0); err != nil || len(got) != 1 || got[0].SessionID != odd {
		t.Fatalf("injections of %q = %+v (%v)", odd, got, err)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: odd}); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordHookRun(ctx, run("s1", "Stop", 3)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "injections"); n != 3 {
		t.Fatalf("the store holds %d injections after the fold, want 3", n)
	}
	check("store")
	if err := st.RecordHookRun(ctx, run("s1", "Stop", 4)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "injections"); n != 3 {
		t.Fatalf("a second fold left %d injections, want 3", n)
	}
}

// An injection the journal cannot take (full, or not a regular file) is
// written to the store: the audit record, which later prompts read to
// skip what was injected, is not lost.
func TestDeferredInjectionJournalFull(t *testing.T) {
	ctx := context.Background()
	_, path := newStore(t)
	journal := sqlite.JournalFiles(path)[2]
	full := bytes.Repeat([]byte("x\n"), sqlite.MaxJournal/2)
	if err := os.WriteFile(journal, full, 0o600); err != nil {
		t.Fatal(err)
	}
	reader := openDeferring(t, path)
	id, err := reader.RecordInjection(ctx, injection("s1", "UserPromptSubmit", 1))
	if err != nil || id == 0 {
		t.Fatalf("RecordInjection with a full journal: id %d, %v", id, err)
	}
	if n := count(t, rawDB(t, path), "injections"); n != 1 {
		t.Fatalf("the store holds %d injections, want 1", n)
	}
	if got, _ := reader.Injections(ctx, "s1", 0); len(got) != 1 || got[0].ID != id {
		t.Fatalf("injections = %+v", got)
	}
	if b, _ := os.ReadFile(journal); !bytes.Equal(b, full) {
		t.Fatal("the full journal was written")
	}
}

// The journal's injections of a forgotten session are neither read nor
// folded, and a prune removes those of the sessions it removes.
func TestJournalInjectionsForgetAndPrune(t *testing.T) {
	ctx := context.Background()
	st, path, reader := threeSessions(t, func(r *sqlite.Store, s string, i int) error {
		_, err := r.RecordInjection(ctx, injection(s, "UserPromptSubmit", i))
		return err
	})
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "pruned"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "gone", Forget: true}); err != nil {
		t.Fatal(err)
	}
	// Appended by a hook that raced the forget.
	if _, err := reader.RecordInjection(ctx, injection("gone", "UserPromptSubmit", 5)); err != nil {
		t.Fatal(err)
	}
	if all, err := reader.Injections(ctx, "", 0); err != nil || len(all) != 1 || all[0].SessionID != "kept" {
		t.Fatalf("injections = %+v (%v), want kept's only", all, err)
	}
	if err := st.RecordHookRun(ctx, run("kept", "Stop", 6)); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM injections WHERE session_id <> 'kept'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d injections of removed sessions in the store (%v)", n, err)
	}
	if n := count(t, db, "injections"); n != 1 {
		t.Fatalf("%d injections in the store, want kept's 1", n)
	}
}

// A journal beside a store that does not exist yet (its store deleted by
// hand) is an older store's: a new store there drops it rather than fold
// its runs, injections and kept matches, which name the old rows.
func TestNewStoreDropsStaleJournal(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	stale := `{"t":1796606579634,"s":"s1","p":"/p","e":"UserPromptSubmit","us":12,"o":"noop","c":0}
{"k":"i","t":1796606579634,"s":"s1","e":"UserPromptSubmit","ci":[4],"x":"recalled"}
{"k":"r","i":"chunks_fts","g":0,"c":2000,"t":["\"test\""],"r":[3]}
`
	for _, p := range sqlite.JournalFiles(path) {
		if err := os.WriteFile(p, []byte(stale), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := openStore(t, path)
	for _, p := range sqlite.JournalFiles(path) {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s kept beside a new store (%v)", filepath.Base(p), err)
		}
	}
	if runs, err := st.HookRuns(ctx, carryover.HookRunFilter{}); err != nil || len(runs) != 0 {
		t.Fatalf("runs of a new store = %+v (%v)", runs, err)
	}
	if ins, err := st.Injections(ctx, "", 0); err != nil || len(ins) != 0 {
		t.Fatalf("injections of a new store = %+v (%v)", ins, err)
	}
	// An existing store's journal is kept when it is opened again.
	st.Close()
	if err := openDeferring(t, path).RecordHookRun(ctx, run("s1", "UserPromptSubmit", 1)); err != nil {
		t.Fatal(err)
	}
	if runs, err := openStore(t, path).HookRuns(ctx, carryover.HookRunFilter{}); err != nil || len(runs) != 1 {
		t.Fatalf("runs after reopening = %+v (%v), want the journaled one", runs, err)
	}
}

// A journaled injection whose line is longer than the buffer the journal
// is read through (a 16 KiB text that JSON escapes six-fold) is read back
// whole, and the runs around it too.
func TestJournalLongLine(t *testing.T) {
	ctx := context.Background()
	_, path := newStore(t)
	reader := openDeferring(t, path)
	long := injection("s1", "SessionStart:compact", 1, 3)
	long.Text = strings.Repeat("<", carryover.InjectionTextCap-100)
	for i, rec := range []func() error{
		func() error { return reader.RecordHookRun(ctx, run("s1", "UserPromptSubmit", 0)) },
		func() error { _, err := reader.RecordInjection(ctx, long); return err },
		func() error { return reader.RecordHookRun(ctx, run("s1", "UserPromptSubmit", 2)) },
	} {
		if err := rec(); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if fi, err := os.Stat(sqlite.JournalFiles(path)[2]); err != nil || fi.Size() < 64<<10 {
		t.Fatalf("journal of %v bytes (%v): the line is not longer than the read buffer", fi.Size(), err)
	}
	got, err := openStore(t, path).Injections(ctx, "s1", 0)
	if err != nil || len(got) != 1 || got[0].Text != long.Text || got[0].ChunkIDs[0] != 3 {
		t.Fatalf("long injection read back: %d records (%v)", len(got), err)
	}
	if runs, err := reader.HookRuns(ctx, carryover.HookRunFilter{}); err != nil || len(runs) != 2 {
		t.Fatalf("runs around the long line: %+v (%v)", runs, err)
	}
}

// A journal of injections that is not carryover's (a symbolic link) is
// neither written through nor read: injections go to the store, and the
// hooks that read them go on.
func TestRecordsJournalForeign(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	ctx := context.Background()
	_, path := newStore(t)
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte(`{"k":"i","t":1796606579634,"s":"s1","e":"UserPromptSubmit","x":"planted"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, sqlite.JournalFiles(path)[2]); err != nil {
		t.Fatal(err)
	}
	reader := openDeferring(t, path)
	id, err := reader.RecordInjection(ctx, injection("s1", "UserPromptSubmit", 1))
	if err != nil || id == 0 {
		t.Fatalf("RecordInjection beside a foreign journal: id %d, %v; want it in the store", id, err)
	}
	got, err := reader.Injections(ctx, "s1", 0)
	if err != nil || len(got) != 1 || got[0].ID != id {
		t.Fatalf("injections beside a foreign journal = %+v (%v), want the stored one only", got, err)
	}
	if b, _ := os.ReadFile(target); strings.Count(string(b), "\n") != 1 {
		t.Fatalf("the link's target was written: %q", b)
	}
	if _, err := reader.Search(ctx, carryover.Query{Text: "fix the flaky build"}); err != nil {
		t.Fatalf("search beside a foreign journal: %v", err)
	}
}
