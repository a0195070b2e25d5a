package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/internal/posixtest"
	"github.com/carryover-dev/carryover/sqlite"

	_ "modernc.org/sqlite"
)

// The real binary, built once per test process for the tests that run it
// as Claude Code or a user would: as separate processes that may be killed.
var (
	binOnce sync.Once
	binPath string
	binErr  error
)

func carryoverBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL and FIFOs are Unix")
	}
	if raceBuild {
		// The binary is not built with the race detector, so nothing is
		// gained; the plain go test run covers these.
		t.Skip("drives separate processes: run without -race")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "carryover-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "carryover")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// removingBinary removes the built binary once the tests are done.
type removingBinary struct{ *testing.M }

func (m removingBinary) Run() int {
	code := m.M.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	return code
}

// genTranscript writes a Claude Code-shaped transcript of turns turns (a
// prompt, a Bash call, its output, an answer; a compaction half way), each
// with unique words, about 9 KB a turn.
func genTranscript(t *testing.T, path, sid string, turns int) {
	t.Helper()
	var seed uint64
	for _, c := range sid {
		seed = seed*31 + uint64(c)
	}
	rng := rand.New(rand.NewPCG(uint64(turns), seed))
	var b bytes.Buffer
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	n := 0
	line := func(v map[string]any) {
		n++
		at = at.Add(time.Second)
		v["uuid"] = fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n)
		v["timestamp"] = at.Format(time.RFC3339Nano)
		v["sessionId"] = sid
		v["cwd"] = "/home/dev/projects/gen"
		v["version"] = "2.1.197"
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = fmt.Sprintf("w%x", rng.Uint32()%50000)
		}
		return strings.Join(ws, " ")
	}
	for i := range turns {
		if i == turns/2 {
			line(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
				"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 160000, "postTokens": 9000}})
			line(map[string]any{"type": "user", "isCompactSummary": true,
				"message": map[string]any{"role": "user", "content": "Summary:\n1. Primary Request: " + words(40)}})
		}
		line(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": fmt.Sprintf("turn %d: fix the failing test TestGen%d in pkg%d/file%d.go %s", i, i, i%17, i, words(8))}})
		tool := fmt.Sprintf("toolu_%06d", i)
		line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%06d", i), "role": "assistant",
			"content": []any{
				map[string]any{"type": "text", "text": "Running the tests of pkg" + strconv.Itoa(i%17) + ". " + words(20)},
				map[string]any{"type": "tool_use", "id": tool, "name": "Bash", "input": map[string]any{"command": fmt.Sprintf("go test -run TestGen%d ./pkg%d/...", i, i%17)}},
			}}})
		line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": tool, "is_error": i%3 == 0,
				"content": fmt.Sprintf("--- FAIL: TestGen%d (0.01s)\n    file%d.go:%d: %s\nFAIL", i, i, i, words(1200))},
		}}})
		line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%06db", i), "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Fixed TestGen%d: %s", i, words(15))}}}})
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runBin runs the binary with a HOME of its own and the store at db.
func binCmd(bin, home, db string, stdin []byte, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CARRYOVER_LOG=" + filepath.Join(home, "carryover.log")}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return cmd
}

// storeDigest is what must be identical between two stores that archived
// the same transcript: every chunk (hash, position, lines) and every item
// (kind, key, times seen), sorted, plus the compactions and the ingest
// offset.
type storeDigest struct {
	Chunks, Items, Compactions []string
	Offset                     int64
	Dups                       int // chunk positions (session, seq) stored more than once
}

