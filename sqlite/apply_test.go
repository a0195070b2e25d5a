package sqlite_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storetest"
)

// TestApplyManyRowsAsOneByOne applies a batch of more chunks and items than
// one multi-row INSERT takes, with chunks repeating a hash (of the batch and
// of an earlier one) and items repeating a key at later, earlier and equal
// lines, and compares every row with the same rows applied one per batch:
// the merge rules must hold between the rows of one statement as between
// statements.
func TestApplyManyRowsAsOneByOne(t *testing.T) {
	ctx := context.Background()
	earlier := storetest.Batch("s", "/p", 1000, 2)
	big := storetest.Batch("s", "/p", 0, 450)
	big.Chunks[7].Hash = big.Chunks[3].Hash       // a repeat within the batch
	big.Chunks[300].Hash = earlier.Chunks[1].Hash // a repeat of an earlier batch
	big.Chunks[420].Hash = big.Chunks[3].Hash     // in another statement
	// Items of a repeated chunk point at the row stored first; applied one
	// by one they would find no chunk, so their chunk is checked on its own.
	dups := map[int]string{7: big.Chunks[3].Hash, 300: earlier.Chunks[1].Hash, 420: big.Chunks[3].Hash}
	kept := big.Items[:0]
	for _, it := range big.Items {
		if dups[it.ChunkSeq] != "" {
			it.Key = "dup " + it.Key
		}
		kept = append(kept, it)
	}
	big.Items = kept
	kinds := []carryover.ItemKind{carryover.KindError, carryover.KindDecision, carryover.KindValue}
	for i := range 500 {
		line := 10*((i*7919)%450) + 3 // later and earlier lines, some equal
		seq := (i * 31) % 460
		if dups[seq] != "" {
			seq++
		}
		big.Items = append(big.Items, carryover.Item{
			SessionID: "s", ChunkSeq: seq, Kind: kinds[i%3], Key: fmt.Sprintf("key %d", i%37),
			Text: fmt.Sprintf("occurrence %d", i), Detail: []string{"", fmt.Sprintf("detail %d", i)}[i%2],
			Turn: i / 9, Window: i / 90, Line: line, Time: base.Add(time.Duration(i) * time.Second),
			Weight: float64(i%10) / 10, Resolved: i%11 == 0, Count: i % 3,
		})
	}

	one, onePath := newStore(t)
	each, eachPath := newStore(t)
	for _, b := range []carryover.Batch{earlier, big} {
		if err := one.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := each.Apply(ctx, earlier); err != nil {
		t.Fatal(err)
	}
	for _, c := range big.Chunks {
		b := carryover.Batch{Session: big.Session, State: big.State, Chunks: []carryover.Chunk{c}}
		if err := each.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for _, it := range big.Items {
		b := carryover.Batch{Session: big.Session, State: big.State, Items: []carryover.Item{it}}
		if err := each.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range big.Compactions {
		b := carryover.Batch{Session: big.Session, State: big.State, Compactions: []carryover.Compaction{c}}
		if err := each.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}

	for _, q := range []string{
		`SELECT * FROM chunks ORDER BY id`,
		`SELECT * FROM chunk_vecs ORDER BY id`,
		`SELECT id, session_id, chunk_seq, kind, key, text, detail, turn, win, line, time_ms, weight, resolved, count
			FROM items ORDER BY id`,
		`SELECT id, chunk_id FROM items WHERE key NOT LIKE 'dup %' ORDER BY id`,
		`SELECT id, text, detail FROM items WHERE id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH 'occurrence') ORDER BY id`,
		`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'cache' ORDER BY rowid`,
	} {
		got, want := dump(t, onePath, q), dump(t, eachPath, q)
		if len(got) < 2 {
			t.Fatalf("%s: %d rows", q, len(got))
		}
		if !reflect.DeepEqual(got, want) {
			for i := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("%s: row %d of one batch %v, one by one %v", q, i, got[i], want[i])
				}
			}
			t.Fatalf("%s: %d rows in one batch, %d one by one", q, len(got), len(want))
		}
	}
	for seq, hash := range dups {
		var got, want int64
		db := rawDB(t, onePath)
		if err := db.QueryRow(`SELECT chunk_id FROM items WHERE chunk_seq = ? AND key LIKE 'dup %'`, seq).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT id FROM chunks WHERE hash = ?`, hash).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("item of repeated chunk %d points at %d, want the stored row %d", seq, got, want)
		}
	}
	for _, tab := range []string{"chunks_fts", "items_fts"} {
		if _, err := rawDB(t, onePath).Exec(`INSERT INTO ` + tab + `(` + tab + `) VALUES ('integrity-check')`); err != nil {
			t.Errorf("%s: %v", tab, err)
		}
	}
}

// dump returns every row of a query as strings.
func dump(t *testing.T, path, query string) [][]string {
	t.Helper()
	rows, err := rawDB(t, path).Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = fmt.Sprintf("%T:%v", v, v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestApplyNewSessionItemsAsOneByOne applies a new session's first batch,
// whose items repeat keys at later, earlier and equal lines (merged before
// the insert, see mergeNewItems), and compares the items and their
// full-text index with the same items applied one per batch, merged by
// the upsert.
func TestApplyNewSessionItemsAsOneByOne(t *testing.T) {
	ctx := context.Background()
	big := storetest.Batch("s", "/p", 0, 40)
	kinds := []carryover.ItemKind{carryover.KindError, carryover.KindDecision, carryover.KindValue}
	for i := range 300 {
		big.Items = append(big.Items, carryover.Item{
			SessionID: "s", ChunkSeq: (i * 31) % 45, Kind: kinds[i%3], Key: fmt.Sprintf("key %d", i%23),
			Text: fmt.Sprintf("occurrence %d", i), Detail: []string{"", fmt.Sprintf("detail %d", i)}[(i/3)%2],
			Turn: i / 9, Window: i / 90, Line: 10*((i*7919)%40) + 3, Time: base.Add(time.Duration(i) * time.Second),
			Weight: float64((i*7)%10) / 10, Resolved: i%11 == 0, Count: i % 3,
		})
	}
	one, onePath := newStore(t)
	each, eachPath := newStore(t)
	if err := one.Apply(ctx, big); err != nil {
		t.Fatal(err)
	}
	first := big
	first.Items = nil
	if err := each.Apply(ctx, first); err != nil {
		t.Fatal(err)
	}
	for _, it := range big.Items {
		b := carryover.Batch{Session: big.Session, State: big.State, Items: []carryover.Item{it}}
		if err := each.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`SELECT * FROM items ORDER BY id`,
		`SELECT id, text, detail FROM items WHERE id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH 'occurrence') ORDER BY id`,
		`SELECT id FROM items WHERE id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH 'detail') ORDER BY id`,
	} {
		got, want := dump(t, onePath, q), dump(t, eachPath, q)
		if len(got) < 2 {
			t.Fatalf("%s: %d rows", q, len(got))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\none batch  %v\none by one %v", q, got, want)
		}
	}
	if _, err := rawDB(t, onePath).Exec(`INSERT INTO items_fts (items_fts) VALUES ('integrity-check')`); err != nil {
		t.Errorf("items index: %v", err)
	}
}
