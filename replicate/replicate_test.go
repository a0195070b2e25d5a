package replicate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/replicate"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

const demo = "../cmd/carryover/demodata/session.jsonl"

func openSQLite(t *testing.T, name string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), name), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// source builds an archive with what a copy must carry: three sessions (the
// second a copy of the first in the same project, so that all its chunks
// are duplicates the store kept under the first), notes of every scope,
// injections citing chunks and items, hook runs and redaction counts.
func source(t *testing.T) carryover.Store {
	t.Helper()
	ctx := context.Background()
	st := openSQLite(t, "src.db")
	data, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, s := range []struct{ id, project string }{
		{"11111111-aaaa-4aaa-8aaa-000000000001", "/p/one"},
		{"22222222-bbbb-4bbb-8bbb-000000000002", "/p/one"},
		{"33333333-cccc-4ccc-8ccc-000000000003", "/p/two"},
	} {
		path := filepath.Join(dir, s.id+".jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := (&ingest.Archiver{Store: st, BatchBytes: 8 << 10}).File(ctx, path, ingest.Options{SessionID: s.id, Project: s.project}); err != nil {
			t.Fatal(err)
		}
	}
	sessions, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil || len(sessions) != 3 {
		t.Fatalf("sessions: %d, %v", len(sessions), err)
	}
	base := time.UnixMilli(1_800_000_000_000)
	for i, s := range sessions {
		// Who archived it, and for one, the team it is shared with.
		s.Owner = "alice"
		if i == 2 {
			s.Team = "backend"
		}
		state, err := st.IngestState(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Apply(ctx, carryover.Batch{Session: s, State: state}); err != nil {
			t.Fatal(err)
		}
		sessions[i] = s
		chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: sessions[0].ID, Turn: -1, Limit: 3})
		if err != nil || len(chunks) == 0 {
			t.Fatalf("chunks: %d, %v", len(chunks), err)
		}
		items, err := st.Items(ctx, carryover.ItemFilter{SessionID: s.ID, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		in := carryover.Injection{Time: base.Add(time.Duration(i) * time.Minute), SessionID: s.ID, Project: s.Project,
			Event: "SessionStart:compact", Window: 1, Chars: 100, Tokens: 25, Hash: fmt.Sprintf("h%d", i), Latency: 3 * time.Millisecond,
			Text:   fmt.Sprintf("## carryover: restored after compaction (session %s, window 1)\n- `go test -race ./...` é\n", s.ID[:8]),
			Reason: fmt.Sprintf("restore after compaction 1: %d items, %d chunks", len(items), len(chunks))}
		for _, c := range chunks {
			in.ChunkIDs = append(in.ChunkIDs, c.ID)
		}
		for _, it := range items {
			in.ItemIDs = append(in.ItemIDs, it.ID)
		}
		if _, err := st.RecordInjection(ctx, in); err != nil {
			t.Fatal(err)
		}
		for j, n := range []carryover.Note{
			{SessionID: s.ID, Project: s.Project, Kind: "decision", Text: "use the pdf library " + s.ID[:2]},
			{SessionID: s.ID, Project: s.Project, Kind: "state", Text: "old state"},
			{SessionID: s.ID, Project: s.Project, Kind: "state", Text: "current state"},
			{Project: s.Project, Kind: "constraint", Text: "never log invoices of " + s.Project},
		} {
			n.Time = base.Add(time.Duration(i*10+j) * time.Second)
			if _, err := st.AddNote(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		for j, outcome := range []string{"ok", "noop"} {
			if err := st.RecordHookRun(ctx, carryover.HookRun{Time: base.Add(time.Duration(i*10+j) * time.Second),
				SessionID: s.ID, Project: s.Project, Event: "Stop", Latency: 1234 * time.Microsecond, Outcome: outcome}); err != nil {
				t.Fatal(err)
			}
		}
	}
	state, err := st.IngestState(ctx, sessions[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, carryover.Batch{Session: sessions[0], State: state, Redactions: map[string]int{"jwt": 2}}); err != nil {
		t.Fatal(err)
	}
	return st
}

// dump renders everything a store holds, store-specific ids replaced by
// what they identify, so that two stores can be compared.
func dump(t *testing.T, st carryover.Store) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	sessions, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	chunkRef := map[int64]string{}
	itemRef := map[int64]string{}
	var all []string
	for _, s := range sessions {
		chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: s.ID, Turn: -1})
		if err != nil {
			t.Fatal(err)
		}
		for i := range chunks {
			chunkRef[chunks[i].ID] = chunks[i].Hash
			chunks[i].ID = 0
		}
		items, err := st.Items(ctx, carryover.ItemFilter{SessionID: s.ID})
		if err != nil {
			t.Fatal(err)
		}
		comps, err := st.Compactions(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		state, err := st.IngestState(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := st.RawLines(ctx, s.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range raw {
			lines = append(lines, fmt.Sprintf("%d %d %d %q", l.Line, l.Offset, l.Size, l.Text))
		}
		out["session "+s.ID] = s
		out["raw "+s.ID] = lines
		out["chunks "+s.ID] = chunks
		out["compactions "+s.ID] = comps
		out["state "+s.ID] = state
		out["items "+s.ID] = items
		all = append(all, s.ID)
		red, err := st.Redactions(ctx, s.Project)
		if err != nil {
			t.Fatal(err)
		}
		out["redactions "+s.Project] = red
	}
	for _, id := range all {
		items := out["items "+id].([]carryover.Item)
		var rendered []string
		for _, it := range items {
			itemRef[it.ID] = string(it.Kind) + "/" + it.Key
			rendered = append(rendered, fmt.Sprintf("%s %s %q %q chunk=%d/%s turn=%d win=%d line=%d t=%d w=%g res=%v n=%d",
				it.Kind, it.Key, it.Text, it.Detail, it.ChunkSeq, chunkRef[it.ChunkID], it.Turn, it.Window, it.Line,
				it.Time.UnixMilli(), it.Weight, it.Resolved, it.Count))
		}
		// Items at one line are ordered by id, which a copy may assign
		// in another order.
		sort.Strings(rendered)
		out["items "+id] = rendered
	}
	notes, err := st.Notes(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, n := range notes {
		ns = append(ns, fmt.Sprintf("%d %s %s %s %q", n.Time.UnixMilli(), n.SessionID, n.Project, n.Kind, n.Text))
	}
	sort.Strings(ns)
	out["notes"] = ns
	ins, err := st.Injections(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var is []string
	for _, in := range ins {
		var refs []string
		for _, id := range in.ChunkIDs {
			refs = append(refs, "c:"+chunkRef[id])
		}
		for _, id := range in.ItemIDs {
			refs = append(refs, "i:"+itemRef[id])
		}
		is = append(is, fmt.Sprintf("%d %s %s %s w%d %d/%d %s %v %s %q %q", in.Time.UnixMilli(), in.SessionID, in.Project, in.Event,
			in.Window, in.Chars, in.Tokens, in.Hash, in.Latency, strings.Join(refs, ","), in.Text, in.Reason))
	}
	out["injections"] = is
	runs, err := st.HookRuns(ctx, carryover.HookRunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var rs []string
	for _, r := range runs {
		rs = append(rs, fmt.Sprintf("%d %s %s %s %v %s %d", r.Time.UnixMilli(), r.SessionID, r.Project, r.Event, r.Latency, r.Outcome, r.Chars))
	}
	out["hookruns"] = rs
	return out
}

// searches renders what a few searches return.
func searches(t *testing.T, st carryover.Store) []string {
	t.Helper()
	var out []string
	for _, q := range []carryover.Query{
		{Text: "pdf invoice export", Limit: 10},
		{Text: "error test failed", Project: "/p/one", Limit: 5},
		{Text: "go test", File: ".go", Limit: 5},
		{Text: `unterminated "quote (`, Limit: 5},
	} {
		hits, err := st.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		// Hits of equal score are ordered by id: sort each run of them.
		var rendered []string
		for i := 0; i < len(hits); {
			j := i
			var run []string
			for ; j < len(hits) && fmt.Sprintf("%.6f", hits[j].Score) == fmt.Sprintf("%.6f", hits[i].Score); j++ {
				h := hits[j]
				run = append(run, fmt.Sprintf("%s: %.6f %s %s %d", q.Text, h.Score, h.Chunk.Hash, h.Chunk.SessionID, h.Chunk.Seq))
			}
			sort.Strings(run)
			rendered = append(rendered, run...)
			i = j
		}
		out = append(out, rendered...)
	}
	return out
}

func equalDumps(t *testing.T, got, want map[string]any) {
	t.Helper()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	bad := 0
	for _, k := range slices.Compact(keys) {
		if !reflect.DeepEqual(got[k], want[k]) {
			bad++
			if bad <= 5 {
				t.Errorf("%s differs:\n got  %+v\n want %+v", k, got[k], want[k])
			}
		}
	}
}

func TestCopyIsExactAndIdempotent(t *testing.T) {
	ctx := context.Background()
	src := source(t)
	want := dump(t, src)
	// The duplicate session holds its chunks as shares of the first's.
	const dup = "22222222-bbbb-4bbb-8bbb-000000000002"
	held, err := src.Chunks(ctx, carryover.ChunkFilter{SessionID: dup, Turn: -1})
	if err != nil || len(held) == 0 {
		t.Fatalf("the duplicate session holds %d chunks (%v)", len(held), err)
	}
	var ids []int64
	for _, c := range held {
		ids = append(ids, c.ID)
	}
	stored, err := src.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	if n := slices.IndexFunc(stored, func(c carryover.Chunk) bool { return c.SessionID == dup }); n >= 0 {
		t.Fatalf("the duplicate session has chunk %d of its own; the test needs it to have none", stored[n].ID)
	}
	dst := openSQLite(t, "dst.db")
	var calls []replicate.Progress
	rep, err := replicate.Copy(ctx, dst, src, replicate.Options{Batch: 4, Progress: func(p replicate.Progress) { calls = append(calls, p) }})
	if err != nil {
		t.Fatal(err)
	}
	equalDumps(t, dump(t, dst), want)
	if got, w := searches(t, dst), searches(t, src); !reflect.DeepEqual(got, w) || len(w) == 0 {
		t.Errorf("searches differ:\n got  %q\n want %q", got, w)
	}
	if rep.Sessions != 3 || rep.Chunks == 0 || rep.Notes != 9 || rep.Injections != 3 || rep.HookRuns != 6 || rep.Unmapped != 0 ||
		rep.RawLines == 0 {
		t.Errorf("report %+v", rep)
	}
	// The duplicate session's chunks were sent with it, and stored once.
	if all, err := dst.Chunks(ctx, carryover.ChunkFilter{Turn: -1}); err != nil || rep.Chunks != len(all) {
		t.Errorf("the copy reports %d new chunks, the destination stores %d (%v)", rep.Chunks, len(all), err)
	}
	last := calls[len(calls)-1]
	if last.SessionsDone != 3 || last.SessionsTotal != 3 || last.Chunks != rep.Chunks || len(calls) < 4 {
		t.Errorf("progress: %d calls, last %+v", len(calls), last)
	}

	again, err := replicate.Copy(ctx, dst, src, replicate.Options{Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	if again.Chunks != 0 || again.Notes != 0 || again.Injections != 0 || again.HookRuns != 0 || again.RawLines != 0 {
		t.Errorf("second copy wrote %+v", again)
	}
	equalDumps(t, dump(t, dst), want)
}

func TestCopyResumesAfterCancel(t *testing.T) {
	src := source(t)
	want := dump(t, src)
	for _, stopAfter := range []int{1, 3, 7} {
		t.Run(fmt.Sprint(stopAfter), func(t *testing.T) {
			dst := openSQLite(t, "dst.db")
			ctx, cancel := context.WithCancel(context.Background())
			writes := 0
			_, err := replicate.Copy(ctx, dst, src, replicate.Options{Batch: 3, Progress: func(p replicate.Progress) {
				if p.Chunks > 0 {
					if writes++; writes == stopAfter {
						cancel()
					}
				}
			}})
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted copy: %v", err)
			}
			partial := dump(t, dst)
			if reflect.DeepEqual(partial, want) {
				t.Fatal("the interrupted copy is already complete; stop it earlier")
			}
			if _, err := replicate.Copy(context.Background(), dst, src, replicate.Options{Batch: 3}); err != nil {
				t.Fatal(err)
			}
			equalDumps(t, dump(t, dst), want)
			if got, w := searches(t, dst), searches(t, src); !reflect.DeepEqual(got, w) {
				t.Errorf("searches differ:\n got  %q\n want %q", got, w)
			}
		})
	}
}

func TestCopySessionsOnly(t *testing.T) {
	ctx := context.Background()
	src := source(t)
	dst := openSQLite(t, "dst.db")
	id := "33333333-cccc-4ccc-8ccc-000000000003"
	if _, err := replicate.Copy(ctx, dst, src, replicate.Options{Sessions: []string{id, "never-ingested"}}); err != nil {
		t.Fatal(err)
	}
	sessions, err := dst.Sessions(ctx, carryover.SessionFilter{})
	if err != nil || len(sessions) != 1 || sessions[0].ID != id {
		t.Fatalf("sessions %+v, %v", sessions, err)
	}
	notes, err := dst.Notes(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	// The session's decision and its latest state; project notes stay.
	if len(notes) != 2 || notes[0].Kind != "decision" || notes[1].Text != "current state" {
		t.Errorf("notes %+v", notes)
	}
	want, got := dump(t, src), dump(t, dst)
	for _, k := range []string{"chunks ", "items ", "state ", "compactions "} {
		if !reflect.DeepEqual(got[k+id], want[k+id]) {
			t.Errorf("%s differs", k+id)
		}
	}
}

// A destination that read further into a transcript keeps its ingest state,
// and a newer state note is not replaced by an older one.
func TestCopyNeverGoesBack(t *testing.T) {
	ctx := context.Background()
	src := source(t)
	dst := openSQLite(t, "dst.db")
	id := "33333333-cccc-4ccc-8ccc-000000000003"
	if _, err := replicate.Copy(ctx, dst, src, replicate.Options{Sessions: []string{id}}); err != nil {
		t.Fatal(err)
	}
	s, err := dst.Session(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	ahead, err := dst.IngestState(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	ahead.Offset += 100
	ahead.Line += 2
	if err := dst.Apply(ctx, carryover.Batch{Session: s, State: ahead}); err != nil {
		t.Fatal(err)
	}
	if _, err := dst.AddNote(ctx, carryover.Note{Time: time.UnixMilli(1_900_000_000_000), SessionID: id, Project: s.Project, Kind: "state", Text: "newer"}); err != nil {
		t.Fatal(err)
	}
	if _, err := replicate.Copy(ctx, dst, src, replicate.Options{Sessions: []string{id}}); err != nil {
		t.Fatal(err)
	}
	got, err := dst.IngestState(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Offset != ahead.Offset || got.Line != ahead.Line {
		t.Errorf("state went back: %+v, want %+v", got, ahead)
	}
	notes, err := dst.Notes(ctx, "", id)
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, n := range notes {
		if n.Kind == "state" {
			states = append(states, n.Text)
		}
	}
	if !reflect.DeepEqual(states, []string{"newer"}) {
		t.Errorf("state notes %q", states)
	}
}

// TestCopyThroughPostgres copies SQLite → PostgreSQL → SQLite: the server
// holds the same archive, the second copy equals the first, a copy
// interrupted half-way is completed by the next, and a repeat writes
// nothing.
func TestCopyThroughPostgres(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresDatabase(t)
	src := source(t)
	want := dump(t, src)
	// The server stamps rows with the identity it is opened with (with
	// row-level security, the connected role), not the source's owner: the
	// source's sessions are alice's.
	pg, err := postgres.Open(ctx, dsn, postgres.Options{ConnectTimeout: 5 * time.Second, Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	cctx, cancel := context.WithCancel(ctx)
	writes := 0
	_, err = replicate.Copy(cctx, pg, src, replicate.Options{Batch: 3, Progress: func(p replicate.Progress) {
		if p.Chunks > 0 {
			if writes++; writes == 4 {
				cancel()
			}
		}
	}})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted copy: %v", err)
	}
	if _, err := replicate.Copy(ctx, pg, src, replicate.Options{Batch: 3}); err != nil {
		t.Fatal(err)
	}
	equalDumps(t, dump(t, pg), want)
	again, err := replicate.Copy(ctx, pg, src, replicate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Chunks != 0 || again.Notes != 0 || again.Injections != 0 || again.HookRuns != 0 || again.RawLines != 0 {
		t.Errorf("second copy to the server wrote %+v", again)
	}
	back := openSQLite(t, "back.db")
	rep, err := replicate.Copy(ctx, back, pg, replicate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if all, err := back.Chunks(ctx, carryover.ChunkFilter{Turn: -1}); err != nil || rep.Chunks != len(all) {
		t.Errorf("the copy back reports %d new chunks, the destination stores %d (%v)", rep.Chunks, len(all), err)
	}
	equalDumps(t, dump(t, back), want)
	if got, w := searches(t, back), searches(t, src); !reflect.DeepEqual(got, w) {
		t.Errorf("searches differ after the round trip:\n got  %q\n want %q", got, w)
	}
}

// TestCopySkipsForgotten checks that a copy does not bring back a session
// the destination forgot, nor its notes, injections and hook runs, whether
// the whole archive or only that session is copied.
func TestCopySkipsForgotten(t *testing.T) {
	ctx := context.Background()
	src := source(t)
	const gone = "22222222-bbbb-4bbb-8bbb-000000000002"
	for _, sessions := range [][]string{nil, {gone}} {
		dst := openSQLite(t, fmt.Sprintf("dst%d.db", len(sessions)))
		if _, err := dst.Prune(ctx, carryover.PruneFilter{SessionID: gone, Forget: true}); err != nil {
			t.Fatal(err)
		}
		rep, err := replicate.Copy(ctx, dst, src, replicate.Options{Sessions: sessions})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Forgotten != 1 {
			t.Errorf("sessions %v: report counts %d forgotten, want 1", sessions, rep.Forgotten)
		}
		if _, err := dst.Session(ctx, gone); !errors.Is(err, carryover.ErrNotFound) {
			t.Errorf("sessions %v: forgotten session copied: %v", sessions, err)
		}
		if ns, _ := dst.Notes(ctx, "", gone); len(ns) != 0 {
			t.Errorf("sessions %v: its notes copied: %+v", sessions, ns)
		}
		if in, _ := dst.Injections(ctx, gone, 0); len(in) != 0 {
			t.Errorf("sessions %v: its injections copied: %+v", sessions, in)
		}
		if runs, _ := dst.HookRuns(ctx, carryover.HookRunFilter{SessionID: gone}); len(runs) != 0 {
			t.Errorf("sessions %v: its hook runs copied: %+v", sessions, runs)
		}
		if ss, _ := dst.Sessions(ctx, carryover.SessionFilter{}); sessions == nil && len(ss) != 2 {
			t.Errorf("whole copy: %d sessions, want the other 2", len(ss))
		}
	}
}
