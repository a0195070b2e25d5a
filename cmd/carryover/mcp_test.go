package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/sqlite"
)

const (
	demoSessionID = "7f3c2a9e-5b1d-4e8a-9c6f-2d4b8e1a0c53"
	demoCwd       = "/home/dev/projects/invoicer"
)

// mcpEnv is a carryover process environment: a private HOME, store and
// log, and the variables Claude Code passes to the MCP servers it starts.
type mcpEnv struct {
	dir, db, log, transcript string
	session                  string // CLAUDE_CODE_SESSION_ID; "" for none
}

// newMCPEnv writes the demo session (one compaction) and archives it.
func newMCPEnv(t *testing.T) *mcpEnv {
	t.Helper()
	dir := t.TempDir()
	e := &mcpEnv{dir: dir, db: filepath.Join(dir, "carryover.db"), log: filepath.Join(dir, "carryover.log"),
		transcript: filepath.Join(dir, demoSessionID+".jsonl"), session: demoSessionID}
	if err := os.WriteFile(e.transcript, demoSession, 0o600); err != nil {
		t.Fatal(err)
	}
	st := e.store(t)
	if _, err := (&ingest.Archiver{Store: st}).File(context.Background(), e.transcript, ingest.Options{}); err != nil {
		t.Fatalf("ingest: %v", err)
	}
	return e
}

// store opens the environment's store from the test process.
func (e *mcpEnv) store(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), e.db, sqlite.Options{BusyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func (e *mcpEnv) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "CARRYOVER_") || strings.HasPrefix(k, "CLAUDE") || strings.HasPrefix(k, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+e.dir, "CARRYOVER_DB="+e.db, "CARRYOVER_LOG="+e.log,
		"CLAUDE_PROJECT_DIR="+demoCwd, "CLAUDECODE=1")
	if e.session != "" {
		env = append(env, "CLAUDE_CODE_SESSION_ID="+e.session)
	}
	return env
}

// carryoverPath is the carryover command testscript.Main put on PATH: this
// test binary, which runs the CLI when called by that name.
func carryoverPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("carryover")
	if err != nil {
		t.Fatalf("carryover is not on PATH: %v", err)
	}
	return p
}

// start runs "carryover mcp" as Claude Code does and connects the SDK's
// client to it over stdio.
func (e *mcpEnv) start(t *testing.T) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(carryoverPath(t), "mcp")
	cmd.Env = e.environ()
	cmd.Dir = e.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "carryover-test", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to carryover mcp: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v (stderr: %s)", err, stderr.String())
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("carryover mcp did not exit cleanly: %v\nstderr: %s", cmd.ProcessState, stderr.String())
		}
	})
	return cs
}

// callTool calls a tool and returns its text and whether it is a tool
// error.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: %T content, want text", name, c)
		}
		b.WriteString(tc.Text)
	}
	return b.String(), res.IsError
}

func mustTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	text, isErr := callTool(t, cs, name, args)
	if isErr {
		t.Fatalf("%s %v: tool error: %s", name, args, text)
	}
	return text
}

