package web_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
)

const timelineID = "5e55a0b1-1111-4222-8333-944455556666"

// timelineArchive stores a session of two context windows whose chunks,
// injections and commands exercise the timeline: overlapping chunks, a
// subagent's chunk, a recall per kind of place, a PostToolUse injection,
// the PreCompact instructions and a record from before texts were kept.
// It returns the store and the chunk ids by sequence number.
func timelineArchive(t *testing.T) (carryover.Store, []int64) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	b := carryover.Batch{
		Session: carryover.Session{ID: timelineID, Project: "/p", Title: "timeline", Started: base, Updated: at(40), Windows: 1, Turns: 3},
		State:   carryover.IngestState{SessionID: timelineID, Path: "/x/t.jsonl", FileID: "f", Offset: 1, Line: 70},
		Compactions: []carryover.Compaction{{SessionID: timelineID, Window: 1, Trigger: "auto", Line: 45, Time: at(20),
			Summary: "summary"}},
	}
	for _, c := range []carryover.Chunk{
		{Seq: 0, Turn: 0, FirstLine: 1, LastLine: 5, Start: at(0), End: at(0), Text: "User: make the tests pass"},
		{Seq: 1, Turn: 0, FirstLine: 6, LastLine: 12, Start: at(1), End: at(2), Tools: []string{"Bash"},
			Commands: []string{"go test ./...", `echo "<script>alert(1)</script>"`}, Text: "$ go test ./... → FAIL: TestParse"},
		// The rest of a long step: its lines overlap the previous chunk's.
		{Seq: 2, Turn: 0, FirstLine: 10, LastLine: 12, Start: at(1), End: at(2), Tools: []string{"Bash"},
			Commands: []string{"go test ./..."}, Text: "(cont.) $ go test ./... → --- FAIL: TestParse (0.00s)"},
		{Seq: 3, Turn: 0, FirstLine: 13, LastLine: 20, Start: at(3), End: at(4), Tools: []string{"Edit"}, Files: []string{"parse.go"},
			Text: "Edit parse.go"},
		{Seq: 4, Turn: 1, FirstLine: 21, LastLine: 30, Start: at(10), End: at(10), Text: "User: and the linter"},
		{Seq: 5, Turn: 1, FirstLine: 31, LastLine: 40, Start: at(11), End: at(12), Tools: []string{"Bash"},
			Commands: []string{"printf '\x1b[31mred' # \u202eevil"}, Text: "$ golangci-lint run → ok"},
		// A subagent's lines are numbered in its own file.
		{Seq: 6, Turn: 1, FirstLine: 1, LastLine: 3, Start: at(12), End: at(13), Sidechain: true, AgentID: "a1",
			Text: "Task: explore the parser"},
		{Seq: 7, Turn: 2, Window: 1, FirstLine: 50, LastLine: 60, Start: at(25), End: at(25), Text: "User: now the docs"},
		{Seq: 8, Turn: 2, Window: 1, FirstLine: 61, LastLine: 70, Start: at(26), End: at(26), Text: "Edit README.md"},
	} {
		c.SessionID, c.Project, c.Summary, c.Hash = timelineID, "/p", c.Text, "h"+string(rune('a'+c.Seq))
		b.Chunks = append(b.Chunks, c)
	}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: timelineID, Turn: -1})
	if err != nil || len(chunks) != 9 {
		t.Fatalf("chunks: %d, %v", len(chunks), err)
	}
	ids := make([]int64, len(chunks))
	for i, c := range chunks {
		ids[i] = c.ID
	}
	for _, in := range []carryover.Injection{
		{Time: at(19), Event: "PreCompact:auto", Window: 0, Text: "Keep exact paths. <b>not bold</b>",
			Reason: "PreCompact instructions for compaction 1 (auto)"},
		{Time: at(21), Event: "SessionStart:compact", Window: 1, ChunkIDs: []int64{ids[1]},
			Text: "## carryover: restored after compaction\n- `rm -rf <script>`", Reason: "restore after compaction 1: 0 items, 1 chunk"},
		{Time: at(10).Add(time.Second), Event: "UserPromptSubmit", Window: 0, ChunkIDs: []int64{ids[3]},
			Text: "## carryover: recalled from the archive\nparse.go \u202ereversed", Reason: "recall: BM25 7.2 ≥ 2, 3 of 4 informative words"},
		{Time: at(1).Add(30 * time.Second), Event: "PostToolUseFailure", Window: 0,
			Text: "## carryover: this error was seen before", Reason: "failure recall: same error in turn 0"},
		{Time: at(25).Add(10 * time.Second), Event: "UserPromptSubmit", Window: 1, Chars: 800},
		{Time: at(40), Event: "UserPromptSubmit", Window: 1, Text: "## carryover: recalled for a prompt not archived yet",
			Reason: "recall: late"},
	} {
		in.SessionID, in.Project, in.Hash = timelineID, "/p", "hash"
		if in.Chars == 0 {
			in.Chars = len(in.Text)
		}
		if _, err := st.RecordInjection(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	return st, ids
}

// order fails unless each string occurs in body, in this order.
func order(t *testing.T, body string, what ...string) {
	t.Helper()
	last := -1
	for j, w := range what {
		i := strings.Index(body, w)
		if i < 0 {
			t.Errorf("page lacks %q", w)
			return
		}
		if i < last {
			t.Errorf("%q comes before %q", w, what[j-1])
		}
		last = i
	}
}

// TestTimelinePlacesInjections: each injection is shown with its text and
// reason where it was made, and each chunk range in one row.
func TestTimelinePlacesInjections(t *testing.T) {
	st, ids := timelineArchive(t)
	ts, c := serve(t, st)
	login(t, ts, c)
	code, body := get(t, c, ts.URL+"/session/"+timelineID)
	if code != 200 {
		t.Fatalf("%d: %s", code, body)
	}
	row := func(i int) string { return `<details class="chunk" id="chunk-` + itoa(ids[i]) + `"` }

	// Window 0: the failure recall after the row whose step it followed,
	// the recall with the prompt of turn 1, the instructions at the end.
	order(t, body, row(0), row(1), "failure recall: same error in turn 0", "this error was seen before", row(3),
		`id="turn-1"`, "Recalled for this prompt", "recall: BM25 7.2 ≥ 2, 3 of 4 informative words", row(4), row(5), row(6),
		"Sent to the summariser when window 0 was compacted", "Keep exact paths. &lt;b&gt;not bold&lt;/b&gt;",
		`id="compaction-1"`)
	// Window 1: the restore after the boundary, an old recall without its
	// text with turn 2, a recall of a prompt not archived at the end.
	order(t, body, `id="compaction-1"`, "Injected into window 1", "restore after compaction 1: 0 items, 1 chunk",
		"- `rm -rf &lt;script&gt;`", `id="turn-2"`, "Text not kept", row(7), row(8),
		"Injected after the last archived step of window 1", "recalled for a prompt not archived yet")

	// Overlapping chunks are one row; the subagent's chunk is not merged.
	if strings.Contains(body, row(2)) || !strings.Contains(body, `<div class="part" id="chunk-`+itoa(ids[2])+`">`) {
		t.Error("the continued chunk is not a part of its row")
	}
	if !strings.Contains(body, "#"+itoa(ids[1])+"–"+itoa(ids[2])+" · 2 chunks · lines 6–12") {
		t.Error("the merged row does not say what it holds")
	}
	if !strings.Contains(body, row(6)) {
		t.Error("the subagent's chunk was merged into the main transcript's row")
	}

	// Commands: in the row, escaped; control characters and
	// bidirectional overrides shown, not obeyed.
	for _, want := range []string{`<code class="cmd">$ go test ./...</code>`,
		`<code class="cmd">$ echo &#34;&lt;script&gt;alert(1)&lt;/script&gt;&#34;</code>`,
		`$ printf &#39;\e[31mred&#39; # \u{202e}evil`, `parse.go \u{202e}reversed`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Count(body, `<code class="cmd">$ go test ./...</code>`) != 2 {
		t.Error("the merged row repeats a command or leaves it out (want it once in the summary, once in the list)")
	}
	for _, bad := range []string{"\x1b", "\u202e", "<script>", "<b>not bold"} {
		if strings.Contains(body, bad) {
			t.Errorf("page holds %q raw", bad)
		}
	}
}
