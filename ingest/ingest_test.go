package ingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/internal/posixtest"
	"github.com/carryover-dev/carryover/sqlite"
)

const sid = "11111111-2222-3333-4444-555555555555"

// synth returns the lines of a transcript with n turns, each a prompt, a
// Bash call with its result and a closing text. Turn i's command is
// "go test ./widget<i>/...".
func synth(n int) []string {
	var lines []string
	ts := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		ts = ts.Add(time.Second)
		v["sessionId"] = sid
		v["cwd"] = "/home/dev/proj"
		v["timestamp"] = ts.Format(time.RFC3339Nano)
		v["uuid"] = fmt.Sprintf("u-%d", len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	for i := range n {
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": fmt.Sprintf("Turn %d: please make widget%d pass its tests", i, i)}})
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%da", i), "role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": fmt.Sprintf("tu_%d", i), "name": "Bash", "input": map[string]any{"command": fmt.Sprintf("go test ./widget%d/...", i)}}}}})
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("tu_%d", i), "content": fmt.Sprintf("ok  example.com/widget%d 0.%ds", i, i%10)}}}})
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%db", i), "role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": fmt.Sprintf("widget%d passes now.", i)}}}})
	}
	return lines
}

// compaction returns the lines of an automatic compaction of session sid:
// its boundary, then its summary.
func compaction(text string) (boundary, summary string) {
	b, _ := json.Marshal(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": "b1", "sessionId": sid,
		"content": "Conversation compacted", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000}})
	m, _ := json.Marshal(map[string]any{"type": "user", "uuid": "s1", "parentUuid": "b1", "sessionId": sid, "isCompactSummary": true,
		"message": map[string]any{"role": "user", "content": text}})
	return string(b), string(m)
}