func digest(t *testing.T, path string) storeDigest {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var d storeDigest
	rows := func(q string) []string {
		rs, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rs.Close()
		var out []string
		for rs.Next() {
			var s string
			if err := rs.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	d.Chunks = rows(`SELECT hash || ' ' || seq || ' ' || turn || ' ' || win || ' ' || first_line || '-' || last_line FROM chunks`)
	d.Items = rows(`SELECT kind || ' ' || key || ' ' || count FROM items`)
	d.Compactions = rows(`SELECT win || ' ' || line FROM compactions`)
	if err := db.QueryRow(`SELECT coalesce(max(ingest_offset), 0) FROM sessions`).Scan(&d.Offset); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) - count(DISTINCT session_id || ' ' || seq) FROM chunks`).Scan(&d.Dups); err != nil {
		t.Fatal(err)
	}
	return d
}

// checkIntegrity opens the store the way SQLite recovers it after a crash
// (read-write: the WAL is replayed) and runs integrity_check and the FTS5
// index checks.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q, %v", res, err)
	}
	var version, tables int
	if err := db.QueryRow("SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)").Scan(&version, &tables); err != nil {
		t.Fatal(err)
	}
	if version == 0 {
		// Killed before the schema was created: it must then be empty,
		// not half made (the migration is one transaction).
		if tables != 0 {
			t.Fatalf("schema version 0 with %d schema objects", tables)
		}
		return
	}
	for _, fts := range []string{"chunks_fts", "items_fts"} {
		if _, err := db.Exec("INSERT INTO " + fts + "(" + fts + ") VALUES ('integrity-check')"); err != nil {
			t.Fatalf("%s integrity-check: %v", fts, err)
		}
	}
}

// crashTrials is how many kill-and-rerun trials TestIngestCrash runs:
// CARRYOVER_CRASH_TRIALS, default 3 (CI runs more; a release check 100).
func crashTrials(t *testing.T) int {
	if v := os.Getenv("CARRYOVER_CRASH_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CARRYOVER_CRASH_TRIALS=%q: want a positive integer", v)
		}
		return n
	}
	return 3
}

// TestIngestCrash SIGKILLs "carryover ingest" (and, one trial in four, the
// PreCompact hook, which ingests too) at random moments, one to three times
// in a row, then lets a run finish. The store must pass integrity_check
// after every kill, and in the end hold exactly what a one-shot ingest
// stores: the same chunks and items, none twice.
func TestIngestCrash(t *testing.T) {
	bin := carryoverBinary(t)
	trials := crashTrials(t)
	dir := t.TempDir()
	const sid = "5a1f3c2e-9b8d-4e7f-a6c5-0d1e2f3a4b5c"
	tr := filepath.Join(dir, sid+".jsonl")
	genTranscript(t, tr, sid, 250)

	// The reference: one uninterrupted ingest.
	ref := filepath.Join(dir, "ref", "carryover.db")
	start := time.Now()
	if out, err := binCmd(bin, dir, ref, nil, "ingest", "-q", tr).CombinedOutput(); err != nil {
		t.Fatalf("reference ingest: %v\n%s", err, out)
	}
	full := time.Since(start)
	want := digest(t, ref)
	if len(want.Chunks) < 400 || want.Dups != 0 || len(want.Compactions) != 1 {
		t.Fatalf("reference store: %d chunks, %d dups, %d compactions", len(want.Chunks), want.Dups, len(want.Compactions))
	}
	fi, _ := os.Stat(tr)
	t.Logf("transcript %.1f MB, %d chunks; one-shot ingest %v; %d trials", float64(fi.Size())/(1<<20), len(want.Chunks), full, trials)

	payload, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": tr, "cwd": dir,
		"hook_event_name": "PreCompact", "trigger": "auto"})
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	killed, completed := 0, 0
	for trial := range trials {
		db := filepath.Join(dir, fmt.Sprintf("t%d", trial), "carryover.db")
		viaHook := trial%4 == 3
		run := func() *exec.Cmd {
			if viaHook {
				// The hook's deadline must not be what stops it.
				cmd := binCmd(bin, dir, db, payload, "hook", "pre-compact")
				cmd.Env = append(cmd.Env, "CARRYOVER_HOOK_TIMEOUT=60s")
				return cmd
			}
			return binCmd(bin, dir, db, nil, "ingest", "-q", tr)
		}
		for range 1 + rng.IntN(3) {
			cmd := run()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Anywhere from start-up to just past a whole run.
			time.Sleep(time.Duration(rng.Int64N(int64(full) * 11 / 10)))
			if cmd.Process.Signal(syscall.SIGKILL) == nil {
				killed++
			}
			if err := cmd.Wait(); err == nil {
				completed++ // finished before the signal
			}
			if _, err := os.Stat(db); err == nil {
				checkIntegrity(t, db)
			}
		}
		if out, err := run().CombinedOutput(); err != nil {
			t.Fatalf("trial %d: re-run after the kills failed: %v\n%s", trial, err, out)
		}
		checkIntegrity(t, db)
		got := digest(t, db)
		if got.Dups != 0 {
			t.Fatalf("trial %d: %d chunks stored twice", trial, got.Dups)
		}
		if !slices.Equal(got.Chunks, want.Chunks) || !slices.Equal(got.Items, want.Items) ||
			!slices.Equal(got.Compactions, want.Compactions) || got.Offset != want.Offset {
			t.Fatalf("trial %d: store differs from the one-shot ingest: %d/%d chunks, %d/%d items, %d/%d compactions, offset %d/%d\n%s",
				trial, len(got.Chunks), len(want.Chunks), len(got.Items), len(want.Items), len(got.Compactions), len(want.Compactions),
				got.Offset, want.Offset, firstDiff(got.Chunks, want.Chunks)+firstDiff(got.Items, want.Items))
		}
		os.RemoveAll(filepath.Dir(db))
		if testing.Verbose() {
			t.Logf("trial %d ok (%d kills so far)", trial+1, killed)
		}
	}
	t.Logf("%d trials: %d kills (%d runs had already finished), every store intact and complete after the re-run", trials, killed, completed)
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("first difference: got %q, want %q\n", got[i], want[i])
		}
	}
	return ""
}

// TestConcurrentHooks runs rounds of 8 hook processes at once, as Claude
// Code does when events fire together: every event, two processes per
// session, four sessions growing between rounds. No hook may fail, log a
// lock error or outlive its deadline; in the end every PreCompact left its
// audit row and the archive equals a one-shot ingest of the transcripts.
func TestConcurrentHooks(t *testing.T) {
	bin := carryoverBinary(t)
	rounds := 20
	if v := os.Getenv("CARRYOVER_HOOK_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CARRYOVER_HOOK_ROUNDS=%q: want a positive integer", v)
		}
		rounds = n
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "store", "carryover.db")
	logFile := filepath.Join(dir, "carryover.log")
	sids := []string{
		"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
		"33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444",
	}
	full := map[string][][]byte{}
	for _, sid := range sids {
		path := filepath.Join(dir, "full-"+sid+".jsonl")
		genTranscript(t, path, sid, 40)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		full[sid] = splitLines(data)
	}
	transcript := func(sid string) string { return filepath.Join(dir, sid+".jsonl") }
	events := []struct {
		arg   string
		extra map[string]any
	}{
		{"stop", nil},
		{"pre-compact", map[string]any{"trigger": "auto"}},
		{"user-prompt-submit", map[string]any{"prompt": "why did TestGen3 fail in pkg3?"}},
		{"post-tool-use", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test"}}},
		{"session-start", map[string]any{"source": "compact"}},
		{"post-compact", map[string]any{"trigger": "auto", "compact_summary": "Summary"}},
		{"session-end", map[string]any{"reason": "other"}},
		{"session-start", map[string]any{"source": "resume"}},
	}
	preCompacts := 0
	var latencies []time.Duration
	byEvent := map[string]time.Duration{}
	for round := range rounds {
		for _, sid := range sids {
			lines := full[sid]
			n := len(lines) * (round + 1) / rounds
			// Cut before a prompt, as when Stop fires: archives built
			// from batches cut there equal a one-shot ingest (cut
			// anywhere, chunks pack differently, by design).
			for n < len(lines) && !bytes.Contains(lines[n], []byte(`"content":"turn `)) {
				n++
			}
			if err := os.WriteFile(transcript(sid), bytes.Join(lines[:n], nil), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		type proc struct {
			cmd   *exec.Cmd
			out   bytes.Buffer
			event string
			start time.Time
		}
		procs := make([]*proc, 8)
		for i := range procs {
			// Events rotate over the rounds so every pair of events meets.
			ev := events[(i+round)%len(events)]
			sid := sids[i%len(sids)]
			p := map[string]any{"session_id": sid, "transcript_path": transcript(sid), "cwd": dir,
				"hook_event_name": ev.arg}
			for k, v := range ev.extra {
				p[k] = v
			}
			payload, _ := json.Marshal(p)
			args := []string{"hook", ev.arg}
			if ev.arg == "post-tool-use" {
				args = append(args, "--archive") // install --post-tool-use: it writes too
			}
			pr := &proc{cmd: binCmd(bin, dir, db, payload, args...), event: ev.arg}
			pr.cmd.Stdout, pr.cmd.Stderr = &pr.out, &pr.out
			if ev.arg == "pre-compact" {
				preCompacts++
			}
			procs[i] = pr
		}
		for _, pr := range procs {
			pr.start = time.Now()
			if err := pr.cmd.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for _, pr := range procs {
			err := pr.cmd.Wait()
			el := time.Since(pr.start)
			latencies = append(latencies, el)
			byEvent[pr.event] = max(byEvent[pr.event], el)
			if err != nil {
				t.Errorf("round %d: hook %s: %v\n%s", round, pr.event, err, pr.out.Bytes())
			}
			// The deadline (2 s by default) must stop it; the slack is
			// for starting a process on a loaded machine (seen: 2 s).
			if el > 10*time.Second {
				t.Errorf("round %d: hook %s outlived its deadline: %v", round, pr.event, el)
			}
		}
	}
	// Lock waits must never surface as failures. A hook that ran out of
	// time exits 0 and logs it: on a loaded machine that happens, it is
	// reported, and its work is caught up below.
	logData, _ := os.ReadFile(logFile)
	timedOut := 0
	var inHook []int // what each hook logged as its own time, start-up excluded
	for _, l := range strings.Split(string(logData), "\n") {
		if strings.Contains(l, "msg=hook ") {
			if _, v, ok := strings.Cut(l, " ms="); ok {
				v, _, _ = strings.Cut(v, " ")
				if n, err := strconv.Atoi(v); err == nil {
					inHook = append(inHook, n)
				}
			}
		}
		switch {
		case strings.Contains(l, "hook deadline exceeded"):
			timedOut++
			if strings.Contains(l, "event=PreCompact") {
				preCompacts--
			}
		case strings.Contains(l, "level=ERROR") || strings.Contains(l, "locked") || strings.Contains(l, "SQLITE_BUSY"):
			t.Errorf("log: %s", l)
		}
	}
	if !strings.Contains(string(logData), "event=PreCompact") {
		t.Errorf("the hooks logged nothing: %q", logData)
	}
	slices.Sort(latencies)
	t.Logf("%d rounds of 8 hooks: latency median %v, p95 %v, max %v; %d hit their deadline", rounds, latencies[len(latencies)/2],
		latencies[len(latencies)*95/100], latencies[len(latencies)-1], timedOut)
	t.Logf("max by event: %v", byEvent)
	if slices.Sort(inHook); len(inHook) > 0 {
		t.Logf("time in the hook as logged (process start-up excluded): median %d ms, max %d ms", inHook[len(inHook)/2], inHook[len(inHook)-1])
	}

	// Every PreCompact that finished left its audit row.
	raw, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM injections WHERE event LIKE 'PreCompact%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < preCompacts {
		t.Errorf("%d PreCompact audit rows, %d PreCompact hooks finished", n, preCompacts)
	}
	// The next hook of each session archives whatever a timed-out one left.
	for _, sid := range sids {
		payload, _ := json.Marshal(map[string]any{"session_id": sid, "transcript_path": transcript(sid), "cwd": dir, "hook_event_name": "Stop"})
		if out, err := binCmd(bin, dir, db, payload, "hook", "stop").CombinedOutput(); err != nil {
			t.Fatalf("final stop: %v\n%s", err, out)
		}
	}
	checkIntegrity(t, db)
	// The last round saw the whole transcripts: the archive must equal a
	// one-shot ingest of them, nothing lost, nothing twice.
	ref := filepath.Join(dir, "ref", "carryover.db")
	for _, sid := range sids {
		if out, err := binCmd(bin, dir, ref, nil, "ingest", "-q", transcript(sid)).CombinedOutput(); err != nil {
			t.Fatalf("reference ingest: %v\n%s", err, out)
		}
	}
	got, want := digest(t, db), digest(t, ref)
	if got.Dups != 0 || !slices.Equal(got.Chunks, want.Chunks) || !slices.Equal(got.Items, want.Items) || !slices.Equal(got.Compactions, want.Compactions) {
		t.Fatalf("archive differs from a one-shot ingest: %d dups, %d/%d chunks, %d/%d items, %d/%d compactions\n%s",
			got.Dups, len(got.Chunks), len(want.Chunks), len(got.Items), len(want.Items), len(got.Compactions), len(want.Compactions),
			firstDiff(got.Chunks, want.Chunks)+firstDiff(got.Items, want.Items))
	}
}

