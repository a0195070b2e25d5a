package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storetest"
)

// TestWriteGate: this process's writers wait their turn at the gate, up
// to the busy timeout, and then fail as SQLite's busy does; a cancelled
// context ends the wait; once the gate is free the write goes through.
func TestWriteGate(t *testing.T) {
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "carryover.db"), Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	leave, err := st.enterWrite(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	err = st.Apply(context.Background(), storetest.Batch("s", "/p", 0, 2))
	if !IsBusy(err) {
		t.Errorf("apply while another writer holds the gate: %v, want a busy error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := st.AddNote(ctx, carryover.Note{SessionID: "s", Project: "/p", Text: "a note"}); !errors.Is(err, context.Canceled) {
		t.Errorf("note with a cancelled context: %v, want context.Canceled", err)
	}
	leave()
	if err := st.Apply(context.Background(), storetest.Batch("s", "/p", 0, 2)); err != nil {
		t.Errorf("apply once the gate is free: %v", err)
	}
}
