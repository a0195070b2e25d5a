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

// TestHeldDeclaredRoot: a path shown relative to the root the restore's
// header names is held; relative to another directory it is not.
func TestHeldDeclaredRoot(t *testing.T) {
	const restore = "## carryover: restored after compaction (session ab12, window 1)\n" +
		"Details the summary does not state; paths relative to /src/app; more: `carryover search \"<words>\"`\n" +
		"### Working set\n- typed: lib/a.ex assets/js/app.js\n"
	for _, tt := range []struct {
		id, cwd string
		want    bool
	}{
		{"src/app/lib/a.ex", "/src/app/assets", true}, // the header's root, not cwd
		{"src/app/assets/js/app.js", "/src/app/assets", true},
		{"src/other/lib/a.ex", "/src/other", false},
		{"lib/a.ex", "/elsewhere", true}, // verbatim
	} {
		if got := held(restore, tt.id, tt.cwd); got != tt.want {
			t.Errorf("held(%q, cwd %q) = %v, want %v", tt.id, tt.cwd, got, tt.want)
		}
	}
	if got := declaredRoot("no header\n### Now\n- paths relative to /x; more: y\n"); got != "" {
		t.Errorf("declaredRoot read %q from the body", got)
	}
	if !held("- typed: app/lib/a.ex", "src/app/lib/a.ex", "/src") {
		t.Error("without a header, paths relative to cwd are not held")
	}
}
