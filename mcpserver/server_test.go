package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/mcpserver"
)

var chunkRef = regexp.MustCompile(`chunk (\d+) · session (\w+)`)

// chunkIDs returns the chunk ids a search or get result names, in order.
func chunkIDs(tb testing.TB, text string) []int64 {
	tb.Helper()
	var ids []int64
	for _, m := range chunkRef.FindAllStringSubmatch(text, -1) {
		id, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestSearchScopes(t *testing.T) {
	st := demoStore(t)
	// Another project holds the same words.
	bigSession(t, st, "0b0e0000-0000-4000-8000-000000000001", "/src/other", 2, 300)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})

	text := mustCall(t, cs, "search", map[string]any{"query": "fpdf NewA4"})
	if !strings.Contains(text, "fpdf.NewA4()") || !strings.Contains(text, "session 7f3c2a9e") {
		t.Errorf("project search lacks the hit:\n%s", text)
	}
	if strings.Contains(text, "/src/other") {
		t.Errorf("project search shows another project:\n%s", text)
	}
	for _, want := range []string{"turn 0", "lines ", "window 0", "2026-11-20 09:", `get {"chunk_ids"`} {
		if !strings.Contains(text, want) {
			t.Errorf("search result lacks %q:\n%s", want, text)
		}
	}
	if len(text) > 3000 {
		t.Errorf("default search is %d characters, want at most the default budget 3000", len(text))
	}

	text = mustCall(t, cs, "search", map[string]any{"query": "zebrafish"})
	if !strings.Contains(text, "no matches") {
		t.Errorf("project scope found another project's chunks:\n%s", text)
	}
	text = mustCall(t, cs, "search", map[string]any{"query": "zebrafish", "scope": "all"})
	if !strings.Contains(text, "project /src/other") || len(chunkIDs(t, text)) != 2 {
		t.Errorf("scope all should find both chunks of the other project, with its project:\n%s", text)
	}

	// The session scope follows the current session.
	other := connect(t, st, mcpserver.Options{Project: "/src/other", SessionID: "0b0e0000-0000-4000-8000-000000000001"})
	text = mustCall(t, other, "search", map[string]any{"query": "fpdf NewA4", "scope": "session"})
	if !strings.Contains(text, "no matches") {
		t.Errorf("session scope found another session's chunks:\n%s", text)
	}
	text = mustCall(t, cs, "search", map[string]any{"query": "fpdf NewA4", "scope": "session", "limit": 2})
	if n := len(chunkIDs(t, text)); n != 2 {
		t.Errorf("limit 2 gave %d hits:\n%s", n, text)
	}
}

func TestSearchFilters(t *testing.T) {
	ctx := context.Background()
	st := demoStore(t)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})

	// kind: only chunks from which an item of that kind was extracted.
	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: demoSession, Kinds: []carryover.ItemKind{carryover.KindError}})
	if err != nil || len(items) == 0 {
		t.Fatalf("demo error items: %d, %v", len(items), err)
	}
	withError := map[int64]bool{}
	for _, it := range items {
		withError[it.ChunkID] = true
	}
	all := chunkIDs(t, mustCall(t, cs, "search", map[string]any{"query": "fpdf pdf", "limit": 20, "budget": 12000}))
	text := mustCall(t, cs, "search", map[string]any{"query": "fpdf pdf", "kind": "error", "limit": 20, "budget": 12000})
	got := chunkIDs(t, text)
	if len(got) == 0 || len(got) >= len(all) {
		t.Fatalf("kind=error kept %d of %d hits, want some but not all:\n%s", len(got), len(all), text)
	}
	for _, id := range got {
		if !withError[id] {
			t.Errorf("kind=error returned chunk %d, which has no error item", id)
		}
	}
	text = mustCall(t, cs, "search", map[string]any{"query": "DejaVu", "kind": "todo"})
	if !strings.Contains(text, "no matches") {
		if ids := chunkIDs(t, text); len(ids) == 0 {
			t.Errorf("kind=todo: neither hits nor no matches:\n%s", text)
		}
	}

	// file: only chunks that touched a matching file.
	text = mustCall(t, cs, "search", map[string]any{"query": "fpdf", "file": "handlers.go", "limit": 20})
	for _, id := range chunkIDs(t, text) {
		cs, err := st.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: []int64{id}})
		if err != nil || len(cs) != 1 {
			t.Fatalf("chunk %d: %v", id, err)
		}
		if !slices.ContainsFunc(cs[0].Files, func(f string) bool { return strings.Contains(f, "handlers.go") }) {
			t.Errorf("file filter returned chunk %d touching %v", id, cs[0].Files)
		}
	}

	// since: the demo's second turn starts at 09:16:43.
	text = mustCall(t, cs, "search", map[string]any{"query": "fpdf pdf", "since": "2026-11-20T09:16:30Z", "limit": 20})
	ids := chunkIDs(t, text)
	if len(ids) == 0 {
		t.Fatalf("since: no hits:\n%s", text)
	}
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if c.Turn == 0 {
			t.Errorf("since 09:16:30 returned chunk %d of turn 0 (%v)", c.ID, c.Start)
		}
	}
}

