package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
)

// fact is run in a tool call before the compaction. The fake summary never
// contains it, so after the compaction only carryover can bring it back.
const fact = "CARRYOVER-FACT-7f3a"

// factPrompt makes the fake call Bash with a command holding the fact.
const factPrompt = "please run [[BASH echo " + fact + " > fact.txt && echo done]]"

// autoCompactEnv makes a [[BIG]] turn cross the auto-compaction threshold
// (FINDINGS §7): without a configured window the CLI assumes 1M tokens and
// never compacts proactively.
var autoCompactEnv = []string{"CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50"}

// Markers of carryover's output, from retrieve's instructions and restore block.
const (
	instructionsMark = "Compaction instructions from carryover:"
	restoreMark      = "## carryover: restored after compaction"
	contextPrefix    = "SessionStart hook additional context: "
)

// TestManualCompaction runs a tool call, /compact with focus text and one
// more turn with carryover installed by its installer.
func TestManualCompaction(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.installCarryover()

	sid := h.prompt("", factPrompt).SessionID
	h.checkFactRan()
	h.prompt(sid, "/compact keep X")
	h.prompt(sid, "what was the fact?")

	comp := h.checkCompaction(sid, "manual")
	// The user's focus text comes first, carryover's instructions after it.
	last, _ := comp.LastUser()
	text := last.Text()
	focus := strings.Index(text, "Additional Instructions:\nkeep X\n")
	ours := strings.Index(text, instructionsMark)
	if focus < 0 || ours < focus {
		t.Errorf("compaction prompt: want %q followed by carryover's instructions, got focus at %d, instructions at %d:\n%s",
			"Additional Instructions:\nkeep X", focus, ours, clip(text[max(0, len(text)-3000):], 3000))
	}
}

// TestAutoCompaction is TestManualCompaction with an automatic compaction,
// triggered by a turn reporting a nearly full context.
func TestAutoCompaction(t *testing.T) {
	t.Parallel()
	h := newHarness(t, autoCompactEnv...)
	h.installCarryover()

	sid := h.prompt("", factPrompt).SessionID
	h.checkFactRan()
	h.prompt(sid, "now something big [[BIG]]")
	// This turn crosses the threshold: compaction runs before its request.
	h.prompt(sid, "what was the fact?")

	h.checkCompaction(sid, "auto")
}

// checkFactRan checks the Bash tool call really ran in the project.
func (h *harness) checkFactRan() {
	h.t.Helper()
	got := h.readFile(filepath.Join(h.proj, "fact.txt"))
	if strings.TrimSpace(string(got)) != fact {
		h.t.Fatalf("fact.txt = %q, want %q: the tool call did not run", got, fact)
	}
}

