package retrieve

import (
	"testing"

	"github.com/carryover-dev/carryover"
)

func TestShortCommand(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mix test 2>&1 | tail -5", "mix test"},
		{"go test ./... 2>&1 | head -40 | tail -3", "go test ./..."},
		{"grep -rn foo . | head", "grep -rn foo ."},
		{"cat log | grep err", "cat log | grep err"},    // a filter is part of it
		{"make 2>&1 | tail -n $N", "make | tail -n $N"}, // not a plain count
		{"a || tail -5", "a || tail -5"},                // not a pipe
		{"bd sync --from-main 2>&1 && bd ready 2>&1", "bd sync --from-main && bd ready"},
	}
	for _, tt := range tests {
		if got := shortCommand(tt.in); got != tt.want {
			t.Errorf("shortCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCommandsDedupeAcrossNumbers(t *testing.T) {
	r := ranker{window: 1, maxLine: 100}
	var secs [numSections][]*entry
	for i, c := range []string{"bd update task-6 --status in_progress 2>&1", "bd update task-5 --status in_progress", "bd sync --from-main"} {
		secs[secCommands] = append(secs[secCommands], r.itemEntry(secCommands, carryover.Item{Kind: carryover.KindCommand, Text: c, Line: 10 + i}, 1))
	}
	dedupe(&secs)
	var got []string
	for _, e := range secs[secCommands] {
		got = append(got, e.text)
	}
	if len(got) != 2 || got[0] != "bd update task-6 --status in_progress" || got[1] != "bd sync --from-main" {
		t.Errorf("kept %q, want the first bd update (shortened) and bd sync", got)
	}
}

func TestTrivialGitAdd(t *testing.T) {
	for cmd, want := range map[string]bool{
		"git add lib/a.ex lib/b.ex":        true,
		"git status":                       true,
		"git push --set-upstream origin x": false,
		"git commit -m 'feat: x'":          false,
	} {
		if got := trivialCommand(cmd); got != want {
			t.Errorf("trivialCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}