func TestGet(t *testing.T) {
	ctx := context.Background()
	st := demoStore(t)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})

	// The chunks a search names come back whole.
	ids := chunkIDs(t, mustCall(t, cs, "search", map[string]any{"query": "fpdf NewA4", "limit": 2}))
	if len(ids) != 2 {
		t.Fatalf("search ids %v", ids)
	}
	text := mustCall(t, cs, "get", map[string]any{"chunk_ids": ids})
	stored, err := st.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: ids})
	if err != nil || len(stored) != 2 {
		t.Fatalf("stored chunks: %v", err)
	}
	for _, c := range stored {
		if !strings.Contains(text, strings.TrimSpace(c.Text)) {
			t.Errorf("get lacks the full text of chunk %d", c.ID)
		}
	}
	text = mustCall(t, cs, "get", map[string]any{"chunk_ids": []int64{ids[0], 999999}})
	if !strings.Contains(text, "Not found: chunk 999999") {
		t.Errorf("get does not name the missing chunk:\n%s", text)
	}

	// A line range as chunks, with the compaction between them.
	text = mustCall(t, cs, "get", map[string]any{"session": "7f3c", "from_line": 60, "to_line": 89, "raw": false})
	for _, want := range []string{"turn 1", "turn 2", "compaction 1 (auto) at line 85", "PDF_FONT_DIR"} {
		if !strings.Contains(text, want) {
			t.Errorf("get lines 60-89 lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "turn 0 ·") {
		t.Errorf("get lines 60-89 shows turn 0:\n%s", text)
	}
	// One turn.
	text = mustCall(t, cs, "get", map[string]any{"turn": 0})
	if strings.Contains(text, "turn 1 ·") || !strings.Contains(text, "turn 0 ·") {
		t.Errorf("get turn 0:\n%s", text)
	}
}

// TestGetRaw reads a line range from the raw archive, following the
// continuation hints: every line comes back exactly as archived, each page
// within its budget.
func TestGetRaw(t *testing.T) {
	ctx := context.Background()
	st := demoStore(t)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})
	want, err := st.RawLines(ctx, demoSession, 60, 89)
	if err != nil || len(want) != 30 {
		t.Fatalf("raw lines 60-89: %d, %v", len(want), err)
	}
	lineRE := regexp.MustCompile(`(?m)^── line (\d+)\n(.*)(\n\[… cut:)?`)
	cont := regexp.MustCompile(`Continue with get (\{[^}]*\})`)
	got := map[int]string{}
	args := map[string]any{"session": "7f3c", "from_line": 60, "to_line": 89, "budget": 4000}
	for page := 0; ; page++ {
		if page > 30 {
			t.Fatal("paging does not end")
		}
		text := mustCall(t, cs, "get", args)
		if len(text) > 4000 {
			t.Fatalf("page %d is %d characters, budget 4000", page, len(text))
		}
		if page == 0 && !strings.Contains(text, "lines 60-89, as archived") {
			t.Errorf("first page does not say what it shows:\n%s", text[:min(len(text), 300)])
		}
		for _, m := range lineRE.FindAllStringSubmatch(text, -1) {
			n, _ := strconv.Atoi(m[1])
			if m[3] == "" { // a line cut at the page's end comes whole later
				got[n] = m[2]
			}
		}
		m := cont.FindStringSubmatch(text)
		if m == nil {
			break
		}
		args = map[string]any{}
		if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
			t.Fatalf("continuation %s: %v", m[1], err)
		}
		args["budget"] = 4000
	}
	for _, l := range want {
		if g, ok := got[l.Line]; ok && g != string(l.Text) {
			i := 0
			for i < len(g) && i < len(l.Text) && g[i] == l.Text[i] {
				i++
			}
			t.Errorf("line %d differs from the archive at byte %d:\n got %.200s\nwant %.200s", l.Line, i, g[max(i-80, 0):], l.Text[max(i-80, 0):])
		} else if !ok && len(l.Text) < 3000 {
			t.Errorf("paging never showed line %d whole", l.Line)
		}
	}
	// A line longer than the budget is cut, with how to read more of it.
	long := want[0]
	for _, l := range want {
		if len(l.Text) > len(long.Text) {
			long = l
		}
	}
	text := mustCall(t, cs, "get", map[string]any{"from_line": long.Line, "to_line": long.Line, "budget": 500})
	if len(text) > 500 || !strings.Contains(text, fmt.Sprintf("line %d continues (%d characters)", long.Line, len(long.Text))) {
		t.Errorf("a line longer than the budget:\n%s", text)
	}
	// No range, or chunk ids: raw is refused.
	for _, args := range []map[string]any{{"raw": true}, {"raw": true, "turn": 0, "from_line": 3}, {"chunk_ids": []int64{1}, "raw": true}} {
		if text, isErr := call(t, cs, "get", args); !isErr {
			t.Errorf("get %v: no error:\n%s", args, text)
		}
	}
	// Without raw lines there, the chunks.
	bigSession(t, st, "9a9e0000-0000-4000-8000-00000000000a", demoProject, 5, 300)
	text = mustCall(t, cs, "get", map[string]any{"session": "9a9e0000-0000-4000-8000-00000000000a", "from_line": 1, "to_line": 30})
	if len(chunkIDs(t, text)) == 0 || strings.Contains(text, "as archived") {
		t.Errorf("a session without raw lines does not fall back to its chunks:\n%s", text)
	}
}

