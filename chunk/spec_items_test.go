package chunk_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
)

// A spec a tool printed (a tracker's CLI, a document read) gives
// constraint items that name the spec and weigh less than the user's own;
// the same text written by an Edit gives none.
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
	var user carryover.Item
	for _, it := range itemsOf(r, carryover.KindConstraint) {
		if it.Detail == "" {
			user = it
			continue
		}
		got = append(got, it.Text)
		if it.Detail != "spec: PROJ-7 · Cache the index" {
			t.Errorf("detail %q, want the spec's title", it.Detail)
		}
		if it.Weight >= user.Weight {
			t.Errorf("weight %v: a spec's constraint must weigh less than the user's own (%v)", it.Weight, user.Weight)
		}
	}
	if user.Text != "Never block readers." {
		t.Errorf("the user's constraint = %q", user.Text)
	}
	if want := []string{"Constraints: No new dependency. · Keep reads lock-free."}; !slices.Equal(got, want) {
		t.Errorf("spec constraints %q, want %q", got, want)
	}
}
