package bench

import (
	"strings"
	"testing"
)

// TestExpandFamilies: a restore that writes identifiers as shell families
// holds each member, and only its members.
func TestExpandFamilies(t *testing.T) {
	text := "- typed: lib/a/{x.ex,y.ex} metrics.{total,avg}_mi `m.{p,q}` plain {no_comma}\n"
	got := strings.Fields(expandFamilies(text))
	want := []string{"lib/a/x.ex", "lib/a/y.ex", "metrics.total_mi", "metrics.avg_mi", "m.p", "m.q"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("expandFamilies = %q, want %q", got, want)
	}
	c := neededCase{Needed: []string{"src/app/lib/a/y.ex", "lib/a/z.ex"}, Cwd: "/src/app"}
	full := text + "\n" + expandFamilies(text)
	if all, _ := c.score(full); all != 1 {
		t.Errorf("score = %d, want 1 (lib/a/y.ex through its family)", all)
	}
}