// TestGetPages follows get's continuation hints through a session with a
// small budget: every chunk is shown, each page within the budget.
func TestGetPages(t *testing.T) {
	st := openStore(t)
	const id = "9a9e0000-0000-4000-8000-000000000002"
	chunks := bigSession(t, st, id, "/src/big", 40, 700)
	cs := connect(t, st, mcpserver.Options{Project: "/src/big", SessionID: id})
	cont := regexp.MustCompile(`"from_line": (\d+)`)
	seen := map[int64]bool{}
	args := map[string]any{"budget": 2000}
	for page := 0; ; page++ {
		if page > 40 {
			t.Fatal("paging does not end")
		}
		text := mustCall(t, cs, "get", args)
		if len(text) > 2000 {
			t.Fatalf("page %d is %d characters, budget 2000", page, len(text))
		}
		for _, id := range chunkIDs(t, text) {
			seen[id] = true
		}
		m := cont.FindStringSubmatch(text)
		if m == nil {
			break
		}
		from, _ := strconv.Atoi(m[1])
		args = map[string]any{"budget": 2000, "from_line": from}
	}
	for _, c := range chunks {
		if !seen[c.ID] {
			t.Errorf("paging never showed chunk %d (lines %d-%d)", c.ID, c.FirstLine, c.LastLine)
		}
	}
}

