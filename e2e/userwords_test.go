package e2e

import (
	"strings"
	"testing"
)

// userValues are what the user states in the first prompt; the fake's
// summary never repeats them.
var userValues = []string{"48213", "QZXV-PELICAN"}

// TestUserWordsSurviveCompaction: a short session whose first prompt
// states a decision with two values, one tool call, and a compaction whose
// summary lacks both. The compaction request's instructions ask to keep
// them, and the restore after it carries them; after a later prompt and a
// second compaction, the restore still carries them.
func TestUserWordsSurviveCompaction(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.installCarryover()

	sid := h.prompt("", "We decided the staging deploy port is 48213 and the release codename is QZXV-PELICAN. "+
		"Now check the shell [[BASH echo shell-ok]]").SessionID
	h.prompt(sid, "/compact")
	h.prompt(sid, "go on")
	h.checkUserValues(1)

	h.prompt(sid, "now list the project files [[BASH ls]]")
	h.prompt(sid, "/compact")
	h.prompt(sid, "go on")
	h.checkUserValues(2)
}

// checkUserValues asserts that the nth compaction request's instructions
// and the restore injected after it hold the user's values, and that the
// fake summary does not.
func (h *harness) checkUserValues(nth int) {
	t := h.t
	t.Helper()
	reqs := h.api.Messages()
	at, n := -1, 0
	for i, r := range reqs {
		if r.IsCompaction() {
			n++
			if n == nth {
				at = i
			}
		}
	}
	if at < 0 || at+1 >= len(reqs) {
		t.Fatalf("want compaction request %d and one after it, got %d requests with %d compactions", nth, len(reqs), n)
	}
	comp, next := reqs[at], reqs[at+1]
	last, _ := comp.LastUser()
	instr := last.Text()
	i := strings.Index(instr, instructionsMark)
	if i < 0 {
		t.Fatalf("compaction request #%d lacks carryover's instructions", comp.N)
	}
	instr = instr[i:]
	ctx := sessionStartContext(next.SystemText())
	if !strings.Contains(ctx, restoreMark) {
		t.Fatalf("request #%d after compaction %d: no restore block in the system messages:\n%s", next.N, nth, clip(next.SystemText(), 3000))
	}
	for _, v := range userValues {
		if strings.Contains(comp.Reply, v) {
			t.Fatalf("fake summary %q holds %s: the test proves nothing", comp.Reply, v)
		}
		if !strings.Contains(instr, v) {
			t.Errorf("compaction %d: instructions lack the user's value %s:\n%s", nth, v, clip(instr, 3000))
		}
		if !strings.Contains(ctx, v) {
			t.Errorf("compaction %d: the restore lacks the user's value %s:\n%s", nth, v, clip(ctx, 4000))
		}
	}
}