// checkCompaction asserts one carryover round trip around a compaction of
// session sid, and returns the compaction request:
//   - the summariser's prompt carries carryover's PreCompact instructions;
//   - the first request after it carries carryover's restored block, with the
//     fact the summary lost, as SessionStart context;
//   - the store holds the pre-compaction chunks and the audit rows;
//   - the transcript records the compaction.
func (h *harness) checkCompaction(sid, trigger string) apiRequest {
	t := h.t
	t.Helper()
	reqs := h.api.Messages()
	at := -1
	for i, r := range reqs {
		if r.IsCompaction() {
			if at >= 0 {
				t.Fatalf("requests #%d and #%d are both compactions, want one", reqs[at].N, r.N)
			}
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no compaction request reached the API")
	}
	comp := reqs[at]
	last, _ := comp.LastUser()
	if text := last.Text(); !strings.Contains(text, instructionsMark) || !strings.Contains(text, "carryover search") {
		t.Errorf("compaction request #%d lacks carryover's instructions:\n%s", comp.N, clip(text[max(0, len(text)-3000):], 3000))
	}
	if !strings.Contains(comp.Reply, fakeSummary) || strings.Contains(comp.Reply, fact) {
		t.Fatalf("fake summary %q: want %s without the fact", comp.Reply, fakeSummary)
	}

	if at+1 >= len(reqs) {
		t.Fatalf("no request after the compaction request #%d", comp.N)
	}
	next := reqs[at+1]
	if conv := withoutPreCompactEcho(next.ConversationText()); !strings.Contains(conv, fakeSummary) || strings.Contains(conv, fact) {
		t.Errorf("request #%d after the compaction: want the summary and not the fact in the conversation:\n%s", next.N, clip(conv, 3000))
	}
	ctx := sessionStartContext(next.SystemText())
	if !strings.Contains(ctx, restoreMark) || !strings.Contains(ctx, fact) {
		t.Errorf("request #%d after the compaction: want carryover's block with %s as SessionStart context, system messages:\n%s",
			next.N, fact, clip(next.SystemText(), 3000))
	}

	// The fake covers all the traffic: nothing but HEAD / and messages.
	for _, r := range h.api.Others() {
		t.Errorf("unexpected request #%d: %s %s", r.N, r.Method, r.Path)
	}

	h.checkStore(sid, trigger)
	h.checkTranscript(sid, trigger)
	return comp
}

// withoutPreCompactEcho drops what a manual /compact's output echoes of
// the PreCompact hook's stdout (carryover's instructions, whose
// keep-verbatim list may quote the session): the summary and the rest of
// the conversation are what the fact must be absent from.
func withoutPreCompactEcho(conv string) string {
	i := strings.Index(conv, "PreCompact [")
	if i < 0 {
		return conv
	}
	end := len(conv)
	for _, stop := range []string{"PostCompact [", "</local-command-stdout>"} {
		if j := strings.Index(conv[i:], stop); j >= 0 {
			end = min(end, i+j)
		}
	}
	return conv[:i] + conv[end:]
}

// sessionStartContext returns the SessionStart additional context in a
// role "system" message: from its prefix to the next hook's context.
func sessionStartContext(system string) string {
	i := strings.Index(system, contextPrefix)
	if i < 0 {
		return ""
	}
	s := system[i+len(contextPrefix):]
	for _, next := range []string{"\n\nUserPromptSubmit hook additional context:", "\n\nThe following skills are available"} {
		if j := strings.Index(s, next); j >= 0 {
			s = s[:j]
		}
	}
	return s
}

// checkStore asserts the store archived the session before its compaction
// and audited carryover's injections.
func (h *harness) checkStore(sid, trigger string) {
	t := h.t
	t.Helper()
	ctx := context.Background()
	st := h.openStore()
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: sid, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range chunks {
		if c.Window == 0 && strings.Contains(c.Text, fact) {
			found = true
		}
	}
	if !found {
		t.Errorf("store: no pre-compaction chunk of session %s holds %s (%d chunks)", sid, fact, len(chunks))
	}
	injs, err := st.Injections(ctx, sid, 100)
	if err != nil {
		t.Fatal(err)
	}
	events := map[string]carryover.Injection{}
	for _, in := range injs {
		events[in.Event] = in
	}
	if in, ok := events["SessionStart:compact"]; !ok || in.Window != 1 || in.Chars == 0 {
		t.Errorf("store: want a SessionStart:compact injection of window 1, got %+v", injs)
	}
	if _, ok := events["PreCompact:"+trigger]; !ok {
		t.Errorf("store: want a PreCompact:%s injection, got %+v", trigger, injs)
	}
	cs, err := st.Compactions(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Trigger != trigger || !strings.Contains(cs[0].Summary, fakeSummary) {
		t.Errorf("store: want one %s compaction with the fake summary, got %+v", trigger, cs)
	}
}

// checkTranscript asserts the transcript records the compaction: its
// boundary with the trigger, and the summary line.
func (h *harness) checkTranscript(sid, trigger string) {
	t := h.t
	t.Helper()
	var boundary, summary int
	for _, l := range h.transcript(sid) {
		if l["type"] == "system" && l["subtype"] == "compact_boundary" {
			boundary++
			if meta, _ := l["compactMetadata"].(map[string]any); meta["trigger"] != trigger {
				t.Errorf("transcript: compact_boundary trigger = %v, want %s", meta["trigger"], trigger)
			}
		}
		if l["isCompactSummary"] == true {
			summary++
		}
	}
	if boundary != 1 || summary != 1 {
		t.Errorf("transcript: %d compact_boundary and %d isCompactSummary lines, want 1 and 1", boundary, summary)
	}
}

// preexisting is a user settings file carryover does not own: an unrelated
// key and another tool's hook, in a formatting of its own.
const preexisting = `{
    "includeCoAuthoredBy": false,
    "hooks": {
        "Stop": [
            {
                "hooks": [
                    { "type": "command", "command": "true" }
                ]
            }
        ]
    }
}
`

// TestUninstall installs carryover over existing settings, runs a session,
// uninstalls, and checks the settings are back byte for byte and a new
// session with a compaction gets nothing from carryover and stores nothing.
func TestUninstall(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.writeFile(h.userSettings(), []byte(preexisting), 0o644)
	h.installCarryover()
	if got := string(h.readFile(h.userSettings())); got == preexisting || !strings.Contains(got, "pre-compact") {
		t.Fatalf("install did not add carryover's hooks:\n%s", got)
	}
	first := h.prompt("", factPrompt).SessionID

	ctx := context.Background()
	st := h.openStore()
	if _, err := st.Session(ctx, first); err != nil {
		t.Fatalf("carryover's hooks did not archive the session while installed: %v", err)
	}
	sessions, injections := h.storeCounts(st)

	h.uninstallCarryover()
	if got := string(h.readFile(h.userSettings())); got != preexisting {
		t.Fatalf("settings after uninstall differ from before install:\n%s\nwant:\n%s", got, preexisting)
	}

	sent := len(h.api.Messages())
	sid := h.prompt("", factPrompt).SessionID
	h.prompt(sid, "/compact keep X")
	h.prompt(sid, "what was the fact?")
	compacted := false
	for _, r := range h.api.Messages()[sent:] {
		compacted = compacted || r.IsCompaction()
		for _, mark := range []string{instructionsMark, restoreMark, "hook additional context", "hook pre-compact", "hook session-start"} {
			if strings.Contains(string(r.Body), mark) {
				t.Errorf("request #%d after uninstall contains %q", r.N, mark)
			}
		}
	}
	if !compacted {
		t.Error("no compaction request after uninstall")
	}
	if _, err := st.Session(ctx, sid); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("session after uninstall was archived (err %v)", err)
	}
	if s, i := h.storeCounts(st); s != sessions || i != injections {
		t.Errorf("store changed after uninstall: %d sessions, %d injections, was %d, %d", s, i, sessions, injections)
	}
}

// TestInstallUninstallNoSettings checks that uninstall removes the settings
// file install created.
func TestInstallUninstallNoSettings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.installCarryover()
	if h.readFile(h.userSettings()) == nil {
		t.Fatal("install wrote no settings file")
	}
	h.uninstallCarryover()
	if _, err := os.Stat(h.userSettings()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("settings file after uninstall: %v, want it absent", err)
	}
}

// storeCounts returns the number of sessions and injections in the store.
func (h *harness) storeCounts(st carryover.Store) (sessions, injections int) {
	h.t.Helper()
	ctx := context.Background()
	ss, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		h.t.Fatal(err)
	}
	in, err := st.Injections(ctx, "", 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return len(ss), len(in)
}
