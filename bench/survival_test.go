package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSurvivalIsTheInstalledPath proves that bench survival scores what
// users run: for each session of the benchmark, the restore it scores
// equals, byte for byte, what the real `carryover hook pre-compact` on the
// lines before the compaction boundary and then `carryover hook
// session-start` (source compact) on the lines up to the summary return,
// run as processes of a binary built here; and each item's restore outcome
// is the one that process restore gives. The hooks get a generous deadline
// on both sides, so that a loaded machine does not make them differ.
func TestSurvivalIsTheInstalledPath(t *testing.T) {
	itemsPath := sharedDir(t, "bench", "compaction-survival", "dev.jsonl")
	dir := sharedDir(t, "data", "transcripts", "spotter")
	if testing.Short() {
		t.Skip("archives three 3 MB transcripts twice")
	}
	if raceBuild {
		// The binary is not built with the race detector: the plain go
		// test run covers this.
		t.Skip("drives separate processes: run without -race")
	}
	exe := carryoverBinary(t)
	const budget = 4000
	ctx := context.Background()
	res, err := Survival(ctx, SurvivalOptions{Items: itemsPath, Transcripts: dir, Budget: budget, K: 8, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}

	// The items, read here rather than by the benchmark's reader.
	type item struct {
		ID, Session string
		Answers     []string
	}
	var items []item
	data, err := os.ReadFile(itemsPath)
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]bool{}
	for l := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var it item
		if err := json.Unmarshal([]byte(l), &it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
		sessions[it.Session] = true
	}
	if len(res.Sessions) != len(sessions) || len(res.Items) != len(items) {
		t.Fatalf("bench scored %d sessions and %d items; the benchmark has %d and %d", len(res.Sessions), len(res.Items), len(sessions), len(items))
	}

	installed := map[string]string{}
	for _, s := range res.Sessions {
		got := installedRestore(t, exe, filepath.Join(dir, s.ID+".jsonl"), s.ID, budget)
		if len(got) > budget {
			got = got[:budget]
		}
		installed[s.ID] = got
		if got == "" {
			t.Errorf("%s: the installed hooks restored nothing", s.ID)
		}
		if s.Restore != got {
			t.Errorf("%s: the bench's restore differs from the installed hooks' (%d and %d chars) from byte %d:\nbench:     %q\ninstalled: %q",
				s.ID, len(s.Restore), len(got), firstDiff(s.Restore, got), around(s.Restore, firstDiff(s.Restore, got)), around(got, firstDiff(s.Restore, got)))
		}
	}
	outcome := map[string]bool{}
	for _, o := range res.Items {
		outcome[o.ID] = o.Restore
	}
	hits := 0
	for _, it := range items {
		lt := strings.ToLower(installed[it.Session])
		want := false
		for _, a := range it.Answers {
			if a != "" && strings.Contains(lt, strings.ToLower(a)) {
				want = true
			}
		}
		if want {
			hits++
		}
		if got, ok := outcome[it.ID]; !ok || got != want {
			t.Errorf("item %s: bench restore hit %v (scored: %v), installed hooks %v", it.ID, got, ok, want)
		}
	}
	t.Logf("restore %d/%d through the installed hooks", hits, len(items))
}

// installedRestore replays the transcript's compactions through processes
// of the binary as Claude Code runs them, and returns the additionalContext
// of the last SessionStart(compact).
func installedRestore(t *testing.T, exe, path, sid string, budget int) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text()+"\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	type line struct {
		Type             string `json:"type"`
		Subtype          string `json:"subtype"`
		Cwd              string `json:"cwd"`
		IsCompactSummary bool   `json:"isCompactSummary"`
	}
	decoded := make([]line, len(lines))
	var boundaries []int
	for i, l := range lines {
		json.Unmarshal([]byte(l), &decoded[i])
		if decoded[i].Type == "system" && decoded[i].Subtype == "compact_boundary" {
			boundaries = append(boundaries, i)
		}
	}
	if len(boundaries) == 0 {
		t.Fatalf("%s: no compaction", path)
	}
	work := t.TempDir()
	transcript := filepath.Join(work, sid+".jsonl")
	db := filepath.Join(work, "carryover.db")
	written := 0
	// grow writes the transcript up to line n, as Claude Code appends it,
	// and returns the directory Claude Code is in by then.
	grow := func(n int) string {
		f, err := os.OpenFile(transcript, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(strings.Join(lines[written:n], "")); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		written = n
		cwd := ""
		for _, l := range decoded[:n] {
			if l.Cwd != "" {
				cwd = l.Cwd
			}
		}
		return cwd
	}
	run := func(event, cwd string, payload map[string]any) []byte {
		payload["session_id"], payload["transcript_path"], payload["cwd"] = sid, transcript, cwd
		in, _ := json.Marshal(payload)
		cmd := exec.Command(exe, "hook", event)
		cmd.Stdin = bytes.NewReader(in)
		cmd.Env = hookEnv(work, db, cwd, budget)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("carryover hook %s: %v: %s", event, err, stderr.String())
		}
		return stdout.Bytes()
	}
	restore := ""
	for k, b := range boundaries {
		cwd := grow(b)
		if out := run("pre-compact", cwd, map[string]any{"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": nil}); len(out) == 0 {
			log, _ := os.ReadFile(filepath.Join(work, "carryover.log"))
			t.Fatalf("%s: pre-compact printed nothing; log:\n%s", sid, log)
		}
		end := b + 1
		next := len(lines)
		if k+1 < len(boundaries) {
			next = boundaries[k+1]
		}
		for i := b + 1; i < next; i++ {
			if decoded[i].IsCompactSummary {
				end = i + 1
				break
			}
		}
		cwd = grow(end)
		out := run("session-start", cwd, map[string]any{"hook_event_name": "SessionStart", "source": "compact"})
		var v struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		restore = ""
		if len(bytes.TrimSpace(out)) > 0 {
			if err := json.Unmarshal(out, &v); err != nil || v.HookSpecificOutput.HookEventName != "SessionStart" {
				t.Fatalf("%s: session-start printed %q: %v", sid, out, err)
			}
			restore = v.HookSpecificOutput.AdditionalContext
		}
	}
	return restore
}

