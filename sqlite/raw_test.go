package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storetest"
)

// blobs returns a session's raw blocks as stored (compressed).
func blobs(t *testing.T, path, session string) [][]byte {
	t.Helper()
	rows, err := rawDB(t, path).Query(`SELECT data FROM raw_blocks WHERE session_id = ? ORDER BY first_line`, session)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestForgetErasesRawBlocks forgets a session among others and compacts,
// as 'carryover forget' does: its raw blocks are gone from the database
// and WAL files byte for byte (they are compressed, so the transcript's
// words are no proof either way), and the others' are still there.
func TestForgetErasesRawBlocks(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	for i := range 6 {
		b := storetest.Batch(fmt.Sprintf("keep%d", i), "/p", 0, 2)
		b.Raw, b.RawReplace = storetest.RawLines(fmt.Sprintf("kept%d", i), 1, 300, 0), true
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			f := storetest.Batch("gone", "/p", 0, 2)
			f.Raw, f.RawReplace = storetest.RawLines("gone", 1, 300, 0), true
			if err := st.Apply(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	gone, kept := blobs(t, path, "gone"), blobs(t, path, "keep4")
	if len(gone) < 2 || len(kept) < 2 {
		t.Fatalf("fixture: %d and %d blocks", len(gone), len(kept))
	}
	probe := func(b []byte) []byte { return b[len(b)/2-24 : len(b)/2+24] }
	if err := st.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(fileBytes(t, path), probe(gone[0])) {
		t.Fatal("the block is not in the file before the forget: the probe is broken")
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "gone", Forget: true}); err != nil {
		t.Fatal(err)
	}
	if err := st.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if ls, err := st.RawLines(ctx, "gone", 0, 0); err != nil || len(ls) != 0 {
		t.Fatalf("raw lines after the forget: %d, %v", len(ls), err)
	}
	files := fileBytes(t, path)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	files = append(files, fileBytes(t, path)...)
	for i, b := range gone {
		if bytes.Contains(files, probe(b)) {
			t.Errorf("block %d of the forgotten session is still in the files", i)
		}
	}
	for i, b := range kept {
		if !bytes.Contains(files, probe(b)) {
			t.Errorf("block %d of a kept session is gone", i)
		}
	}
}