// TestHugeResultsCapped: no result exceeds its budget or cap, whatever the
// archive holds, and each says what was cut.
func TestHugeResultsCapped(t *testing.T) {
	st := openStore(t)
	const huge = "4b1e0000-0000-4000-8000-000000000003"
	hc := bigSession(t, st, huge, "/src/huge", 3, 200_000)
	const long = "4b1e0000-0000-4000-8000-000000000004"
	bigSession(t, st, long, "/src/huge", 3000, 100)
	for i := range 150 {
		bigSession(t, st, fmt.Sprintf("5e550000-0000-4000-8000-%012d", i), "/src/many", 1, 50)
	}
	cs := connect(t, st, mcpserver.Options{Project: "/src/huge", SessionID: huge})

	for _, tc := range []struct {
		tool string
		args map[string]any
		cap  int
		says string
		full bool // the archive holds enough to fill most of the cap
	}{
		{"get", map[string]any{"chunk_ids": []int64{hc[0].ID}}, 8000, "continues; get", true},
		{"get", map[string]any{"chunk_ids": []int64{hc[0].ID}, "budget": 30000}, 30000, "continues; get", true},
		{"get", map[string]any{"chunk_ids": []int64{hc[0].ID, hc[1].ID, hc[2].ID}, "budget": 500}, 500, fmt.Sprintf(`get {"chunk_ids": [%d, %d]}`, hc[1].ID, hc[2].ID), true},
		{"get", map[string]any{}, 8000, "more chunks not shown", true},
		{"get", map[string]any{"session": long, "budget": 30000}, 30000, "more chunks not shown", true},
		{"search", map[string]any{"query": "zebrafish"}, 3000, "", false},
		{"search", map[string]any{"query": "zebrafish", "budget": 12000, "limit": 20}, 12000, "", false},
		{"search", map[string]any{"query": "zebrafish", "scope": "session", "budget": 500}, 500, "· session 4b1e0000", true},
		{"search", map[string]any{"query": "zebrafish", "scope": "session", "budget": 700, "limit": 20}, 700, "· session 4b1e0000", true},
		{"timeline", map[string]any{"session": long}, 12000, "the timeline is longer than", true},
		{"sessions", map[string]any{"project": "/src/many", "limit": 100}, 12000, "more sessions not shown", true},
		{"sessions", map[string]any{"project": "/src/many", "limit": 20}, 12000, "raise limit", false},
	} {
		text := mustCall(t, cs, tc.tool, tc.args)
		if len(text) > tc.cap {
			t.Errorf("%s %v: %d characters, cap %d", tc.tool, tc.args, len(text), tc.cap)
		}
		if tc.full && len(text) < tc.cap/3 {
			t.Errorf("%s %v: only %d characters of %d used", tc.tool, tc.args, len(text), tc.cap)
		}
		if !strings.Contains(text, tc.says) {
			t.Errorf("%s %v does not say %q:\n%s", tc.tool, tc.args, tc.says, text[max(len(text)-400, 0):])
		}
	}
}

