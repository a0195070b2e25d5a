package bench

import (
	"slices"
	"testing"

	"github.com/carryover-dev/carryover/ident"
)

func jitCall(name, input string) jitTool {
	return jitTool{name: name, idents: ident.All(input)}
}

// TestJITScore: an injection is useful for what the next calls typed
// that the call's own input lacked, echo for the call's own, false for
// neither; a useful one is marked when the call's result showed it all.
func TestJITScore(t *testing.T) {
	call := jitCall("Read", "/src/app/internal/cart_store.go")
	next := []jitTool{jitCall("Edit", "/src/app/internal/cart_store.go idempotency_keys"), jitCall("Bash", "go test ./internal/...")}
	for _, tc := range []struct {
		name, text, result string
		want               string
		matched            []string
		inResult           bool
	}{
		{"silent", "", "", "silent", nil, false},
		{"useful", "changed internal/cart_store.go: + idempotency_keys", "package app", "useful", []string{"idempotency_keys"}, false},
		{"useful, shown by the result", "changed: + idempotency_keys", "CREATE TABLE idempotency_keys", "useful", []string{"idempotency_keys"}, true},
		{"echo", "you changed /src/app/internal/cart_store.go", "", "echo", nil, false},
		{"false", "changed: + order_archive_v2", "", "false", nil, false},
	} {
		got := jitScore(tc.text, call, next, "/src/app", tc.result)
		if got.outcome != tc.want || !slices.Equal(got.matched, tc.matched) || got.inResult != tc.inResult {
			t.Errorf("%s: %+v, want %s %v in result %v", tc.name, got, tc.want, tc.matched, tc.inResult)
		}
	}
}

// TestJITCounts: InResult counts only useful injections.
func TestJITCounts(t *testing.T) {
	var c JITCounts
	c.add("useful", true)
	c.add("useful", false)
	c.add("false", true)
	c.add("silent", false)
	if c != (JITCounts{Calls: 4, Fired: 3, Useful: 2, False: 1, Silent: 1, InResult: 1}) {
		t.Errorf("%+v", c)
	}
}
