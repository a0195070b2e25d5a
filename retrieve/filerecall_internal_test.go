package retrieve

import "testing"

func TestShownIdent(t *testing.T) {
	shown := "defp reload_transcript(socket) do\n  see config/limits.toml\n"
	for id, want := range map[string]bool{
		"reload_transcript":     true,
		"reload_transcript/1":   true,  // an arity points into the name
		"config/limits.toml:12": true,  // a line points into the file
		"load_transcript_v2":    false, // not on screen
		"transcript/12":         true,  // "transcript" is
		"limits_v2.toml":        false,
	} {
		if got := shownIdent(shown, id); got != want {
			t.Errorf("shownIdent(%q) = %v, want %v", id, got, want)
		}
	}
	if shownIdent("", "reload_transcript") {
		t.Error("nothing shown, yet shown")
	}
	// A suffix alone leaves too little to compare.
	if shownIdent("abc", "abc/1") {
		t.Error("a three-letter name matched")
	}
}