func TestTimelineAndSessions(t *testing.T) {
	st := demoStore(t)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})
	text := mustCall(t, cs, "timeline", map[string]any{})
	order := []string{"turn 0 · window 0 · lines 4-", "turn 1 · window 0", "compaction 1 (auto) at line 85", "167000 tokens before", "turn 2 · window 1", "where did we put the renderer"}
	last := -1
	for _, want := range order {
		i := strings.Index(text, want)
		if i < 0 || i < last {
			t.Fatalf("timeline lacks %q after the previous entries:\n%s", want, text)
		}
		last = i
	}
	if !strings.Contains(text, "This is the current session") {
		t.Errorf("timeline does not mark the current session:\n%s", text)
	}

	text = mustCall(t, cs, "sessions", map[string]any{})
	for _, want := range []string{demoSession + " (current session)", "3 turns", "1 compaction ·", "I need PDF export"} {
		if !strings.Contains(text, want) {
			t.Errorf("sessions lacks %q:\n%s", want, text)
		}
	}
	text = mustCall(t, cs, "sessions", map[string]any{"project": "/elsewhere"})
	if !strings.Contains(text, "No archived sessions in /elsewhere") {
		t.Errorf("sessions of another project:\n%s", text)
	}
	text = mustCall(t, cs, "sessions", map[string]any{"project": "all"})
	if !strings.Contains(text, "project "+demoProject) {
		t.Errorf("sessions of all projects should name the project:\n%s", text)
	}

	// Without a configured session, the project's latest one is current.
	cs = connect(t, st, mcpserver.Options{Project: demoProject})
	if text := mustCall(t, cs, "timeline", map[string]any{}); !strings.Contains(text, "Session "+demoSession) {
		t.Errorf("timeline of the latest session:\n%s", text)
	}
}

func TestNotes(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)

	// No session given and nothing archived: nowhere to store a note.
	cs := connect(t, st, mcpserver.Options{Project: "/src/new"})
	for _, tool := range []string{"remember", "state"} {
		text, isErr := call(t, cs, tool, map[string]any{"text": "keep this"})
		if !isErr || !strings.Contains(text, "no current session") {
			t.Errorf("%s without a session: error %v, %q", tool, isErr, text)
		}
	}

	// The running session need not be archived yet.
	const sid = "1d1e0000-0000-4000-8000-000000000005"
	cs = connect(t, st, mcpserver.Options{Project: "/src/new", SessionID: sid})
	text := mustCall(t, cs, "remember", map[string]any{"text": "Use BM25, not embeddings: no model download in a hook", "kind": "decision"})
	if !strings.Contains(text, "every later restore") {
		t.Errorf("remember says %q", text)
	}
	mustCall(t, cs, "state", map[string]any{"text": "first state"})
	text = mustCall(t, cs, "state", map[string]any{"text": "Task: budget flag. Next: go test ./retrieve/"})
	if !strings.Contains(text, "shows it first") {
		t.Errorf("state says %q", text)
	}
	text = mustCall(t, cs, "remember", map[string]any{"text": strings.Repeat("a long note ", 30)})
	if !strings.Contains(text, "restores show the first 200") {
		t.Errorf("a long note should warn: %q", text)
	}
	notes, err := st.Notes(ctx, "", sid)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, n := range notes {
		kinds = append(kinds, n.Kind+":"+n.Text[:min(len(n.Text), 12)])
		if n.Project != "/src/new" || n.SessionID != sid {
			t.Errorf("note %+v: want project /src/new, session %s", n, sid)
		}
	}
	want := []string{"decision:Use BM25, no", "state:Task: budget", "note:a long note "}
	if !slices.Equal(kinds, want) {
		t.Errorf("notes %q, want %q (state replaced, not added)", kinds, want)
	}
}

