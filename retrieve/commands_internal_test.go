package retrieve

import (
	"slices"
	"strings"
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

func TestCommandKind(t *testing.T) {
	for cmd, want := range map[string]string{
		"go test ./retrieve/ -run TestRestore":      "test",
		"mix test test/spotter_web/live/x_test.exs": "test",
		"npx vitest run":                             "test",
		"CI=true go test ./...":                      "test",
		"go build -o bin/carryover ./cmd/carryover":  "build",
		"mix compile --warnings-as-errors":           "build",
		"make":                                       "build",
		"go vet ./...":                               "lint",
		"mix credo --strict":                         "lint",
		"git push --set-upstream origin spotter-gqc": "git",
		"./bin/carryover demo":                       "run",
		"curl -s http://127.0.0.1:4002/health":       "run",
		"ls -la":                                     "",
		// Quoted text is not the command's purpose.
		`bd close x.3 --reason "Implemented; tests passing"`: "",
		`echo "run the tests"`:                               "",
		`git commit -m "add tests"`:                          "git",
		`bash -c "go test ./..."`:                            "test",
		`sh -c 'npm run build'`:                              "build",
		`grep -n "func Test" x_test.go`:                      "",
		`pytest -k "not slow"`:                               "test",
		`go test -run 'TestA|TestB' ./retrieve/`:             "test",
	} {
		if got := commandKind(cmd); got != want {
			t.Errorf("commandKind(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestCommandLinesLastPerKind: the working set shows the last command that
// worked of each kind first, then the others, never a trivial one.
func TestCommandLinesLastPerKind(t *testing.T) {
	c := newComposer(newNovelty("", ""), "", &restoreMemo{})
	items := []carryover.Item{ // newest first
		{ID: 5, Kind: carryover.KindCommand, Text: "go test ./retrieve/ -run TestX 2>&1 | tail -5", Line: 50},
		{ID: 4, Kind: carryover.KindCommand, Text: "git commit -m 'wip'", Line: 40},
		{ID: 3, Kind: carryover.KindCommand, Text: "go test ./...", Line: 30},
		{ID: 2, Kind: carryover.KindCommand, Text: "ls -la", Line: 20},
		{ID: 1, Kind: carryover.KindCommand, Text: "go build ./...", Line: 10},
	}
	got := strings.Join(c.commandLines(items, 1000), "")
	want := "- test: `go test ./retrieve/ -run TestX` (L50)\n- build: `go build ./...` (L10)\n- git: `git commit -m 'wip'` (L40)\n" +
		"- ran: `go test ./...` (L30)\n"
	if got != want {
		t.Errorf("commandLines =\n%s\nwant\n%s", got, want)
	}
	if !slices.Equal(c.itemIDs, []int64{5, 1, 4, 3}) {
		t.Errorf("item ids %v", c.itemIDs)
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
