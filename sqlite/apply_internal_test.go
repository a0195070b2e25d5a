package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/carryover-dev/carryover/storetest"
)

// tempStore reads temp_store on the pool's connection (the tests give the
// pool one).
func tempStore(t *testing.T, st *Store) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var v int
	if err := st.db.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&v); err != nil {
		t.Fatalf("PRAGMA temp_store on the pool's connection: %v", err)
	}
	return v
}

// TestApplyConnectionBackAsItWas: whatever ends Apply's transaction (a
// commit, a failure, a panic inside it, such as a fault on the store's
// memory map, or its context cancelled half-way) the connection it set
// temp_store on goes back to the pool as it was, with no transaction
// open, and the deferred calls do not wait forever on it.
func TestApplyConnectionBackAsItWas(t *testing.T) {
	for _, tc := range []struct {
		name     string
		embedded func(cancel func()) ([][]byte, error)
	}{
		{"panic", func(func()) ([][]byte, error) { panic("fault inside the transaction") }},
		{"cancelled", func(cancel func()) ([][]byte, error) { cancel(); return nil, context.Canceled }},
		{"committed", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Open(context.Background(), filepath.Join(t.TempDir(), "carryover.db"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			st.db.SetMaxOpenConns(1)
			want := tempStore(t, st)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b := storetest.Batch("s", "/p", 0, 3)
			embedded := func() ([][]byte, error) { return st.embedChunks(b.Chunks), nil }
			if tc.embedded != nil {
				embedded = func() ([][]byte, error) { return tc.embedded(cancel) }
			}
			done := make(chan any, 1)
			go func() {
				defer func() { done <- recover() }()
				_ = st.apply(ctx, b, embedded, st.prepareRaw(ctx, b))
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("apply did not return: its connection waits on a transaction left open")
			}
			if got := tempStore(t, st); got != want {
				t.Errorf("temp_store %d on the pooled connection after apply, want %d as before", got, want)
			}
			// No transaction left open on it, nor the write lock held.
			if err := st.Apply(context.Background(), storetest.Batch("s2", "/p", 0, 2)); err != nil {
				t.Errorf("apply after: %v", err)
			}
		})
	}
}