func writeLines(t testing.TB, path string, lines []string, mode int) {
	t.Helper()
	data := strings.Join(lines, "\n")
	if len(lines) > 0 {
		data += "\n"
	}
	flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if mode == os.O_APPEND {
		flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func openStore(t testing.TB) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func chunks(t testing.TB, st carryover.Store) []carryover.Chunk {
	t.Helper()
	cs, err := st.Chunks(context.Background(), carryover.ChunkFilter{SessionID: sid, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func hashes(cs []carryover.Chunk) map[string]bool {
	m := map[string]bool{}
	for _, c := range cs {
		m[c.Hash] = true
	}
	return m
}

func allText(cs []carryover.Chunk) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestIncrementalAppendsExactlyTheNewTurns(t *testing.T) {
	ctx := context.Background()
	lines := synth(12)
	dir := t.TempDir()
	path := filepath.Join(dir, sid+".jsonl")

	// One ingest of the whole file.
	writeLines(t, path, lines, 0)
	whole := openStore(t)
	if _, err := (&ingest.Archiver{Store: whole}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	want := chunks(t, whole)

	// The same file written and ingested turn by turn (4 lines a turn).
	st := openStore(t)
	writeLines(t, path, nil, 0)
	prev := 0
	for i := 0; i < len(lines); i += 4 {
		writeLines(t, path, lines[i:i+4], os.O_APPEND)
		rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Lines != 4 || !rep.Complete || rep.Restarted {
			t.Fatalf("turn %d: report %+v, want 4 new lines, complete", i/4, rep)
		}
		got := chunks(t, st)
		if len(got) <= prev {
			t.Fatalf("turn %d: %d chunks after %d: nothing appended", i/4, len(got), prev)
		}
		for _, c := range got[prev:] {
			if c.Turn != i/4 {
				t.Errorf("turn %d: new chunk of turn %d: %q", i/4, c.Turn, c.Text)
			}
		}
		prev = len(got)
	}
	got := chunks(t, st)
	if len(got) != len(want) {
		t.Fatalf("incremental: %d chunks, whole: %d", len(got), len(want))
	}
	if g, w := hashes(got), hashes(want); len(g) != len(w) {
		t.Fatalf("hash sets differ: %d vs %d", len(g), len(w))
	} else {
		for h := range w {
			if !g[h] {
				t.Fatalf("chunk %s of the whole ingest missing from the incremental one", h)
			}
		}
	}

	// Nothing new: nothing stored.
	rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
	if err != nil || rep.Lines != 0 || rep.Chunks != 0 {
		t.Fatalf("re-ingest: %+v, %v", rep, err)
	}
}

func TestTornLastLine(t *testing.T) {
	ctx := context.Background()
	lines := synth(3)
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	last := lines[len(lines)-1]
	writeLines(t, path, lines[:len(lines)-1], 0)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(last[:len(last)/2]) // Claude Code is still writing it
	f.Close()

	st := openStore(t)
	rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lines != len(lines)-1 {
		t.Fatalf("consumed %d lines, want %d (the torn one left for later)", rep.Lines, len(lines)-1)
	}
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(last[len(last)/2:] + "\n")
	f.Close()
	rep, err = (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lines != 1 || rep.Restarted {
		t.Fatalf("after completing the line: %+v", rep)
	}
	if n := strings.Count(allText(chunks(t, st)), "widget2 passes now."); n != 1 {
		t.Fatalf("last line's text stored %d times, want once", n)
	}
}

func TestRewrittenFileIsReingestedWithoutDuplicates(t *testing.T) {
	ctx := context.Background()
	lines := synth(6)
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	writeLines(t, path, lines, 0)
	st := openStore(t)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	before := len(chunks(t, st))

	// Truncated, then written again with the same content.
	writeLines(t, path, lines[:8], 0)
	rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Restarted {
		t.Fatalf("truncation not detected: %+v", rep)
	}
	writeLines(t, path, lines, 0)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if after := len(chunks(t, st)); after != before {
		t.Fatalf("%d chunks after re-ingest, want %d (no duplicates)", after, before)
	}

	// Same size, different content: a rewrite.
	changed := append([]string(nil), lines...)
	changed[0] = strings.Replace(changed[0], "please make", "kindly make", 1)
	writeLines(t, path, changed, 0)
	rep, err = (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Restarted {
		t.Fatalf("rewrite not detected: %+v", rep)
	}
	if !strings.Contains(allText(chunks(t, st)), "kindly make") {
		t.Fatal("rewritten content not archived")
	}
	// What was stored before is still there.
	if !strings.Contains(allText(chunks(t, st)), "Turn 0: please make") {
		t.Fatal("earlier content lost")
	}
}

func TestHugeLineAndGarbage(t *testing.T) {
	ctx := context.Background()
	lines := synth(2)
	huge, _ := json.Marshal(map[string]any{"type": "user", "sessionId": sid, "uuid": "huge",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "tu_1",
			"content": "BEGIN-HUGE " + strings.Repeat("x", 5<<20) + " END-HUGE"}}}})
	mixed := []string{lines[0], "not json at all", "\x00\x01\x02\xff\xfe", lines[1], string(huge), lines[2], "{\"type\":", lines[3]}
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	writeLines(t, path, mixed, 0)
	st := openStore(t)
	rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete || rep.Skipped != 3 {
		t.Fatalf("report %+v: want complete with 3 bad lines skipped", rep)
	}
	cs := chunks(t, st)
	text := allText(cs)
	if !strings.Contains(text, "go test ./widget0/...") || !strings.Contains(text, "widget0 passes now.") {
		t.Fatalf("good lines around bad ones lost:\n%s", text)
	}
	for _, c := range cs {
		if len(c.Text) > 64<<10 {
			t.Fatalf("chunk of %d bytes: the huge result was not truncated", len(c.Text))
		}
	}
}

func TestNotARegularFile(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	posixtest.Mkfifo(t, fifo)
	done := make(chan error, 1)
	go func() {
		_, err := (&ingest.Archiver{Store: st}).File(ctx, fifo, ingest.Options{SessionID: sid})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ingest.ErrNotRegular) {
			t.Fatalf("fifo: err = %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ingest blocked on a FIFO")
	}
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, dir, ingest.Options{SessionID: sid}); !errors.Is(err, ingest.ErrNotRegular) {
		t.Fatalf("directory: err = %v, want ErrNotRegular", err)
	}
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, filepath.Join(dir, "missing.jsonl"), ingest.Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: err = %v, want not exist", err)
	}
	empty := filepath.Join(dir, sid+".jsonl")
	writeLines(t, empty, nil, 0)
	if rep, err := (&ingest.Archiver{Store: st}).File(ctx, empty, ingest.Options{}); err != nil || !rep.Complete || rep.Chunks != 0 {
		t.Fatalf("empty file: %+v, %v", rep, err)
	}
}

// stopAfterApply cancels the ingest after its first committed batch, as a
// hook deadline would.
type stopAfterApply struct {
	carryover.Store
	cancel context.CancelFunc
}

func (s stopAfterApply) Apply(ctx context.Context, b carryover.Batch) error {
	err := s.Store.Apply(ctx, b)
	s.cancel()
	return err
}

func TestDeadlineKeepsProgress(t *testing.T) {
	lines := synth(200)
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	writeLines(t, path, lines, 0)
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := (&ingest.Archiver{Store: stopAfterApply{st, cancel}, BatchBytes: 8 << 10}).File(ctx, path, ingest.Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the deadline's error", err)
	}
	state, err := st.IngestState(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if state.Offset <= 0 || state.Offset >= fi.Size() {
		t.Fatalf("offset %d after one batch of a %d-byte file", state.Offset, fi.Size())
	}
	// The next hook resumes where the last one stopped.
	rep, err := (&ingest.Archiver{Store: st, BatchBytes: 8 << 10}).File(context.Background(), path, ingest.Options{})
	if err != nil || !rep.Complete || rep.Restarted {
		t.Fatalf("resume: %+v, %v", rep, err)
	}
	text := allText(chunks(t, st))
	for i := range 200 {
		cmd := fmt.Sprintf("go test ./widget%d/...", i)
		if n := strings.Count(text, cmd); n != 1 {
			t.Fatalf("%q stored %d times, want once", cmd, n)
		}
	}
}

// TestReingestAfterCompaction archives a session before its compaction (as
// PreCompact does), again after it (SessionStart), then once more from
// scratch after the file was rewritten: nothing is stored twice.
func TestReingestAfterCompaction(t *testing.T) {
	ctx := context.Background()
	pre := synth(4)
	boundary, summary := compaction("This session is being continued from a previous conversation. Summary: widgets.")
	post := synth(6)[16:]
	all := append(append(append([]string{}, pre...), boundary, summary), post...)
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	st := openStore(t)

	writeLines(t, path, pre, 0)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	writeLines(t, path, all, 0)
	rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
	if err != nil || rep.Restarted || rep.Window != 1 {
		t.Fatalf("after the compaction: %+v, %v", rep, err)
	}
	want := len(chunks(t, st))
	comps, _ := st.Compactions(ctx, sid)
	if len(comps) != 1 || comps[0].Summary == "" || comps[0].Trigger != "auto" {
		t.Fatalf("compactions %+v", comps)
	}
	// The same content written again (as a copy or a restore would): read
	// from the start, nothing new stored.
	writeLines(t, path, all[:16], 0)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	writeLines(t, path, all, 0)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := len(chunks(t, st)); got != want {
		for _, c := range chunks(t, st) {
			t.Logf("seq %d turn %d win %d L%d-%d %s %q", c.Seq, c.Turn, c.Window, c.FirstLine, c.LastLine, c.Hash[:8], c.Text[:min(60, len(c.Text))])
		}
		t.Fatalf("%d chunks after re-ingesting, want %d", got, want)
	}
	comps, _ = st.Compactions(ctx, sid)
	if len(comps) != 1 {
		t.Fatalf("%d compactions after re-ingesting, want 1", len(comps))
	}

	// A rewrite cut inside a step is read again with other chunk
	// boundaries: the text is stored twice, but no sequence number is
	// reused (items point at chunks by it) and every line is still there.
	writeLines(t, path, all[:3], 0)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	writeLines(t, path, all, 0)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	seqs := map[int]bool{}
	for _, c := range chunks(t, st) {
		if seqs[c.Seq] {
			t.Fatalf("sequence number %d used twice", c.Seq)
		}
		seqs[c.Seq] = true
	}
	for _, c := range chunks(t, st) {
		if strings.Contains(c.Text, "This session is being continued") {
			t.Fatalf("the compaction summary was archived as a chunk: %q", c.Text)
		}
		if strings.Contains(c.Text, "widget5") && c.Window != 1 {
			t.Fatalf("chunk after the boundary in window %d", c.Window)
		}
	}
}

// TestPrepareToldNewBytes checks that Prepare hears how much of the
// transcript is new, before the reading: all of it at first, then what
// was appended.
func TestPrepareToldNewBytes(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	lines := synth(6)
	writeLines(t, path, lines[:12], 0)
	var told []int64
	a := ingest.Archiver{Store: st, Prepare: func(n int64) { told = append(told, n) }}
	if _, err := a.File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	first, _ := os.Stat(path)
	writeLines(t, path, lines[12:], os.O_APPEND)
	if _, err := a.File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	all, _ := os.Stat(path)
	want := []int64{first.Size(), all.Size() - first.Size()}
	if fmt.Sprint(told) != fmt.Sprint(want) {
		t.Fatalf("Prepare told %v, want %v", told, want)
	}
}

// TestNotATranscript: a transcript_path that holds no JSON lines (a link
// to a system file) is refused before anything is stored, its raw lines
// included; a transcript whose first line is damaged is still one.
func TestNotATranscript(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	system := filepath.Join(dir, "passwd")
	if err := os.WriteFile(system, []byte("root:x:0:0:root:/root:/bin/bash\ndev:x:1000:1000::/home/dev:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, sid+".jsonl")
	if err := os.Symlink(system, path); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	st := openStore(t)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{SessionID: sid}); !errors.Is(err, ingest.ErrNotTranscript) {
		t.Fatalf("err %v, want ErrNotTranscript", err)
	}
	if _, err := st.Session(ctx, sid); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("a session was stored: %v", err)
	}
	if raw, err := st.RawLines(ctx, sid, 1, 10); err != nil || len(raw) > 0 {
		t.Errorf("raw lines stored: %d, %v", len(raw), err)
	}

	torn := filepath.Join(dir, "torn", sid+".jsonl")
	os.MkdirAll(filepath.Dir(torn), 0o700)
	writeLines(t, torn, append([]string{`{"type":"user","mess`}, synth(1)...), 0)
	if rep, err := (&ingest.Archiver{Store: st}).File(ctx, torn, ingest.Options{}); err != nil || rep.Chunks == 0 {
		t.Errorf("a transcript with a damaged first line: %+v, %v", rep, err)
	}
}

// TestReportSession checks that the report's session is the store's (as a
// fresh read without counts gives it) whenever it is set, which is after
// every archive of a session the store had, and that a first archive
// leaves it unset; and that it gives the compactions read, as stored.
func TestReportSession(t *testing.T) {
	ctx := context.Background()
	pre := synth(4)
	boundary, summary := compaction("This session is being continued. Summary: widgets.")
	post := synth(6)[16:]
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	st := openStore(t)
	archive := func(step string) ingest.Report {
		t.Helper()
		rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
		if err != nil || !rep.Complete {
			t.Fatalf("%s: %+v, %v", step, rep, err)
		}
		return rep
	}
	check := func(step string, rep ingest.Report, window int) {
		t.Helper()
		want, err := carryover.SessionWithoutCounts(ctx, st, sid)
		if err != nil {
			t.Fatal(err)
		}
		got := rep.Session
		// Only the transcript path is the archive's: the store keeps it.
		if got.ID != sid || got.Project != want.Project || got.Windows != want.Windows || got.Turns != want.Turns ||
			got.TranscriptPath != want.TranscriptPath || !got.Updated.Equal(want.Updated) || got.Windows != window {
			t.Fatalf("%s: report's session %+v, the store's %+v (window %d)", step, got, want, window)
		}
	}

	writeLines(t, path, pre, 0)
	if rep := archive("first archive"); rep.Session.ID != "" {
		t.Fatalf("first archive: session %+v reported, none was read", rep.Session)
	}
	writeLines(t, path, []string{boundary, summary}, os.O_APPEND)
	rep := archive("the compaction")
	check("the compaction", rep, 1)
	stored, err := st.Compactions(ctx, sid)
	if err != nil || len(stored) != 1 {
		t.Fatalf("%d compactions stored, %v", len(stored), err)
	}
	if got := rep.Compactions; len(got) != 1 || got[0].Window != 1 || got[0].Summary != stored[0].Summary ||
		!strings.Contains(got[0].Summary, "Summary: widgets.") {
		t.Fatalf("compactions read %+v, stored %+v", got, stored)
	}
	rep = archive("nothing new")
	check("nothing new", rep, 1)
	if len(rep.Compactions) != 0 {
		t.Fatalf("nothing new, yet compactions read: %+v", rep.Compactions)
	}
	writeLines(t, path, post, os.O_APPEND)
	check("after it", archive("after it"), 1)
}
