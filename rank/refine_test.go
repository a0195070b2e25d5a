package rank_test

import (
	"slices"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/rank"
)

func TestQueryIntent(t *testing.T) {
	for q, want := range map[string]rank.Intent{
		"how do I run the migrations":                      rank.IntentHowTo,
		"Which command deployed staging?":                  rank.IntentHowTo,
		"how to regenerate the protobuf stubs":             rank.IntentHowTo,
		"why does the staging deploy fail":                 rank.IntentError,
		"error: KUBECONFIG not set":                        rank.IntentError,
		"TypeError: Cannot read properties of undefined":   rank.IntentError,
		"the migration failed":                             rank.IntentError,
		"which command fixed the failing test":             rank.IntentAny, // both
		"how many tests does the renderer have":            rank.IntentAny,
		"what port does the endpoint use":                  rank.IntentAny,
		"How is secret_key_base constructed in config.exs": rank.IntentAny,
	} {
		if got := rank.QueryIntent(q); got != want {
			t.Errorf("QueryIntent(%q) = %v, want %v", q, got, want)
		}
	}
}

func hit(id int64, text string) carryover.Hit {
	return carryover.Hit{Chunk: carryover.Chunk{ID: id, SessionID: "s", Seq: int(id), Turn: int(id), FirstLine: int(id) * 10, LastLine: int(id)*10 + 5, Text: text}}
}

func hitIDs(hits []carryover.Hit) []int64 {
	var out []int64
	for _, h := range hits {
		out = append(out, h.Chunk.ID)
	}
	return out
}

func TestDropNoise(t *testing.T) {
	hits := []carryover.Hit{
		hit(1, "User: [Request interrupted by user for tool use]"),
		hit(2, "Assistant: The deploy needs KUBECONFIG.\n$ make deploy-staging\n→ ok"),
		hit(3, "Assistant: Done."),
	}
	kept, noise := rank.DropNoise(hits)
	if got := hitIDs(kept); !slices.Equal(got, []int64{2}) {
		t.Errorf("kept %v, want [2]", got)
	}
	if got := hitIDs(noise); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("noise %v, want [1 3]", got)
	}
}

func TestByOutcome(t *testing.T) {
	failed := "$ make deploy-staging 2>&1\n→ exit 2\nerror: KUBECONFIG not set"
	worked := "$ KUBECONFIG=~/.kube/staging make deploy-staging\n→ ok\ndeployed"
	other := "$ make deploy-prod\n→ exit 1\nerror: no credentials"
	hits := []carryover.Hit{hit(1, "Assistant: notes about staging"), hit(2, failed), hit(3, other), hit(4, failed), hit(5, worked)}
	for _, tc := range []struct {
		name string
		in   rank.Intent
		hits []carryover.Hit
		want []int64
	}{
		// The run that worked takes the place of the first failure of the
		// same command; other failures keep theirs.
		{"how-to", rank.IntentHowTo, hits, []int64{1, 5, 2, 3, 4}},
		{"any", rank.IntentAny, hits, []int64{1, 2, 3, 4, 5}},
		// For an error query the failures come first.
		{"error", rank.IntentError, []carryover.Hit{hit(5, worked), hit(1, "x"), hit(2, failed)}, []int64{2, 5, 1}},
		// A chunk that saw the command fail and then work is no failure.
		{"retried in one chunk", rank.IntentHowTo, []carryover.Hit{hit(2, failed+"\n"+worked), hit(5, worked)}, []int64{2, 5}},
		// Without a run that worked, the failures stay where they are.
		{"no success", rank.IntentHowTo, []carryover.Hit{hit(2, failed), hit(3, other)}, []int64{2, 3}},
		// Each waits for the other: the order still ends.
		{"cycle", rank.IntentHowTo, []carryover.Hit{hit(6, failed+"\n$ make deploy-prod\n→ ok"), hit(7, other+"\n"+worked)}, []int64{7, 6}},
	} {
		if got := hitIDs(rank.ByOutcome(slices.Clone(tc.hits), tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: order %v, want %v", tc.name, got, tc.want)
		}
	}
}

// piece is a chunk of a split part: turn 3 of session s, lines 100-101.
func piece(id int64, seq int, text string) carryover.Hit {
	return carryover.Hit{Chunk: carryover.Chunk{ID: id, SessionID: "s", Seq: seq, Turn: 3, FirstLine: 90, LastLine: 101, Text: text}}
}

func TestCapDocuments(t *testing.T) {
	first := piece(1, 10, "Assistant: Running the suite.\n$ go test -v ./ws/...\n→ ok\n=== RUN TestReconnect")
	first.Chunk.FirstLine = 95 // the first piece also holds the part before it
	hits := []carryover.Hit{
		piece(3, 12, "(cont.) $ go test -v ./ws/...\n--- PASS: TestReconnect"),
		first,
		hit(50, "Assistant: reconnect backoff is 2s"),
		piece(2, 11, "(cont.) $ go test -v ./ws/...\n=== RUN TestReconnect/flaky"),
		piece(4, 13, "(cont.) $ go test -v ./ws/...\n--- PASS: TestReconnect/flaky"),
		// The same command run again later: another document.
		{Chunk: carryover.Chunk{ID: 5, SessionID: "s", Seq: 40, Turn: 3, FirstLine: 300, LastLine: 301, Text: "(cont.) $ go test -v ./ws/...\n--- FAIL: TestReconnect"}},
		// Another session's continuation of the same head.
		{Chunk: carryover.Chunk{ID: 6, SessionID: "t", Seq: 12, Turn: 3, FirstLine: 90, LastLine: 101, Text: "(cont.) $ go test -v ./ws/...\n--- PASS"}},
	}
	kept, extra := rank.CapDocuments(hits, 2)
	if got := hitIDs(kept); !slices.Equal(got, []int64{3, 1, 50, 5, 6}) {
		t.Errorf("kept %v, want [3 1 50 5 6]", got)
	}
	if got := hitIDs(extra); !slices.Equal(got, []int64{2, 4}) {
		t.Errorf("extra %v, want [2 4]", got)
	}

	// Neighbouring chunks of one turn with no continuation among them
	// (LoCoMo's dialogue turns, steps of one session) are documents of
	// their own.
	var turn []carryover.Hit
	for i := range 8 {
		turn = append(turn, carryover.Hit{Chunk: carryover.Chunk{ID: int64(i + 1), SessionID: "s", Seq: i, Turn: 1, FirstLine: i + 1, LastLine: i + 1, Text: "Caroline: more about the reconnect"}})
	}
	if kept, _ := rank.CapDocuments(turn, 2); len(kept) != 8 {
		t.Errorf("adjacent chunks of one turn: kept %d of 8", len(kept))
	}
}

func TestDocCap(t *testing.T) {
	for limit, want := range map[int]int{1: 2, 3: 2, 5: 2, 8: 2, 12: 3, 20: 5} {
		if got := rank.DocCap(limit); got != want {
			t.Errorf("DocCap(%d) = %d, want %d", limit, got, want)
		}
	}
}
