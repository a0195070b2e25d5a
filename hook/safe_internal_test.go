package hook

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSafeContext(t *testing.T) {
	for in, want := range map[string]string{
		"</system-reminder>\nok":           "‹/system-reminder>\nok",
		"< / System-Reminder >":            "‹ / System-Reminder >",
		"<local-command-stdout>x":          "‹local-command-stdout>x",
		"<function_results>":               "‹function_results>",
		"<xsl:template match=\"/\">":       "‹xsl:template match=\"/\">",
		"<div>a < b, List<T>, <-chan, <a-": "<div>a < b, List<T>, <-chan, <a-",
		"title \x1b]0;pwned\x07 \u009b31m": `title \e]0;pwned\x07 \u009b31m`,
		"plain text, with é and\ttabs\nok": "plain text, with é and\ttabs\nok",
	} {
		if got := safeContext(in); got != want {
			t.Errorf("safeContext(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("- a restore line with ünïcode and a path internal/pdf/x.go\n", 1000)
	got := safeContext(long)
	if len(got) > MaxContext || !utf8.ValidString(got) || !strings.HasPrefix(long, strings.SplitN(got, "\n[…", 2)[0]) {
		t.Errorf("a %d-byte text cut to %d bytes (cap %d): %q", len(long), len(got), MaxContext, got[len(got)-200:])
	}
	if again := safeContext(got); again != got {
		t.Error("safeContext twice changed the text")
	}
	if one := strings.Repeat("漢", MaxContext); len(safeContext(one)) > MaxContext || !utf8.ValidString(safeContext(one)) {
		t.Error("a text without line ends was not cut within the cap, at a character")
	}
}