// damagePages overwrites the middle half of a store file's pages (keeping
// the header page) or, with header, its first 100 bytes.
func damagePages(t *testing.T, path string, header bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	junk := bytes.Repeat([]byte{0xA5, 0x5A, 0x00, 0xFF}, 1024)
	if header {
		copy(data, junk[:100])
	} else {
		pages := len(data) / 4096
		for p := pages / 4; p < pages*3/4; p++ {
			copy(data[p*4096:], junk)
		}
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptStoreRecovery damages a real store two ways, then runs the
// binary as Claude Code and a user would: the hook moves the damaged file
// aside byte for byte and archives its session into a fresh store, doctor
// reports the damage and the moved file with the way back, and
// 'ingest --all' restores the other sessions from their transcripts.
func TestCorruptStoreRecovery(t *testing.T) {
	bin := carryoverBinary(t)
	for _, header := range []bool{true, false} {
		t.Run(map[bool]string{true: "header", false: "pages"}[header], func(t *testing.T) {
			home := t.TempDir()
			claude := filepath.Join(home, ".claude")
			proj := filepath.Join(claude, "projects", "-home-dev-projects-gen")
			os.MkdirAll(proj, 0o700)
			db := filepath.Join(home, "store", "carryover.db")
			const other = "6b2e4d1a-3c5f-4a7b-8e9d-0f1a2b3c4d5e"
			const current = "7c3f5e2b-4d6a-4b8c-9fae-1a2b3c4d5e6f"
			genTranscript(t, filepath.Join(proj, other+".jsonl"), other, 120)
			// The current session grows after the damage: its hook writes.
			currentPath := filepath.Join(proj, current+".jsonl")
			genTranscript(t, currentPath, current, 60)
			currentFull, _ := os.ReadFile(currentPath)
			lines := splitLines(currentFull)
			half := len(lines) / 2
			for !bytes.Contains(lines[half], []byte(`"content":"turn `)) {
				half++
			}
			os.WriteFile(currentPath, bytes.Join(lines[:half], nil), 0o600)
			run := func(stdin []byte, args ...string) (string, error) {
				cmd := binCmd(bin, home, db, stdin, args...)
				// Re-archiving a whole session takes batches over several
				// hooks on a slow machine; here one hook must do it.
				cmd.Env = append(cmd.Env, "CLAUDE_CONFIG_DIR="+claude, "CARRYOVER_HOOK_TIMEOUT=60s")
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				err := cmd.Run()
				return out.String() + errOut.String(), err
			}
			if out, err := run(nil, "ingest", "--all", "-q"); err != nil {
				t.Fatalf("ingest: %v\n%s", err, out)
			}
			damagePages(t, db, header)
			damaged, _ := os.ReadFile(db)

			// Doctor finds the damage and says how to recover.
			out, _ := run(nil, "doctor")
			if !strings.Contains(out, "FAIL  store") || !strings.Contains(out, "ingest --all") || !strings.Contains(out, ".corrupt-") {
				t.Fatalf("doctor on a damaged store:\n%s", out)
			}

			// The hook of the current session stays quiet and valid.
			os.WriteFile(currentPath, currentFull, 0o600)
			payload, _ := json.Marshal(map[string]any{"session_id": current, "hook_event_name": "Stop",
				"transcript_path": filepath.Join(proj, current+".jsonl"), "cwd": home})
			if out, err := run(payload, "hook", "stop"); err != nil || out != "" {
				t.Fatalf("stop hook: %v, output %q", err, out)
			}
			moved, _ := sqlite.MovedAside(db)
			if len(moved) != 1 {
				// The hook writes the new turns into the damaged b-trees.
				t.Fatalf("the hook did not move the damaged store aside: %v", moved)
			}
			if got, _ := os.ReadFile(moved[0]); !bytes.Equal(got, damaged) {
				t.Fatal("the moved-aside file is not the damaged file byte for byte")
			}
			checkIntegrity(t, db)
			sessions := func() string {
				out, err := run(nil, "sessions")
				if err != nil {
					t.Fatalf("sessions: %v\n%s", err, out)
				}
				return out
			}
			if s := sessions(); !strings.Contains(s, current[:8]) {
				logData, _ := os.ReadFile(filepath.Join(home, "carryover.log"))
				t.Fatalf("the current session is not in the fresh store:\n%s\nlog:\n%s", s, logData)
			}

			// Doctor now reports the fresh store healthy and the moved file.
			out, _ = run(nil, "doctor")
			if !strings.Contains(out, "WARN  damaged store") || !strings.Contains(out, filepath.Base(moved[0])) || !strings.Contains(out, "PASS  store") {
				t.Fatalf("doctor after the move:\n%s", out)
			}
			// The way back it names restores the other session.
			if out, err := run(nil, "ingest", "--all", "-q"); err != nil {
				t.Fatalf("ingest --all: %v\n%s", err, out)
			}
			if s := sessions(); !strings.Contains(s, other[:8]) || !strings.Contains(s, current[:8]) {
				t.Fatalf("sessions after ingest --all:\n%s", s)
			}
		})
	}
}

// endless is stdin of n bytes that counts what was read.
// endless is n bytes of 'x'. read is atomic: a hook that hits its
// deadline returns while its reader goroutine may still be reading.
type endless struct {
	n    int64
	read atomic.Int64
}

func (e *endless) Read(p []byte) (int, error) {
	read := e.read.Load()
	if read >= e.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), e.n-read)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.read.Add(k)
	return int(k), nil
}

