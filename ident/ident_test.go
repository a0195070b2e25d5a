package ident_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/carryover-dev/carryover/ident"
)

func TestAllAndSpecific(t *testing.T) {
	text := "Edit /home/u/proj/lib/foo_bar.ex: port: 4002 in config/test.exs; SpotterWeb.Endpoint and " +
		"annotations_session_id_state_index, commit bb53fb4; Because Something happened, plain words only, 123456"
	got := ident.All(text)
	for _, want := range []string{"home/u/proj/lib/foo_bar.ex", "config/test.exs", "SpotterWeb.Endpoint",
		"annotations_session_id_state_index", "bb53fb4", "123456"} {
		if !slices.Contains(got, want) {
			t.Errorf("All lacks %q: %q", want, got)
		}
	}
	for _, not := range []string{"Because", "Something", "happened", "plain", "words"} {
		if slices.Contains(got, not) {
			t.Errorf("All kept the word %q", not)
		}
	}
	specific := map[string]bool{"home/u/proj/lib/foo_bar.ex": true, "config/test.exs": true, "bb53fb4": true,
		"annotations_session_id_state_index": true, "SpotterWeb.Endpoint": true, "123456": true}
	for _, id := range got {
		if ident.Specific(id) != specific[id] {
			t.Errorf("Specific(%q) = %v", id, !specific[id])
		}
	}
	if r := ident.Rooted(text); !slices.Contains(r, "/home/u/proj/lib/foo_bar.ex") {
		t.Errorf("Rooted lost the root: %q", r)
	}
	for _, b := range []string{"dev/null", "REDACTED:password", "noreply@anthropic.com"} {
		if ident.Specific(b) {
			t.Errorf("boilerplate %q is specific", b)
		}
	}
}

func TestInputStrings(t *testing.T) {
	in := json.RawMessage(`{"file_path":"/a/b.go","edits":[{"old_string":"x1","new_string":"y2"}],"n":3}`)
	got := ident.InputStrings(in)
	want := []string{"y2", "x1", "/a/b.go"} // keys in order: edits (new_string, old_string), file_path, n
	if !slices.Equal(got, want) {
		t.Errorf("InputStrings = %q, want %q", got, want)
	}
	if ident.InputStrings(json.RawMessage(`not json`)) != nil {
		t.Error("bad input gave strings")
	}
}

func TestInputValues(t *testing.T) {
	in := json.RawMessage(`{"content":"c","edits":[{"new_string":"y2"}],"todos":[{"content":"t"}]}`)
	want := []ident.InputValue{{Key: "content", Top: true, Text: "c"}, {Key: "new_string", Text: "y2"}, {Key: "content", Text: "t"}}
	if got := ident.InputValues(in); !slices.Equal(got, want) {
		t.Errorf("InputValues = %+v, want %+v", got, want)
	}
}
