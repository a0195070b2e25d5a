package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/stats"
)

// osc52 would set the clipboard of the terminal that prints it raw.
const osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07"

func hostileSnapshot() Snapshot {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	return Snapshot{
		At:         at,
		Report:     stats.Report{Project: "/home/dev/p" + osc52, Sessions: 2, Turns: 3, Chunks: 4},
		Runs:       []carryover.HookRun{{Time: at, SessionID: "abc" + osc52, Event: "Stop" + osc52, Outcome: "ok", Latency: 1500 * time.Microsecond, Chars: 7}},
		Injections: []carryover.Injection{{Time: at, SessionID: "def" + osc52, Event: "SessionStart:compact", Window: 1, Chars: 10, Tokens: 3}},
	}
}

func TestTerminalEscapesArchivedText(t *testing.T) {
	s := hostileSnapshot()
	for _, width := range []int{0, 200} {
		out := s.Render("/db", Terminal(), width)
		if strings.Contains(out, "\x1b]") || strings.ContainsRune(out, '\a') {
			t.Errorf("width %d: an OSC sequence reaches the terminal:\n%q", width, out)
		}
		if !strings.Contains(out, `/home/dev/p\e]52;c;`) {
			t.Errorf("width %d: the project is not shown escaped:\n%q", width, out)
		}
	}
	// NewModel's view is the terminal dashboard.
	m := NewModel(t.Context(), Reader{DB: "/db"}, time.Second)
	m.snap, m.loaded = s, true
	if v := m.View(); strings.Contains(v.Content, "\x1b]") {
		t.Errorf("the live view lets an OSC sequence through:\n%q", v.Content)
	}
}

func TestPlainRender(t *testing.T) {
	s := hostileSnapshot()
	s.Report.Project, s.Runs[0].SessionID, s.Runs[0].Event, s.Injections[0].SessionID = "/home/dev/p", "abc", "Stop", "def"
	out := s.Render("/db", Plain(), 0)
	for _, want := range []string{
		"carryover watch /db · 03:04:05",
		"project   /home/dev/p",
		"archive   2 sessions · 3 turns · 4 chunks",
		"Stop                              1.5ms  ok           7 chars  abc",
		"window 1      10 chars  ~3 tokens",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequences in plain output:\n%q", out)
	}
	if l := s.Line(); !strings.Contains(l, "sessions=2 turns=3 chunks=4") || !strings.Contains(l, "last_hook=Stop/ok/1.5ms") {
		t.Errorf("line: %q", l)
	}
}
