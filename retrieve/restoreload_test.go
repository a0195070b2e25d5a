package retrieve_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
)

// itemsOnly is a store without the optional ItemGrouper: the restore reads
// its groups one query each.
type itemsOnly struct{ carryover.Store }

// TestRestoreGroupedRead: a restore that reads its items in one query
// (carryover.ItemGrouper) is the restore that reads them a group at a
// time, on a session whose kinds fill their limits and on the real ones.
func TestRestoreGroupedRead(t *testing.T) {
	st := openStore(t)
	if _, ok := st.(carryover.ItemGrouper); !ok {
		t.Fatal("the SQLite store reads no item groups")
	}
	ctx := context.Background()
	const id = "be4c0000-0000-4000-8000-000000000002"
	s := session(id, "/src/big", 3)
	var items []carryover.Item
	for seq := range 1500 {
		k := carryover.ItemKinds[seq%len(carryover.ItemKinds)]
		if seq%7 == 0 {
			k = carryover.KindInputs
		}
		items = append(items, carryover.Item{
			ChunkSeq: seq, Kind: k, Turn: seq / 100, Window: seq / 500, Line: seq*3 + 2, Weight: 0.8,
			Text:   fmt.Sprintf("%s item %d: /src/big/internal/pkg%d/file%d.go go test ./pkg%d/ -run Test%d", k, seq, seq%40, seq, seq%40, seq),
			Detail: fmt.Sprintf("because of case %d", seq), Resolved: seq%2 == 0,
		})
	}
	apply(t, st, s, nil, items)
	reqs := []retrieve.RestoreRequest{
		{SessionID: id, Project: s.Project, Window: 3, Summary: "summary mentions /src/big/internal/pkg1/file1.go"},
		{SessionID: id, Project: s.Project, Window: 1, Budget: 8000},
	}
	// The real sessions, when the shared data is beside the repository.
	if testing.Short() {
		t.Log("short: the real sessions are not restored")
	} else if files, _ := filepath.Glob(filepath.Join(sharedDir(t), "data", "transcripts", "spotter", "*.jsonl")); len(files) > 0 {
		for _, f := range files {
			rep, err := (&ingest.Archiver{Store: st}).File(ctx, f, ingest.Options{})
			if err != nil {
				t.Fatalf("ingest %s: %v", f, err)
			}
			reqs = append(reqs, retrieve.RestoreRequest{SessionID: rep.SessionID, Project: rep.Project, Window: 1})
		}
	}
	for _, req := range reqs {
		got, err := retrieve.Restore(ctx, st, req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := retrieve.Restore(ctx, itemsOnly{st}, req)
		if err != nil {
			t.Fatal(err)
		}
		if want.Text == "" || len(want.ItemIDs) == 0 {
			t.Fatalf("session %s window %d: nothing restored", req.SessionID, req.Window)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("session %s window %d: the grouped read restores\n%s\nwant\n%s", req.SessionID, req.Window, got.Text, want.Text)
		}
	}
}
