package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storetest"
)

// markedBatch is batch with a marker word in every text the store keeps.
func markedBatch(session, project, marker string, n int) carryover.Batch {
	b := storetest.Batch(session, project, 0, n)
	b.Session.Title = "title " + marker
	for i := range b.Chunks {
		c := &b.Chunks[i]
		c.Prompt += " " + marker
		c.Summary += " " + marker
		c.Text += fmt.Sprintf(" %s and %sSuffix%d", marker, marker, i)
		c.Commands = append(c.Commands, "grep "+marker)
		c.Files = append(c.Files, marker+".go")
		c.Errors = append(c.Errors, marker+" failed")
	}
	for i := range b.Items {
		b.Items[i].Text += " " + marker
		b.Items[i].Detail = "because " + marker
	}
	b.Compactions = []carryover.Compaction{{SessionID: session, Window: 1, Trigger: "auto", Summary: "summary " + marker}}
	return b
}

// fileBytes returns the database file and its WAL and shared-memory files,
// concatenated (the missing ones are empty).
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// TestPruneLeavesNoTraceInTheFiles prunes a session among others, compacts,
// and then searches the raw bytes of the database and WAL files for its
// words: the rows, the full-text index, free pages and WAL frames must all
// be clean.
func TestPruneLeavesNoTraceInTheFiles(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	// Enough other sessions that the FTS index has several segments and
	// the forgotten rows share pages with kept ones.
	for i := range 10 {
		if err := st.Apply(ctx, markedBatch(fmt.Sprintf("keep%02d", i), "/p/a", fmt.Sprintf("wyvernkept%02d", i), 10)); err != nil {
			t.Fatal(err)
		}
	}
	const secret, sid = "qxforgetmarker", "forgotten-session-4f2a"
	if err := st.Apply(ctx, markedBatch(sid, "/p/a", secret, 10)); err != nil {
		t.Fatal(err)
	}
	for i := 10; i < 14; i++ {
		if err := st.Apply(ctx, markedBatch(fmt.Sprintf("keep%02d", i), "/p/a", fmt.Sprintf("wyvernkept%02d", i), 10)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.AddNote(ctx, carryover.Note{SessionID: sid, Project: "/p/a", Kind: "note", Text: "note " + secret}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordInjection(ctx, carryover.Injection{SessionID: sid, Project: "/p/a", Event: "UserPromptSubmit",
		Hash: "h", Text: "## carryover: recalled\n" + secret, Reason: "recall of " + secret}); err != nil {
		t.Fatal(err)
	}
	if err := st.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	// The search below can see the words: they are in the file now.
	for _, w := range []string{secret, sid, "forgetmarker"} {
		if !bytes.Contains(fileBytes(t, path), []byte(w)) {
			t.Fatalf("%q not in the file before the prune: the raw search is broken", w)
		}
	}

	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunks != 10 || rep.Notes != 1 || rep.Compactions != 1 || rep.Injections != 1 {
		t.Fatalf("report %+v", rep)
	}
	// Without VACUUM, older versions of updated rows (the session row is
	// rewritten by every ingest) stay in the free space of live pages.
	before, err := st.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := st.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after >= before {
		t.Errorf("vacuum did not shrink the store: %d -> %d bytes", before, after)
	}
	if free, err := st.FreeBytes(ctx); err != nil || free != 0 {
		t.Errorf("free bytes after vacuum = %d, %v", free, err)
	}
	hits, err := st.Search(ctx, carryover.Query{Text: secret})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Fatalf("search finds %d hits of the forgotten session", len(hits))
	}
	// Read while the store is open, so the WAL is still there; then after
	// Close, which folds it back.
	raw := fileBytes(t, path)
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("no WAL file while the store is open: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	raw = append(raw, fileBytes(t, path)...)
	// "forgetmarker" also catches an FTS term stored after a shared prefix.
	for _, w := range []string{secret, "forgetmarker", "Forgetmarker", sid} {
		if i := bytes.Index(raw, []byte(w)); i >= 0 {
			t.Errorf("%q still in the files at byte %d: %q", w, i, raw[max(0, i-40):min(len(raw), i+40)])
		}
	}
	for _, w := range []string{"wyvernkept00", "wyvernkept13"} {
		if !bytes.Contains(raw, []byte(w)) {
			t.Errorf("kept session's %q is gone", w)
		}
	}
	// The index is sound after the deletes and the merge.
	db := rawDB(t, path)
	for _, tbl := range []string{"chunks_fts", "items_fts"} {
		if _, err := db.Exec(fmt.Sprintf("INSERT INTO %s (%s) VALUES ('integrity-check')", tbl, tbl)); err != nil {
			t.Errorf("%s integrity-check: %v", tbl, err)
		}
	}
}