func TestBadArguments(t *testing.T) {
	st := demoStore(t)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})
	for _, tc := range []struct {
		tool string
		args map[string]any
		says string
	}{
		{"search", map[string]any{"query": "  "}, "query is empty"},
		{"search", map[string]any{}, "query"},
		{"search", map[string]any{"query": 5}, "query"},
		{"search", map[string]any{"query": "x", "scope": "galaxy"}, "want session, project or all"},
		{"search", map[string]any{"query": "x", "kind": "wish"}, "want one of goal"},
		{"search", map[string]any{"query": "x", "since": "last tuesday"}, "since"},
		{"search", map[string]any{"query": "x", "since": "-3d"}, "positive"},
		{"search", map[string]any{"query": "x", "budget": 499}, "out of range"},
		{"search", map[string]any{"query": "x", "budget": 12001}, "out of range"},
		{"search", map[string]any{"query": "x", "limit": 21}, "out of range"},
		{"search", map[string]any{"query": "x", "limit": -1}, "out of range"},
		{"search", map[string]any{"query": "x", "bogus": true}, "bogus"},
		{"get", map[string]any{"session": "ffffffff"}, "no archived session"},
		{"get", map[string]any{"from_line": 10, "to_line": 5}, "after to_line"},
		{"get", map[string]any{"from_line": -1}, "negative"},
		{"get", map[string]any{"turn": -2}, "numbered from 0"},
		{"get", map[string]any{"turn": 9}, "nothing archived"},
		{"get", map[string]any{"budget": 999999}, "out of range"},
		{"get", map[string]any{"chunk_ids": []int64{999999}}, "no archived chunk"},
		{"get", map[string]any{"chunk_ids": []int64{-4}}, "positive"},
		{"get", map[string]any{"chunk_ids": []int64{1}, "session": demoSession}, "not both"},
		{"get", map[string]any{"chunk_ids": "1"}, "chunk_ids"},
		{"timeline", map[string]any{"session": "nope"}, "no archived session"},
		{"sessions", map[string]any{"limit": 1000}, "out of range"},
		{"sessions", map[string]any{"project": "relative/dir"}, "absolute"},
		{"remember", map[string]any{"text": ""}, "text is empty"},
		{"remember", map[string]any{"text": "\x07\x1b \u200b\r\n"}, "only control characters"},
		{"state", map[string]any{"text": "\x00\x7f"}, "only control characters"},
		{"remember", map[string]any{"text": "x", "kind": "wish"}, "want decision, constraint or note"},
		{"remember", map[string]any{"text": "x", "kind": "state"}, "use the state tool"},
		{"remember", map[string]any{"text": strings.Repeat("x", 2001)}, "keep it under 2000"},
		{"state", map[string]any{}, "text"},
	} {
		text, isErr := call(t, cs, tc.tool, tc.args)
		if !isErr {
			t.Errorf("%s %v: no tool error, got:\n%s", tc.tool, tc.args, text)
			continue
		}
		if !strings.Contains(text, tc.says) {
			t.Errorf("%s %v: error %q does not say %q", tc.tool, tc.args, text, tc.says)
		}
	}
	// The server still serves.
	if text := mustCall(t, cs, "search", map[string]any{"query": "NewA4"}); !strings.Contains(text, "NewA4") {
		t.Errorf("search after errors:\n%s", text)
	}
	// An ambiguous prefix.
	bigSession(t, st, "7f3c0000-0000-4000-8000-000000000006", demoProject, 1, 50)
	if text, isErr := call(t, cs, "get", map[string]any{"session": "7f3c"}); !isErr || !strings.Contains(text, "matches 2 sessions") {
		t.Errorf("ambiguous prefix: error %v, %q", isErr, text)
	}
}

// TestSearchWeak: when no hit clears the bar of a strong match, the result
// says so before the hits.
func TestSearchWeak(t *testing.T) {
	st := demoStore(t)
	cs := connect(t, st, mcpserver.Options{Project: demoProject, SessionID: demoSession})
	text := mustCall(t, cs, "search", map[string]any{"query": "kubernetes ingress controller grafana dashboards for the invoice"})
	head, hits, _ := strings.Cut(text, "\n\n")
	if !strings.HasSuffix(head, "\nno strong match; closest:") || len(chunkIDs(t, hits)) == 0 {
		t.Errorf("weak match: want the note, then the closest hits:\n%s", text)
	}
	text = mustCall(t, cs, "search", map[string]any{"query": "fpdf NewA4"})
	if strings.Contains(text, "no strong match") || len(chunkIDs(t, text)) == 0 {
		t.Errorf("strong match: want hits without the note:\n%s", text)
	}
}
