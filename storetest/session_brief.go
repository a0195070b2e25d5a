package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
)

// testSessionWithoutCounts: the hooks' session lookup gives Session's
// fields but the counts, finds a session whose id is a prefix of
// another's, and reports an unknown one as ErrNotFound.
func testSessionWithoutCounts(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	for _, b := range []carryover.Batch{Batch("s1", "/p", 0, 3), Batch("s10", "/p", 0, 2)} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	full, err := st.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if full.Chunks == 0 {
		t.Fatal("Session counted no chunks: the comparison below would prove nothing")
	}
	brief, err := carryover.SessionWithoutCounts(ctx, st, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := full
	want.Chunks, want.Shared, want.Subagents = 0, 0, 0
	if !brief.Started.Equal(want.Started) || !brief.Updated.Equal(want.Updated) {
		t.Fatalf("times: %v %v, want %v %v", brief.Started, brief.Updated, want.Started, want.Updated)
	}
	// Times compared above: a store may give them in another location.
	brief.Started, brief.Updated, want.Started, want.Updated = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if brief != want {
		t.Fatalf("SessionWithoutCounts = %+v, want %+v", brief, want)
	}
	for _, id := range []string{"s", "s2", "s100"} {
		if _, err := carryover.SessionWithoutCounts(ctx, st, id); !errors.Is(err, carryover.ErrNotFound) {
			t.Errorf("SessionWithoutCounts(%q): %v, want ErrNotFound", id, err)
		}
	}
}
