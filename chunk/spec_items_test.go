package chunk_test

import (
	"encoding/json"
	"slices"
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
