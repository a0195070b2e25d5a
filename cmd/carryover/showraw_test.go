package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/redact"
)

// TestShowRaw archives the demo session through a hook and prints lines
// of it with show --raw: off a terminal they are the transcript's bytes
// (masked as the hook masked them), one per line.
func TestShowRaw(t *testing.T) {
	h := newHookEnv(t)
	checkOutput(t, hook.PreCompact, h.run(t, "pre-compact", h.payloadAt(hook.PreCompact, h.transcript)))
	lines := bytes.Split(bytes.TrimSuffix(demoSession, []byte("\n")), []byte("\n"))
	red := redact.New(redact.Options{})
	want := func(from, to int) string {
		var b strings.Builder
		for _, l := range lines[from-1 : to] {
			m, _ := red.RedactJSON(l)
			b.Write(m)
			b.WriteByte('\n')
		}
		return b.String()
	}
	for _, tc := range []struct {
		args     []string
		from, to int
	}{
		{[]string{"--raw", "--lines", "3-5"}, 3, 5},
		{[]string{"--lines", "7", "--raw"}, 7, 7},
		{[]string{"--raw", "--lines", "80-"}, 80, len(lines)},
		{[]string{"--raw"}, 1, len(lines)},
	} {
		out, errOut, code := h.runCLI(t, append([]string{"show", demoID[:8]}, tc.args...)...)
		if code != 0 {
			t.Fatalf("show %v exited %d: %s", tc.args, code, errOut)
		}
		if out != want(tc.from, tc.to) {
			t.Errorf("show %v printed %d bytes, want lines %d-%d (%d bytes):\n%.300s", tc.args, len(out), tc.from, tc.to, len(want(tc.from, tc.to)), out)
		}
	}
	// --lines also narrows the chunks.
	out, _, code := h.runCLI(t, "show", demoID[:8], "--lines", "60-89")
	if code != 0 || !strings.Contains(out, "── chunk") || strings.Contains(out, "turn 0 (") {
		t.Errorf("show --lines 60-89 (exit %d):\n%s", code, out)
	}
	for _, bad := range [][]string{{"--raw", "--lines", "5-3"}, {"--raw", "--lines", "x"}, {"--raw", "--turn", "0"}, {"--raw", "--lines", "9000-"}} {
		if _, _, code := h.runCLI(t, append([]string{"show", demoID[:8]}, bad...)...); code == 0 {
			t.Errorf("show %v succeeded", bad)
		}
	}
}
