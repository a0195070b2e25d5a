package stats_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/stats"
	"github.com/carryover-dev/carryover/storetest"
)

var base = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// session builds a batch: chunks chunks over turns turns, one file edit per
// chunk (all on main.go), one command, and the given compaction triggers.
func session(id, project string, turns, chunks int, triggers ...string) carryover.Batch {
	b := carryover.Batch{
		Session: carryover.Session{ID: id, Project: project, Title: "work on " + id, Started: base,
			Updated: base.Add(time.Duration(chunks) * time.Minute), Windows: len(triggers), Turns: turns},
		State:      carryover.IngestState{SessionID: id, Path: "/x/" + id + ".jsonl", FileID: "f", Offset: 1, Line: 1},
		Redactions: map[string]int{"aws-key": 1},
	}
	for i := range chunks {
		b.Chunks = append(b.Chunks, carryover.Chunk{SessionID: id, Project: project, Seq: i, Turn: i * turns / chunks,
			FirstLine: i + 1, LastLine: i + 1, Start: base, End: base, Text: fmt.Sprintf("chunk %d of %s", i, id),
			Hash: fmt.Sprintf("%s-%d", id, i)})
		b.Items = append(b.Items, carryover.Item{SessionID: id, ChunkSeq: i, Kind: carryover.KindFileEdit,
			Text: "main.go", Key: fmt.Sprintf("file_edit:main.go:%d", i), Line: i + 1, Time: base, Weight: 0.7})
	}
	b.Items = append(b.Items, carryover.Item{SessionID: id, ChunkSeq: 0, Kind: carryover.KindCommand,
		Text: "go test ./...", Key: "command:go test", Line: 1, Time: base, Weight: 0.6})
	for w, tr := range triggers {
		b.Compactions = append(b.Compactions, carryover.Compaction{SessionID: id, Window: w + 1, Trigger: tr,
			Line: 100 + w, Time: base.Add(time.Hour)})
	}
	return b
}

