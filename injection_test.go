package carryover_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
)

func TestClipInjectionText(t *testing.T) {
	short := "## carryover: restored\n- fix: `go test ./...`\n"
	if got := carryover.ClipInjectionText(short); got != short {
		t.Errorf("a short text changed: %q", got)
	}
	exact := strings.Repeat("x", carryover.InjectionTextCap)
	if got := carryover.ClipInjectionText(exact); got != exact {
		t.Error("a text of exactly the cap was cut")
	}
	lines := strings.Repeat("- a line of the restore block, with é and 漢字\n", 2000)
	noNewline := strings.Repeat("漢", 3*carryover.InjectionTextCap)
	for name, s := range map[string]string{"lines": lines, "one long line": noNewline} {
		got := carryover.ClipInjectionText(s)
		if len(got) > carryover.InjectionTextCap {
			t.Errorf("%s: %d bytes kept, cap %d", name, len(got), carryover.InjectionTextCap)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: cut inside a character", name)
		}
		body, note, ok := cutLast(got, "\n[… ")
		// Cut at a line end when there is one: the kept part is whole lines.
		if name == "lines" && !strings.HasSuffix(body, "漢字") {
			t.Errorf("%s: not cut at a line end: %q", name, body[len(body)-40:])
		}
		if !ok || !strings.HasPrefix(s, body) || note != strconv.Itoa(len(s)-len(body))+" more bytes not kept]" {
			t.Errorf("%s: note %q after %d bytes of %d", name, note, len(body), len(s))
		}
		if again := carryover.ClipInjectionText(got); again != got {
			t.Errorf("%s: clipping twice changed the text", name)
		}
	}
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
