package storetest

import (
	"context"
	"errors"
	"reflect"
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
	// The ingest state and the session at once (an archive): what the two
	// reads alone give; no state, no session.
	for _, id := range []string{"s1", "s10", "s", "s2", ""} {
		state, sess, found, err := carryover.ReadIngestStateAndSession(ctx, st, id)
		wantState, wantErr := st.IngestState(ctx, id)
		if (err == nil) != (wantErr == nil) || wantErr != nil && !errors.Is(err, carryover.ErrNotFound) ||
			!reflect.DeepEqual(state, wantState) {
			t.Errorf("ReadIngestStateAndSession(%q): state %+v, %v; want %+v, %v", id, state, err, wantState, wantErr)
			continue
		}
		wantSess, serr := carryover.SessionWithoutCounts(ctx, st, id)
		if wantErr != nil {
			wantSess, serr = carryover.Session{}, carryover.ErrNotFound
		}
		sess.Started, sess.Updated, wantSess.Started, wantSess.Updated = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if found != (serr == nil) || sess != wantSess {
			t.Errorf("ReadIngestStateAndSession(%q): session %+v (%v), want %+v (%v)", id, sess, found, wantSess, serr)
		}
		if id == "s1" && (!found || state.Offset == 0) {
			t.Errorf("ReadIngestStateAndSession(s1) found no session or state: %v, %+v", found, state)
		}
	}
}
