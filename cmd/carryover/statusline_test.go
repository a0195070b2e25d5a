package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
)

// statusEnv runs `carryover statusline` in-process against a temporary
// store and state directory.
type statusEnv struct {
	*hookEnv
}

func (s statusEnv) run(t *testing.T, remaining float64, args ...string) string {
	t.Helper()
	p, _ := json.Marshal(map[string]any{
		"session_id": demoID, "transcript_path": s.transcript, "cwd": s.dir,
		"workspace":      map[string]any{"current_dir": s.dir, "project_dir": s.dir},
		"context_window": map[string]any{"used_percentage": 100 - remaining, "remaining_percentage": remaining},
	})
	return s.runRaw(t, p, args...)
}

func (s statusEnv) runRaw(t *testing.T, payload []byte, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(bytes.NewReader(payload), &out, &errOut, func(k string) string { return s.env[k] })
	if code := a.run(context.Background(), append([]string{"statusline"}, args...)); code != 0 {
		t.Fatalf("statusline exited %d: %s", code, errOut.String())
	}
	if errOut.Len() > 0 {
		t.Errorf("statusline wrote to stderr: %s", errOut.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 1 && !slices.Contains(args, "--wrap") {
		t.Errorf("statusline printed %d lines: %q", n, out.String())
	}
	return strings.TrimSuffix(out.String(), "\n")
}

func (s statusEnv) turns(t *testing.T) int {
	t.Helper()
	st, err := sqlite.Open(context.Background(), s.db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Session(context.Background(), demoID)
	if err != nil {
		t.Fatal(err)
	}
	return sess.Turns
}

func TestStatuslineThresholds(t *testing.T) {
	s := statusEnv{newHookEnv(t)}
	s.env["XDG_STATE_HOME"] = filepath.Join(s.dir, "state")
	lines := splitLines(demoSession)
	cut, _, _ := compactionPoint(lines)
	firstTurns := bytes.Join(lines[:cut], nil)
	if err := os.WriteFile(s.transcript, firstTurns, 0o600); err != nil {
		t.Fatal(err)
	}

	// Plenty of context left: nothing archived, and no store created.
	if got := s.run(t, 70); got != "ctx 30% used · not archived yet" {
		t.Errorf("first line = %q", got)
	}
	if _, err := os.Stat(s.db); err == nil {
		t.Error("the status line created the store without a threshold crossed")
	}

	// 30 % left: the transcript is archived.
	got := s.run(t, 29)
	turns := s.turns(t)
	if want := fmt.Sprintf("ctx 71%% used · %d turns archived · archived at 30%% left", turns); got != want || turns == 0 {
		t.Errorf("at 29 %% left: %q, want %q", got, want)
	}
	// The transcript grows; no threshold crossed, nothing archived.
	if err := os.WriteFile(s.transcript, demoSession, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := s.run(t, 25); strings.Contains(got, "archived at") || s.turns(t) != turns {
		t.Errorf("at 25 %% left: %q, %d turns archived (was %d)", got, s.turns(t), turns)
	}
	// 15 % left: archived again, the compaction included.
	got = s.run(t, 14)
	if s.turns(t) <= turns || !strings.Contains(got, "archived at 15% left") || !strings.Contains(got, "compacted ") {
		t.Errorf("at 14 %% left: %q, %d turns", got, s.turns(t))
	}
	if got := s.run(t, 14); strings.Contains(got, "archived at") {
		t.Errorf("15 %% fired twice: %q", got)
	}
	if got := s.run(t, 3); !strings.Contains(got, "archived at 5% left") {
		t.Errorf("at 3 %% left: %q", got)
	}
	// After a compaction the thresholds fire again.
	s.run(t, 90)
	if got := s.run(t, 30); !strings.Contains(got, "archived at 30% left") {
		t.Errorf("30 %% did not fire again after a compaction: %q", got)
	}

	// Another process archives more: the line follows the store.
	st, err := sqlite.Open(context.Background(), s.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := st.Session(context.Background(), demoID)
	sess.Turns += 5
	state, _ := st.IngestState(context.Background(), demoID)
	if err := st.Apply(context.Background(), carryover.Batch{Session: sess, State: state}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := s.run(t, 29); !strings.Contains(got, fmt.Sprintf("%d turns archived", sess.Turns)) {
		t.Errorf("after another writer: %q, want %d turns", got, sess.Turns)
	}
}

func TestStatuslineWrap(t *testing.T) {
	s := statusEnv{newHookEnv(t)}
	s.env["XDG_STATE_HOME"] = filepath.Join(s.dir, "state")
	seen := filepath.Join(s.dir, "seen.json")

	// The old command gets the same stdin; its output comes first.
	got := s.run(t, 60, "--wrap", "cat > '"+seen+"'; printf 'model: Opus\\n'")
	if got != "model: Opus | ctx 40% used · not archived yet" {
		t.Errorf("wrapped line = %q", got)
	}
	data, err := os.ReadFile(seen)
	if err != nil || !bytes.Contains(data, []byte(`"remaining_percentage":60`)) {
		t.Errorf("the wrapped command's stdin: %q, %v", data, err)
	}
	// Several lines stay lines, ours last.
	if got := s.run(t, 60, "--wrap", "printf 'one\\ntwo\\n'"); got != "one\ntwo\nctx 40% used · not archived yet" {
		t.Errorf("multi-line = %q", got)
	}
	// A failing old command leaves ours; a bad payload leaves the old one.
	if got := s.run(t, 60, "--wrap", "exit 3"); got != "ctx 40% used · not archived yet" {
		t.Errorf("failing wrapped command: %q", got)
	}
	if got := s.runRaw(t, []byte("not json"), "--wrap", "echo old"); got != "old" {
		t.Errorf("bad payload: %q", got)
	}
}

// BenchmarkStatuslineProcess measures whole `carryover statusline`
// processes against the `version` floor, as `bench latency` does, by wall
// time and by CPU time (user + system, which a loaded machine disturbs
// less). Run it once:
//
//	go test -run '^$' -bench StatuslineProcess -benchtime 1x ./cmd/carryover
func BenchmarkStatuslineProcess(b *testing.B) {
	dir := b.TempDir()
	exe := filepath.Join(dir, "carryover")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "carryover.db")
	b.Setenv("CARRYOVER_DB", db)
	b.Setenv("CARRYOVER_LOG", filepath.Join(dir, "carryover.log"))
	b.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	transcript := filepath.Join(dir, demoID+".jsonl")
	if err := os.WriteFile(transcript, demoSession, 0o600); err != nil {
		b.Fatal(err)
	}
	if err := ingestInto(context.Background(), db, transcript, demoID); err != nil {
		b.Fatal(err)
	}
	payload := func(remaining int) []byte {
		p, _ := json.Marshal(map[string]any{"session_id": demoID, "transcript_path": transcript, "cwd": dir,
			"context_window": map[string]any{"used_percentage": 100 - remaining, "remaining_percentage": remaining}})
		return p
	}
	state := filepath.Join(dir, "state", "carryover", "statusline", demoID+".json")
	const runs = 41
	type row struct {
		name      string
		stdin     []byte
		args      []string
		setup     func(i int) error
		wall, cpu []float64 // ms, per run
		wallMS    float64   // medians
		cpuMS     float64
	}
	for b.Loop() {
		rows := []*row{
			{name: "version", args: []string{"version"}},
			{name: "statusline, store unchanged", stdin: payload(60), args: []string{"statusline"}},
			{name: "statusline, store changed", stdin: payload(60), args: []string{"statusline"},
				setup: func(i int) error { // another process wrote: the stamp differs
					t := time.Now().Add(time.Duration(i) * time.Second)
					return os.Chtimes(db, t, t)
				}},
			{name: "statusline --wrap 'echo old'", stdin: payload(60), args: []string{"statusline", "--wrap", "echo old"}},
			{name: "statusline, 30 % crossed (ingest, nothing new)", stdin: payload(29), args: []string{"statusline"},
				setup: func(int) error { return os.Remove(state) }},
		}
		// Round robin, after one warm-up round: a change in the machine's
		// load hits every row alike.
		for i := -1; i < runs; i++ {
			for _, r := range rows {
				if r.setup != nil {
					if err := r.setup(i); err != nil {
						b.Fatal(err)
					}
				}
				cmd := exec.Command(exe, r.args...)
				cmd.Stdin = bytes.NewReader(r.stdin)
				start := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%s: %v\n%s", r.name, err, out)
				}
				if i >= 0 {
					r.wall = append(r.wall, float64(time.Since(start).Microseconds())/1000)
					ps := cmd.ProcessState
					r.cpu = append(r.cpu, float64((ps.UserTime()+ps.SystemTime()).Microseconds())/1000)
				}
			}
		}
		median := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
		for _, r := range rows {
			r.wallMS, r.cpuMS = median(r.wall), median(r.cpu)
		}
		for _, r := range rows {
			b.Logf("%-48s wall %6.1f ms (%.1f× version)  cpu %6.1f ms (%.1f× version)", r.name,
				r.wallMS, r.wallMS/rows[0].wallMS, r.cpuMS, r.cpuMS/rows[0].cpuMS)
		}
		b.ReportMetric(rows[0].wallMS, "version-ms")
		b.ReportMetric(rows[1].wallMS/rows[0].wallMS, "unchanged/version")
		b.ReportMetric(rows[2].wallMS/rows[0].wallMS, "changed/version")
		b.ReportMetric(rows[1].cpuMS/rows[0].cpuMS, "unchanged/version-cpu")
		b.ReportMetric(rows[2].cpuMS/rows[0].cpuMS, "changed/version-cpu")
	}
}