// hookEnv is the environment Claude Code gives a hook, with a store, a
// log, a budget and a generous deadline of the test's, and no user
// configuration.
func hookEnv(work, db, cwd string, budget int) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CARRYOVER_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") &&
			!strings.HasPrefix(kv, "CLAUDE_PROJECT_DIR=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+filepath.Join(work, "home"), "CARRYOVER_DB="+db, "CARRYOVER_LOG="+filepath.Join(work, "carryover.log"),
		"CARRYOVER_HOOK_TIMEOUT=5m", "CARRYOVER_BUDGET="+strconv.Itoa(budget), "CLAUDE_PROJECT_DIR="+cwd, "CLAUDECODE=1")
}

func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// around is s near byte i.
func around(s string, i int) string {
	return s[max(i-80, 0):min(i+120, len(s))]
}

// TestSurvivalPerSession checks the per-session counts and that the worst
// session is the one with the lowest share of its own items, not the
// fewest hits.
func TestSurvivalPerSession(t *testing.T) {
	o := func(sess string, restore, recall bool) ItemOutcome {
		return ItemOutcome{Session: sess, Restore: restore, Recall: recall}
	}
	res := &SurvivalResult{Budget: 4000, K: 8, Items: []ItemOutcome{
		o("aaaaaaaa-1", true, true), o("aaaaaaaa-1", false, true), o("aaaaaaaa-1", false, true), o("aaaaaaaa-1", false, false),
		o("bbbbbbbb-2", true, true), o("bbbbbbbb-2", false, true),
	}}
	res.PerSession = sessionScores(res.Items)
	want := []SessionScore{{"aaaaaaaa-1", 4, 1, 3}, {"bbbbbbbb-2", 2, 1, 2}}
	if !slices.Equal(res.PerSession, want) {
		t.Fatalf("per session %+v, want %+v", res.PerSession, want)
	}
	mean, worst, which := meanWorst(res.PerSession, func(s SessionScore) int { return s.Restore })
	if mean != 37.5 || worst != 25 || which != "aaaaaaaa-1" {
		t.Errorf("restore mean %v, worst %v (%s); want 37.5, 25 (aaaaaaaa-1)", mean, worst, which)
	}
	var b strings.Builder
	if err := res.Print(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "per session: restore mean 38 %, worst 25 % (aaaaaaaa); recall mean 88 %, worst 75 % (aaaaaaaa)") {
		t.Errorf("the print lacks the per-session line:\n%s", b.String())
	}
}

// TestRecallPerSession checks bench recall's per-session line: positives
// only, the default thresholds' outcome (the first), the worst by share.
func TestRecallPerSession(t *testing.T) {
	p := func(set, sess string, hits ...bool) RecallPrompt {
		return RecallPrompt{Set: set, Session: sess, Chars: make([]int, len(hits)), Hit: hits}
	}
	res := &RecallResult{Budget: 2000, Rows: []RecallRow{{Default: true, Positives: 5}}, Prompts: []RecallPrompt{
		p("positive", "aaaaaaaa-1", true, false), p("positive", "aaaaaaaa-1", false, true),
		p("positive", "bbbbbbbb-2", true, false), p("positive", "bbbbbbbb-2", true, false), p("positive", "bbbbbbbb-2", false, true),
		{Set: "later", Session: "aaaaaaaa-1", Chars: []int{100, 0}},
	}}
	var b strings.Builder
	if err := res.Print(&b, false); err != nil {
		t.Fatal(err)
	}
	if want := "per session, default thresholds: answer injected mean 58 %, worst 50 % (aaaaaaaa) of 2 sessions"; !strings.Contains(b.String(), want) {
		t.Errorf("the print lacks %q:\n%s", want, b.String())
	}
}
