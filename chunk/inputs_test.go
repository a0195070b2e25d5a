package chunk

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestInputTiers(t *testing.T) {
	calls := []string{
		`{"file_path":"/src/app/internal/config/loader.go","content":"package config\nconst DEFAULT_BUDGET_CHARS = 4000\n"}`,
		`{"file_path":"/src/app/cmd/main.go","edits":[{"old_string":"oldHelper_v1()","new_string":"newHelper_v2()"}]}`,
		`{"todos":[{"content":"wire budgetFlagParser_2 into main","status":"pending"}]}`,
		`{"command":"go test ./retrieve/ -run TestRestore_v2","description":"run the restore tests"}`,
		// The same identifier typed as an argument and as text counts as an argument.
		`{"file_path":"/src/app/pkg/a_b_c.go","old_string":"x","new_string":"see /src/app/pkg/a_b_c.go"}`,
	}
	var p part
	for _, c := range calls {
		p.inputs = append(p.inputs, inputIdents(json.RawMessage(c))...)
	}
	want := map[string]int{
		"/src/app/internal/config/loader.go": tierArgument,
		"DEFAULT_BUDGET_CHARS":               tierText,
		"/src/app/cmd/main.go":               tierArgument,
		"oldHelper_v1":                       tierText,
		"newHelper_v2":                       tierText,
		"budgetFlagParser_2":                 tierArgument, // a todo's content is the model's own words
		"TestRestore_v2":                     tierArgument,
		"/src/app/pkg/a_b_c.go":              tierArgument,
	}
	got := map[string]int{}
	for _, id := range p.inputs {
		if prev, ok := got[id.id]; ok && prev != id.tier {
			t.Errorf("%s listed twice for one call", id.id)
		}
		got[id.id] = id.tier
	}
	for id, tier := range want {
		if g, ok := got[id]; !ok || g != tier {
			t.Errorf("%s: tier %d (found %v), want %d", id, g, ok, tier)
		}
	}
	text := chunkInputs([]*part{&p})
	args, rest, ok := strings.Cut(text, "\n")
	if !ok {
		t.Fatalf("inputs item %q has no line of text identifiers", text)
	}
	for id, tier := range want {
		line := args
		if tier == tierText {
			line = rest
		}
		if !containsField(line, id) {
			t.Errorf("%s not on line %d of %q", id, tier, text)
		}
	}

	// Only arguments: one line, as an archive from before the tiers has.
	q := part{inputs: inputIdents(json.RawMessage(`{"file_path":"/src/app/only/args.go"}`))}
	if text := chunkInputs([]*part{&q}); text != "/src/app/only/args.go" {
		t.Errorf("arguments only: %q", text)
	}
	// Only text: the first line is empty.
	r := part{inputs: inputIdents(json.RawMessage(`{"content":"const MAX_ROWS_2 = 1"}`))}
	if text := chunkInputs([]*part{&r}); text != "\nMAX_ROWS_2" {
		t.Errorf("text only: %q", text)
	}
}

func containsField(line, id string) bool {
	for _, f := range strings.Fields(line) {
		if f == id {
			return true
		}
	}
	return false
}

// TestInputsCapKeepsTyped: when a chunk's identifiers overflow
// maxInputsText, the paths a spec named go before anything the model
// typed, whatever their order.
func TestInputsCapKeepsTyped(t *testing.T) {
	var typed, spec part
	for i := range 60 {
		typed.inputs = append(typed.inputs, tieredIdent{id: "typed_ident_" + strings.Repeat("x", 5) + string(rune('a'+i%26)) + string(rune('a'+i/26)), tier: tierArgument + i%2})
	}
	for i := range 60 {
		spec.inputs = append(spec.inputs, tieredIdent{id: "spec/named/path_" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".go", tier: tierSpec})
	}
	text := chunkInputs([]*part{&typed, &spec}) // the spec printed last
	if len(text) > maxInputsText {
		t.Fatalf("inputs of %d bytes, over %d", len(text), maxInputsText)
	}
	for _, id := range typed.inputs {
		if !strings.Contains(text, id.id) {
			t.Errorf("typed %s cut while spec paths stay", id.id)
		}
	}
	lines := strings.Split(text, "\n")
	if len(lines) != 3 || lines[2] == "" {
		t.Fatalf("lines %q: want the spec's paths that fit on the third", lines)
	}
}