// TestHookStdinCapped: 100 MB on stdin is not read past the payload cap.
func TestHookStdinCapped(t *testing.T) {
	h := newHookEnv(t)
	for _, ev := range hook.Events {
		in := &endless{n: 100 << 20}
		var out, errOut bytes.Buffer
		a := newApp(in, &out, &errOut, func(k string) string { return h.env[k] })
		if code := a.run(context.Background(), []string{"hook", ev.Arg()}); code != 0 || out.Len() > 0 || errOut.Len() > 0 {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", ev, code, out.String(), errOut.String())
		}
		if n := in.read.Load(); n > hook.MaxInput+1 {
			t.Fatalf("%s read %d bytes of stdin, the cap is %d", ev, n, hook.MaxInput)
		}
	}
}

// TestLogFile: the log is 0600 in a 0700 directory, rotated to .1 past
// its cap, and never written through a symlink.
func TestLogFile(t *testing.T) {
	posixtest.Umask(t, 0)
	h := newHookEnv(t)
	logPath := filepath.Join(h.dir, "state", "carryover", "carryover.log")
	h.env["CARRYOVER_LOG"] = logPath
	h.run(t, "stop", h.payload("Stop", nil))
	fi, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Size() == 0 {
		t.Errorf("log: mode %v, %d bytes", fi.Mode().Perm(), fi.Size())
	}
	for _, d := range []string{filepath.Dir(logPath), filepath.Dir(filepath.Dir(logPath))} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
	for _, p := range []string{h.db, h.db + "-wal", h.db + "-shm"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(filepath.Dir(h.db)); fi.Mode().Perm() != 0o700 {
		t.Errorf("store directory: mode %v, want 0700", fi.Mode().Perm())
	}

	// Past the cap: the old log becomes .1, the new one starts small.
	big := bytes.Repeat([]byte("time=2026-01-02T03:04:05Z level=INFO msg=\"old line\"\n"), maxLogBytes/40+10)
	os.WriteFile(logPath, big, 0o600)
	h.run(t, "stop", h.payload("Stop", nil))
	if rotated, _ := os.ReadFile(logPath + ".1"); !bytes.Equal(rotated, big) {
		t.Errorf("log not rotated to .1 (%d bytes there)", len(rotated))
	}
	if fi, _ := os.Stat(logPath); fi.Size() >= maxLogBytes {
		t.Errorf("log is %d bytes after rotation", fi.Size())
	}

	// A log path that is a link (or a dangling one) is not written through.
	target := filepath.Join(h.dir, "target")
	os.WriteFile(target, []byte("precious"), 0o600)
	for _, link := range []string{filepath.Join(h.dir, "link.log"), filepath.Join(h.dir, "dangling.log")} {
		dst := target
		if strings.Contains(link, "dangling") {
			dst = filepath.Join(h.dir, "created-through-link")
		}
		os.Symlink(dst, link)
		h.env["CARRYOVER_LOG"] = link
		checkOutput(t, hook.Stop, h.run(t, "stop", h.payload("Stop", nil)))
	}
	if data, _ := os.ReadFile(target); string(data) != "precious" {
		t.Errorf("written through the log link: %q", data)
	}
	if _, err := os.Lstat(filepath.Join(h.dir, "created-through-link")); err == nil {
		t.Error("a file was created through a dangling log link")
	}

	// A store path that is a link: hooks quiet, the CLI says why, the
	// target untouched.
	h.env["CARRYOVER_DB"] = filepath.Join(h.dir, "db-link")
	os.Symlink(target, h.env["CARRYOVER_DB"])
	for _, ev := range hook.Events {
		checkOutput(t, ev, h.run(t, ev.Arg(), h.payloadAt(ev, h.transcript)))
	}
	var out, errOut bytes.Buffer
	a := newApp(nil, &out, &errOut, func(k string) string { return h.env[k] })
	if code := a.run(context.Background(), []string{"search", "fpdf"}); code != 1 || !strings.Contains(errOut.String(), "symbolic link") {
		t.Errorf("search on a linked store: exit %d, %q", code, errOut.String())
	}
	if data, _ := os.ReadFile(target); string(data) != "precious" {
		t.Errorf("written through the store link: %q", data)
	}
}

// TestIngestBadPaths: the CLI gives a clear error, without blocking, for
// transcripts that are a FIFO, a device, a symlink loop, a directory
// without transcripts or a path with a NUL byte, and archives nothing.
func TestIngestBadPaths(t *testing.T) {
	h := newHookEnv(t)
	fifo := filepath.Join(h.dir, "fifo.jsonl")
	posixtest.Mkfifo(t, fifo)
	loop := filepath.Join(h.dir, "loop.jsonl")
	os.Symlink(loop, loop)
	empty := filepath.Join(h.dir, "empty")
	os.Mkdir(empty, 0o700)
	for name, path := range map[string]string{
		"FIFO": fifo, "device": "/dev/zero", "symlink loop": loop, "empty directory": empty, "NUL": h.transcript + "\x00",
	} {
		var out, errOut bytes.Buffer
		a := newApp(nil, &out, &errOut, func(k string) string { return h.env[k] })
		done := make(chan int, 1)
		go func() { done <- a.run(context.Background(), []string{"ingest", path}) }()
		select {
		case code := <-done:
			if code == 0 || !strings.Contains(errOut.String(), "carryover: error:") {
				t.Errorf("%s: exit %d, stderr %q", name, code, errOut.String())
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: ingest blocked", name)
		}
	}
	if _, err := os.Stat(h.db); err == nil {
		if d := digest(t, h.db); len(d.Chunks) != 0 {
			t.Errorf("bad paths archived %d chunks", len(d.Chunks))
		}
	}
}

// TestImportBadPaths: import refuses an export file that is a FIFO or a
// device with an error, without blocking on a FIFO that no one writes.
func TestImportBadPaths(t *testing.T) {
	h := newHookEnv(t)
	fifo := filepath.Join(h.dir, "export.jsonl")
	posixtest.Mkfifo(t, fifo)
	for name, path := range map[string]string{"FIFO": fifo, "device": "/dev/zero"} {
		var out, errOut bytes.Buffer
		a := newApp(nil, &out, &errOut, func(k string) string { return h.env[k] })
		done := make(chan int, 1)
		go func() { done <- a.run(context.Background(), []string{"import", path}) }()
		select {
		case code := <-done:
			if code != 1 || !strings.Contains(errOut.String(), "not a regular file") {
				t.Errorf("%s: exit %d, stderr %q", name, code, errOut.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: import blocked", name)
		}
	}
}

// TestFullDisk puts the store on a full file system (a 16 MB tmpfs when
// running as root, else a file-size limit on the process): hooks stay
// quiet and exit 0, the CLI says what failed, and once space is back the
// store is intact, holds everything it held, and archives again.
func TestFullDisk(t *testing.T) {
	bin := carryoverBinary(t)
	home := t.TempDir()
	mnt := filepath.Join(home, "mnt")
	os.Mkdir(mnt, 0o700)
	tmpfs := false
	if os.Geteuid() == 0 {
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt).CombinedOutput(); err == nil {
			tmpfs = true
			t.Cleanup(func() { exec.Command("umount", mnt).Run() })
		} else {
			t.Logf("mount tmpfs: %v %s: using a file-size limit", err, out)
		}
	}
	db := filepath.Join(mnt, "carryover.db")
	demo := filepath.Join(home, demoID+".jsonl")
	os.WriteFile(demo, demoSession, 0o600)
	const bigID = "8d4a6f3c-5e7b-4c9d-8a0b-2c3d4e5f6a7b"
	big := filepath.Join(home, bigID+".jsonl")
	genTranscript(t, big, bigID, 200)
	if out, err := binCmd(bin, home, db, nil, "ingest", demo).CombinedOutput(); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	before := digest(t, db)

	limit := ""
	if tmpfs {
		f, err := os.Create(filepath.Join(mnt, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		chunk := make([]byte, 64<<10)
		for {
			if _, err := f.Write(chunk); err != nil {
				break // ENOSPC
			}
		}
		f.Close()
	} else {
		fi, _ := os.Stat(db)
		limit = strconv.FormatInt(fi.Size()/512+16, 10)
	}
	full := func(stdin []byte, args ...string) (string, string, error) {
		cmd := binCmd(bin, home, db, stdin, args...)
		if limit != "" {
			cmd.Args = append([]string{"sh", "-c", `ulimit -f "$0" && exec "$@"`, limit, bin}, cmd.Args[1:]...)
			cmd.Path, _ = exec.LookPath("sh")
		}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	for _, ev := range []hook.Event{hook.Stop, hook.PreCompact, hook.SessionStart, hook.SessionEnd} {
		payload, _ := json.Marshal(map[string]any{"session_id": bigID, "transcript_path": big, "cwd": home,
			"hook_event_name": string(ev), "source": "compact", "trigger": "auto"})
		out, errOut, err := full(payload, "hook", ev.Arg())
		if err != nil || errOut != "" {
			t.Fatalf("%s on a full disk: %v, stderr %q", ev, err, errOut)
		}
		checkOutput(t, ev, out)
	}
	_, errOut, err := full(nil, "ingest", big)
	// A file-size limit shows as an I/O error, a full file system as such.
	if err == nil || !strings.Contains(errOut, "carryover: error:") || tmpfs && !strings.Contains(errOut, "hint: free space") {
		t.Fatalf("ingest on a full disk: %v, stderr %q", err, errOut)
	}
	t.Logf("CLI on a full disk: %s", strings.TrimSpace(errOut))
	logData, _ := os.ReadFile(filepath.Join(home, "carryover.log"))
	if !bytes.Contains(logData, []byte("full")) && !bytes.Contains(logData, []byte("too large")) && !bytes.Contains(logData, []byte("I/O")) {
		t.Errorf("the log does not say the disk is full:\n%s", logData)
	}

	os.Remove(filepath.Join(mnt, "filler"))
	checkIntegrity(t, db)
	after := digest(t, db)
	for _, c := range before.Chunks {
		if _, ok := slices.BinarySearch(after.Chunks, c); !ok {
			t.Fatalf("the full disk lost a stored chunk: %s", c)
		}
	}
	if out, err := binCmd(bin, home, db, nil, "ingest", big).CombinedOutput(); err != nil {
		t.Fatalf("ingest once space is back: %v\n%s", err, out)
	}
	if d := digest(t, db); len(d.Chunks) <= len(before.Chunks) || d.Dups != 0 {
		t.Fatalf("after space came back: %d chunks (before %d), %d duplicates", len(d.Chunks), len(before.Chunks), d.Dups)
	}
}