func TestCompute(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, b := range []carryover.Batch{
		session("a1", "/p/app", 5, 4, "auto", "manual"),
		session("a2", "/p/app", 3, 2, "auto"),
		session("b1", "/p/lib", 7, 6),
	} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	inject := func(sid, project, event string, tokens int) {
		t.Helper()
		if _, err := st.RecordInjection(ctx, carryover.Injection{Time: base, SessionID: sid, Project: project,
			Event: event, Chars: 4 * tokens, Tokens: tokens, Hash: "h"}); err != nil {
			t.Fatal(err)
		}
	}
	inject("a1", "/p/app", "SessionStart:compact", 100)
	inject("a1", "/p/app", "SessionStart:compact", 300)
	inject("a2", "/p/app", "SessionStart:compact", 50)
	inject("a1", "/p/app", "UserPromptSubmit", 10)
	inject("new", "/p/app", "UserPromptSubmit", 20) // a session not archived yet
	inject("a1", "/p/app", "PreCompact:manual", 5)
	inject("b1", "/p/lib", "UserPromptSubmit", 1000)
	run := func(sid, project, event, outcome string, ms int) {
		t.Helper()
		if err := st.RecordHookRun(ctx, carryover.HookRun{Time: base, SessionID: sid, Project: project, Event: event,
			Latency: time.Duration(ms) * time.Millisecond, Outcome: outcome, Chars: ms}); err != nil {
			t.Fatal(err)
		}
	}
	for ms := 1; ms <= 20; ms++ {
		run("a1", "/p/app", "Stop", "noop", ms)
	}
	run("a2", "/p/app", "SessionStart:compact", "ok", 40)
	run("a2", "/p/app", "SessionStart:compact", "timeout", 2000)
	run("b1", "/p/lib", "Stop", "error", 500)

	rep, err := stats.Compute(ctx, st, stats.Filter{Project: "/p/app"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 2 || rep.Turns != 8 || rep.Chunks != 6 {
		t.Errorf("sessions/turns/chunks = %d/%d/%d, want 2/8/6", rep.Sessions, rep.Turns, rep.Chunks)
	}
	if want := (stats.Compactions{Total: 3, Auto: 2, Manual: 1}); rep.Compactions != want {
		t.Errorf("compactions = %+v, want %+v", rep.Compactions, want)
	}
	if rep.Restores != 3 || rep.Recalls != 2 || rep.Instructions != 1 || rep.TokensInjected != 485 {
		t.Errorf("restores/recalls/instructions/tokens = %d/%d/%d/%d, want 3/2/1/485",
			rep.Restores, rep.Recalls, rep.Instructions, rep.TokensInjected)
	}
	byEvent := map[string]stats.EventTokens{}
	for _, e := range rep.Injected {
		byEvent[e.Event] = e
	}
	ss := byEvent["SessionStart:compact"]
	// Per session: a1 400, a2 50; per injection 50, 100, 300.
	if ss.Count != 3 || ss.Tokens != 450 || ss.Chars != 1800 ||
		ss.PerSession != (stats.Dist{N: 2, P50: 50, P95: 400, Max: 400}) ||
		ss.PerInjection != (stats.Dist{N: 3, P50: 100, P95: 300, Max: 300}) {
		t.Errorf("SessionStart:compact = %+v", ss)
	}
	if ups := byEvent["UserPromptSubmit"]; ups.Count != 2 || ups.PerSession.N != 2 {
		t.Errorf("UserPromptSubmit = %+v, want 2 injections in 2 sessions (b1's is another project)", ups)
	}

	if len(rep.Hooks) != 2 {
		t.Fatalf("hooks = %+v, want SessionStart:compact and Stop", rep.Hooks)
	}
	stop := rep.Hooks[1]
	if stop.Event != "Stop" || stop.Runs != 20 || stop.LatencyMS != (stats.Dist{N: 20, P50: 10, P95: 19, Max: 20}) ||
		!reflect.DeepEqual(stop.Outcomes, map[string]int{"noop": 20}) || stop.Chars != 210 {
		t.Errorf("Stop = %+v", stop)
	}
	if h := rep.Hooks[0]; h.Outcomes["timeout"] != 1 || h.Outcomes["ok"] != 1 || h.LatencyMS.Max != 2000 {
		t.Errorf("SessionStart:compact hooks = %+v", h)
	}

	if !reflect.DeepEqual(rep.Redactions, map[string]int{"aws-key": 2}) {
		t.Errorf("redactions = %v, want aws-key 2 (one per session of the project)", rep.Redactions)
	}
	if want := []stats.Count{{"main.go", 6}}; !reflect.DeepEqual(rep.TopFiles, want) {
		t.Errorf("top files = %v, want %v", rep.TopFiles, want)
	}
	if want := []stats.Count{{"go test ./...", 2}}; !reflect.DeepEqual(rep.TopCommands, want) {
		t.Errorf("top commands = %v, want %v", rep.TopCommands, want)
	}
	if rep.StoreBytes <= 0 {
		t.Errorf("store bytes = %d", rep.StoreBytes)
	}

	if len(rep.PerSession) != 2 {
		t.Fatalf("per session = %+v", rep.PerSession)
	}
	rows := map[string]stats.SessionRow{}
	for _, r := range rep.PerSession {
		rows[r.ID] = r
	}
	a1 := rows["a1"]
	if a1.Turns != 5 || a1.Chunks != 4 || a1.Compactions != 2 || a1.Injections != 4 || a1.Restores != 2 ||
		a1.Recalls != 1 || a1.TokensInjected != 415 || a1.HookRuns != 20 || a1.HookP50MS != 10 || a1.HookP95MS != 19 {
		t.Errorf("a1 row = %+v", a1)
	}
	if rows["a2"].HookRuns != 2 || rows["a2"].HookP95MS != 2000 {
		t.Errorf("a2 row = %+v", rows["a2"])
	}

	all, err := stats.Compute(ctx, st, stats.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if all.Sessions != 3 || all.Chunks != 12 || all.Recalls != 3 || all.TokensInjected != 1485 || all.Redactions["aws-key"] != 3 {
		t.Errorf("global: sessions %d chunks %d recalls %d tokens %d redactions %v",
			all.Sessions, all.Chunks, all.Recalls, all.TokensInjected, all.Redactions)
	}
	if _, err := json.Marshal(all); err != nil {
		t.Errorf("report does not marshal: %v", err)
	}
}

func TestComputeEmpty(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := stats.Compute(ctx, st, stats.Filter{Project: "/nowhere"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	// Empty lists stay lists, so consumers can range over them in JS.
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"injected", "hooks", "top_files", "top_commands", "per_session"} {
		if _, ok := back[k].([]any); !ok {
			t.Errorf("%s = %v, want an empty list", k, back[k])
		}
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct{ q, want float64 }{{0.5, 5}, {0.95, 10}, {0.1, 1}, {1, 10}, {0.01, 1}} {
		if got := stats.Quantile(xs, c.q); got != c.want {
			t.Errorf("Quantile(1..10, %v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := stats.Quantile(nil, 0.5); got != 0 {
		t.Errorf("Quantile(nil) = %v", got)
	}
}

// TestComputeSubagents: a subagent is part of its session, in the count
// of sessions and in the session's row.
func TestComputeSubagents(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sub := session("a1/agent-x", "/p/app", 0, 3)
	sub.Session.Parent = "a1"
	orphan := session("agent-y", "/p/app", 0, 1)
	orphan.Session.Parent = "gone"
	for _, b := range []carryover.Batch{session("a1", "/p/app", 5, 4, "auto"), sub, orphan} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := stats.Compute(ctx, st, stats.Filter{Project: "/p/app"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 2 || rep.Chunks != 8 || len(rep.PerSession) != 2 {
		t.Fatalf("sessions %d, chunks %d, rows %+v; want 2 sessions (one whose parent is not archived), 8 chunks", rep.Sessions, rep.Chunks, rep.PerSession)
	}
	if r := rep.PerSession[0]; r.ID != "a1" || r.Chunks != 7 || r.Turns != 5 || r.Compactions != 1 {
		t.Errorf("a1's row = %+v, want its subagent's 3 chunks added to its 4", r)
	}
}

// TestComputeSharedChunks checks that the archive's chunk total counts a
// chunk a resumed session shares with the old one once, while each
// session's row counts the chunks it holds.
func TestComputeSharedChunks(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := storetest.Batch("a", "/p", 0, 3)
	for _, b := range []carryover.Batch{a, storetest.Resumed(a, "b", 2, 4, 100)} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := stats.Compute(ctx, st, stats.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]int{}
	for _, r := range rep.PerSession {
		held[r.ID] = r.Chunks
	}
	if rep.Chunks != 5 || held["a"] != 3 || held["b"] != 4 {
		t.Errorf("%d chunks, sessions hold %v; want 5 stored, a 3 and b 4", rep.Chunks, held)
	}
}