// TestMCPStdio drives a real "carryover mcp" process with the SDK's client:
// the handshake, the tool list and every tool, bad arguments and capped
// results.
func TestMCPStdio(t *testing.T) {
	e := newMCPEnv(t)
	cs := e.start(t)

	init := cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Name != "carryover" || init.ServerInfo.Version != versionString() {
		t.Errorf("server info %+v", init.ServerInfo)
	}
	if init.Capabilities == nil || init.Capabilities.Tools == nil || init.Capabilities.Prompts != nil || init.Capabilities.Resources != nil {
		t.Errorf("capabilities %+v: want tools only", init.Capabilities)
	}
	if !strings.Contains(init.Instructions, "search") {
		t.Errorf("instructions %q", init.Instructions)
	}

	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantProps := map[string][]string{
		"search":   {"query", "scope", "kind", "file", "since", "limit", "budget"},
		"get":      {"chunk_ids", "session", "turn", "from_line", "to_line", "budget"},
		"timeline": {"session"},
		"sessions": {"project", "limit"},
		"remember": {"text", "kind"},
		"state":    {"text"},
	}
	wantRequired := map[string][]string{"search": {"query"}, "remember": {"text"}, "state": {"text"}}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 100 {
			t.Errorf("%s: description too short to guide the model: %q", tool.Name, tool.Description)
		}
		data, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatalf("%s schema: %v", tool.Name, err)
		}
		var props []string
		for p, s := range schema.Properties {
			props = append(props, p)
			if s.Description == "" {
				t.Errorf("%s.%s has no description", tool.Name, p)
			}
		}
		slices.Sort(props)
		want := slices.Sorted(slices.Values(wantProps[tool.Name]))
		if schema.Type != "object" || !slices.Equal(props, want) {
			t.Errorf("%s schema: type %q, properties %v, want object with %v", tool.Name, schema.Type, props, want)
		}
		if !slices.Equal(schema.Required, wantRequired[tool.Name]) {
			t.Errorf("%s required %v, want %v", tool.Name, schema.Required, wantRequired[tool.Name])
		}
		if tool.OutputSchema != nil {
			t.Errorf("%s has an output schema: Claude Code would show structured content instead of the text", tool.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"get", "remember", "search", "sessions", "state", "timeline"}) {
		t.Errorf("tools %v", names)
	}

	// search finds the pre-compaction fact, and get returns its chunk whole.
	text := mustTool(t, cs, "search", map[string]any{"query": "fpdf NewA4"})
	if !strings.Contains(text, "fpdf.NewA4") {
		t.Fatalf("search lacks fpdf.NewA4:\n%s", text)
	}
	m := regexp.MustCompile(`chunk (\d+) · session 7f3c2a9e · turn (\d+) · lines (\d+)-(\d+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("search hit without provenance:\n%s", text)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	chunks, err := e.store(t).Chunks(context.Background(), carryover.ChunkFilter{Turn: -1, IDs: []int64{id}})
	if err != nil || len(chunks) != 1 {
		t.Fatalf("chunk %d: %v", id, err)
	}
	if c := chunks[0]; fmt.Sprint(c.Turn, c.FirstLine, c.LastLine) != m[2]+" "+m[3]+" "+m[4] {
		t.Errorf("search provenance %v, chunk has turn %d lines %d-%d", m[2:], c.Turn, c.FirstLine, c.LastLine)
	}
	text = mustTool(t, cs, "get", map[string]any{"chunk_ids": []int64{id}})
	if !strings.Contains(text, strings.TrimSpace(chunks[0].Text)) {
		t.Errorf("get does not hold chunk %d's archived text:\n%s", id, text)
	}

	text = mustTool(t, cs, "timeline", nil)
	for _, want := range []string{"turn 0 · window 0", "compaction 1 (auto) at line 85", "167000 tokens before", "turn 2 · window 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("timeline lacks %q:\n%s", want, text)
		}
	}
	text = mustTool(t, cs, "sessions", nil)
	if !strings.Contains(text, demoSessionID+" (current session)") || !strings.Contains(text, "1 compaction ·") {
		t.Errorf("sessions:\n%s", text)
	}

	// Bad arguments are tool errors, and the server keeps serving.
	for _, tc := range []struct {
		tool string
		args map[string]any
		says string
	}{
		{"search", map[string]any{"query": ""}, "query is empty"},
		{"search", map[string]any{"query": 42}, "query"},
		{"get", map[string]any{"session": "00000000-dead"}, "no archived session"},
		{"get", map[string]any{"from_line": 50, "to_line": 10}, "after to_line"},
		{"get", map[string]any{"budget": 1 << 30}, "out of range"},
		{"search", map[string]any{"query": "x", "budget": 100000}, "out of range"},
		{"remember", map[string]any{"text": "   "}, "text is empty"},
	} {
		text, isErr := callTool(t, cs, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, tc.says) {
			t.Errorf("%s %v: error %v %q, want a tool error saying %q", tc.tool, tc.args, isErr, text, tc.says)
		}
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("an unknown tool is not a protocol error")
	}

	// A huge result is capped at its budget and says how to get the rest.
	text = mustTool(t, cs, "get", map[string]any{"budget": 600})
	if len(text) > 600 || !strings.Contains(text, "more chunks not shown") || !strings.Contains(text, `"from_line"`) {
		t.Errorf("get of the whole session with budget 600: %d characters:\n%s", len(text), text)
	}
	text = mustTool(t, cs, "search", map[string]any{"query": "pdf invoice", "budget": 500})
	if len(text) > 500 || !strings.Contains(text, "· session 7f3c2a9e") {
		t.Errorf("search with budget 500: %d characters, want at most 500 with a hit:\n%s", len(text), text)
	}
	if text := mustTool(t, cs, "search", map[string]any{"query": "PDF_FONT_DIR"}); !strings.Contains(text, "PDF_FONT_DIR") {
		t.Errorf("search after errors:\n%s", text)
	}

	// Logs go to the log file, not to the protocol stream.
	logData, err := os.ReadFile(e.log)
	if err != nil || !bytes.Contains(logData, []byte("mcp server start")) || !bytes.Contains(logData, []byte("tool=search")) {
		t.Errorf("log file: %v\n%s", err, logData)
	}
}

// TestMCPNoSession: without CLAUDE_CODE_SESSION_ID the project's latest
// session is current; with nothing archived, remember and state fail
// cleanly.
func TestMCPNoSession(t *testing.T) {
	e := newMCPEnv(t)
	e.session = ""
	cs := e.start(t)
	if text := mustTool(t, cs, "timeline", nil); !strings.Contains(text, "Session "+demoSessionID) {
		t.Errorf("timeline without a session id:\n%s", text)
	}

	empty := &mcpEnv{dir: t.TempDir()}
	empty.db, empty.log = filepath.Join(empty.dir, "c.db"), filepath.Join(empty.dir, "c.log")
	cs = empty.start(t)
	for _, tool := range []string{"remember", "state"} {
		if text, isErr := callTool(t, cs, tool, map[string]any{"text": "x"}); !isErr || !strings.Contains(text, "no current session") {
			t.Errorf("%s with no session: %v %q", tool, isErr, text)
		}
	}
}

// TestMCPNotesSurviveTwoCompactions stores a note and the current state with
// the MCP tools, then runs the real SessionStart(compact) hook after the
// session's first and after its second compaction: both restores show the
// state first and the note.
func TestMCPNotesSurviveTwoCompactions(t *testing.T) {
	e := newMCPEnv(t)
	cs := e.start(t)
	const (
		oldState   = "Task: PDF export. Next: wire the renderer into cmd/invoicer."
		state      = "Task: show the invoice number in the PDF footer (internal/pdf/render.go, SetFooterFunc). Next: go test -race ./internal/pdf/..."
		constraint = "Fonts come from PDF_FONT_DIR; never embed the DejaVu TTF in the binary."
		decision   = "Invoice totals are computed in cents (int64), never float64, to avoid rounding drift."
		note       = "The staging server's fonts live in /opt/fonts/dejavu-2.37."
	)
	mustTool(t, cs, "state", map[string]any{"text": oldState})
	mustTool(t, cs, "remember", map[string]any{"text": constraint, "kind": "constraint"})
	mustTool(t, cs, "remember", map[string]any{"text": decision, "kind": "decision"})
	mustTool(t, cs, "remember", map[string]any{"text": note})
	if text := mustTool(t, cs, "state", map[string]any{"text": state}); !strings.Contains(text, "replacing the previous one") {
		t.Errorf("state: %s", text)
	}

	check := func(window int) {
		t.Helper()
		ctx := e.sessionStart(t)
		if !strings.Contains(ctx, fmt.Sprintf("window %d)", window)) {
			t.Errorf("restore is not of window %d:\n%s", window, ctx)
		}
		if testing.Verbose() {
			t.Logf("restore of window %d:\n%s", window, ctx)
		}
		first := strings.Index(ctx, "### ")
		if first < 0 || !strings.HasPrefix(ctx[first:], "### Now\n") {
			t.Fatalf("window %d: the restore does not open with the current state:\n%s", window, ctx)
		}
		firstEntry, _, _ := strings.Cut(strings.TrimPrefix(ctx[first:], "### Now\n"), "\n- ")
		if !strings.Contains(firstEntry, "state") || !strings.Contains(firstEntry, "invoice number in the PDF footer") {
			t.Errorf("window %d: the first entry is not the state: %q", window, firstEntry)
		}
		if !strings.Contains(ctx, "go test -race ./internal/pdf/...") {
			t.Errorf("window %d: the state is not whole", window)
		}
		if strings.Contains(ctx, "wire the renderer into cmd/invoicer") {
			t.Errorf("window %d: the replaced state is still shown", window)
		}
		for _, want := range []string{constraint, decision, note} {
			if !strings.Contains(ctx, want) {
				t.Errorf("window %d: the restore lacks %q:\n%s", window, want, ctx)
			}
		}
	}
	check(1)

	// The session goes on and compacts a second time.
	e.appendSecondCompaction(t)
	check(2)
	sess, err := e.store(t).Session(context.Background(), demoSessionID)
	if err != nil || sess.Windows != 2 {
		t.Fatalf("after the second compaction: %+v, %v", sess, err)
	}
}

// sessionStart runs the SessionStart(compact) hook as Claude Code does and
// returns the context it injects.
func (e *mcpEnv) sessionStart(t *testing.T) string {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{
		"session_id": demoSessionID, "transcript_path": e.transcript, "cwd": demoCwd,
		"hook_event_name": "SessionStart", "source": "compact",
	})
	cmd := exec.Command(carryoverPath(t), "hook", "SessionStart")
	cmd.Env = e.environ()
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hook: %v", err)
	}
	var v struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.HookSpecificOutput.AdditionalContext == "" {
		t.Fatalf("hook output %q: %v", out, err)
	}
	return v.HookSpecificOutput.AdditionalContext
}

// appendSecondCompaction appends a turn and a second compaction (boundary
// and summary, shaped like the first) to the transcript.
func (e *mcpEnv) appendSecondCompaction(t *testing.T) {
	t.Helper()
	lines := splitLines(demoSession)
	cut, _, _ := compactionPoint(lines)
	var prompt, answer int
	for i := cut; i < len(lines); i++ {
		if bytes.Contains(lines[i], []byte(`"type":"user"`)) && !bytes.Contains(lines[i], []byte(`"isCompactSummary":true`)) {
			prompt = i
		}
		if bytes.Contains(lines[i], []byte(`"type":"assistant"`)) || bytes.Contains(lines[i], []byte(`"role":"assistant"`)) {
			answer = i
		}
	}
	if prompt == 0 || answer == 0 {
		t.Fatal("demo session: no turn after the compaction")
	}
	n := 0
	edit := func(line []byte, f func(map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		n++
		m["uuid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		m["timestamp"] = fmt.Sprintf("2026-11-20T10:%02d:00.000Z", n)
		f(m)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return append(out, '\n')
	}
	var add []byte
	add = append(add, edit(lines[prompt], func(m map[string]any) {
		m["message"] = map[string]any{"role": "user", "content": "Now add a QR code with the payment reference to the footer."}
	})...)
	add = append(add, edit(lines[answer], func(m map[string]any) {
		msg := m["message"].(map[string]any)
		msg["id"] = "msg_second_window"
		msg["content"] = []any{map[string]any{"type": "text", "text": "The QR code is drawn by internal/pdf/qr.go with github.com/skip2/go-qrcode; the footer calls drawQR."}}
	})...)
	add = append(add, edit(lines[cut], func(m map[string]any) {
		m["compactMetadata"] = map[string]any{"trigger": "manual", "preTokens": 98000, "postTokens": 7000, "durationMs": 20000}
	})...)
	add = append(add, edit(lines[cut+1], func(m map[string]any) {
		m["message"] = map[string]any{"role": "user", "content": "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and Intent: PDF invoices with a footer that shows the invoice number and a QR code."}
	})...)
	f, err := os.OpenFile(e.transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(add); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
