package chunk_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
)

// A spec a tool printed (a tracker's CLI, a document read) gives spec
// items that name the spec and weigh less than the user's constraints,
// which stay constraint items of their own; the same text written by an
// Edit gives none.
func TestSpecConstraintItems(t *testing.T) {
	const out = "PROJ-7 · Cache the index\n\nConstraints:\n- No new dependency.\n- Keep reads lock-free.\n"
	edit, err := json.Marshal(map[string]string{"file_path": "/p/SPEC.md", "old_string": "x", "new_string": out})
	if err != nil {
		t.Fatal(err)
	}
	r := chunk.Build("s", "/p", lines(t,
		"user:Cache the index. Never block readers.",
		`tool:m1:t1:Bash:{"command":"tracker show PROJ-7"}`,
		"ok:t1:"+out,
		"tool:m2:t2:Edit:"+string(edit),
		"ok:t2:The file /p/SPEC.md has been updated.",
	), chunk.NewCursor(), chunk.Options{})
	var got []string
	users := itemsOf(r, carryover.KindConstraint)
	if len(users) != 1 || users[0].Text != "Never block readers." {
		t.Fatalf("the user's constraints = %+v, want theirs alone", users)
	}
	user := users[0]
	for _, it := range itemsOf(r, carryover.KindSpec) {
		got = append(got, it.Text)
		if it.Detail != "PROJ-7 · Cache the index" {
			t.Errorf("detail %q, want the spec's title", it.Detail)
		}
		if it.Weight >= user.Weight {
			t.Errorf("weight %v: a spec's constraint must weigh less than the user's own (%v)", it.Weight, user.Weight)
		}
	}
	if want := []string{"Constraints: No new dependency. · Keep reads lock-free."}; !slices.Equal(got, want) {
		t.Errorf("spec constraints %q, want %q", got, want)
	}
}

// The files a spec names are its task's working set: they join the
// inputs item of the call that printed the spec, on a tier of their own
// (its third line), paths and file names only, not prose with slashes,
// dotted calls, tracker ids ("PROJ-alpha.3") or URLs; a path the call
// typed keeps its own tier. Output with no spec heading names no such
// files.
func TestSpecPathsJoinInputs(t *testing.T) {
	const spec = "PROJ-9 · Review page\n\nOutput files:\n- `lib/web/review_live.ex` (new)\n- `test/web/review_live_test.exs` (new)\n" +
		"- waiting_summary.ex\n\nSpecs:\n- Call Repo.all/1 on stdout/stderr and return 400/404/422, see https://example.com/docs/x.html\n" +
		"- Route `/projects/:id/review`; cache under deps/otel_api; follows PROJ-alpha.3\n\nEdge cases:\n- Empty list renders the empty state.\n"
	r := chunk.Build("s", "/p", lines(t,
		"user:Build the review page.",
		`tool:m1:t1:Bash:{"command":"tracker show PROJ-9 lib/web/review_live.ex"}`,
		"ok:t1:"+spec,
		`tool:m2:t2:Bash:{"command":"tracker list --status open"}`,
		"ok:t2:PROJ-10 Output files:\n- `lib/other/thing.ex`\n",
	), chunk.NewCursor(), chunk.Options{})
	var tiers [][]string
	for _, it := range itemsOf(r, carryover.KindInputs) {
		for _, l := range strings.Split(it.Text, "\n") {
			tiers = append(tiers, strings.Fields(l))
		}
	}
	if len(tiers) != 3 {
		t.Fatalf("inputs tiers %q, want the call's arguments, no text, and the spec's files", tiers)
	}
	if !slices.Contains(tiers[0], "lib/web/review_live.ex") {
		t.Errorf("arguments %q: the typed path keeps its tier", tiers[0])
	}
	// The first named last: a line's later identifiers count as the newer.
	want := []string{"deps/otel_api", "/projects/:id/review", "waiting_summary.ex", "test/web/review_live_test.exs"}
	if !slices.Equal(tiers[2], want) {
		t.Errorf("the spec's files %q, want %q", tiers[2], want)
	}
}
