package carryover_test

import (
	"testing"

	"github.com/carryover-dev/carryover"
)

func TestBlank(t *testing.T) {
	for text, want := range map[string]bool{
		"":                         true,
		" \t\r\n":                  true,
		"\x00\x07\x1b\x7f":         true,
		"\u200b\u200d\ufeff\u0085": true, // zero-width space and joiner, BOM, NEL
		"\u00a0\u3000":             true, // no-break and ideographic spaces
		"x":                        false,
		"\x1b[2J":                  false,
		" \x07 é ":                 false,
		"\u200b1":                  false,
		"\xff":                     false, // invalid UTF-8 is something to read, if garbled
	} {
		if got := carryover.Blank(text); got != want {
			t.Errorf("Blank(%q) = %v, want %v", text, got, want)
		}
	}
}
