package main

import (
	"strings"
	"testing"
)

// TestNoteBlankRefused: a note or state of nothing but white space and
// control or format characters, given as words or on stdin, is refused as
// an empty one is, before the store is opened.
func TestNoteBlankRefused(t *testing.T) {
	h := newHookEnv(t)
	for _, c := range []struct{ stdin, text string }{
		{"", "\x07\x1b"},
		{"", "\u200b \t"},
		{"\x00\x1b\r\n\u2060\n", "-"},
	} {
		for _, cmd := range []string{"note", "state"} {
			_, errOut, code := runCLI(t, h.env, c.stdin, cmd, "--session", demoID, c.text)
			if code != 2 || !strings.Contains(errOut, "only control characters") {
				t.Errorf("%s %q (stdin %q): exit %d\n%s", cmd, c.text, c.stdin, code, errOut)
			}
		}
	}
}
