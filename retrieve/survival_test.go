package retrieve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
)

// sharedDir returns the shared data directory beside the repository. It
// skips the test when the directory is absent, unless CI=true.
func sharedDir(tb testing.TB) string {
	tb.Helper()
	// Absolute, as transcript paths from Claude Code are.
	dir, err := filepath.Abs(filepath.Join("..", "..", "shared"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("shared data missing at %s: %v", dir, err)
		}
		tb.Skipf("shared data not found at %s (a checkout of the repository alone has none)", dir)
	}
	return dir
}

type survivalItem struct {
	ID, Session, Question, Kind string
	Answers                     []string
}

func hitAny(text string, answers []string) bool {
	text = strings.ToLower(text)
	for _, a := range answers {
		if strings.Contains(text, strings.ToLower(a)) {
			return true
		}
	}
	return false
}

// TestSurvivalDev restores and searches the real compaction-survival dev
// sessions: every restore fits its budget and beats the recent-tail
// baseline (3 of 60), and search (k = 8, 4,000 characters) finds most facts.
func TestSurvivalDev(t *testing.T) {
	shared := sharedDir(t)
	if testing.Short() {
		t.Skip("ingests three 3 MB transcripts")
	}
	f, err := os.Open(filepath.Join(shared, "bench", "compaction-survival", "dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []survivalItem
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var it survivalItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	st := openStore(t)
	blocks := map[string]string{}
	type tally struct{ restore, search, n int }
	perKind := map[string]*tally{}
	var total tally
	for _, it := range items {
		if _, ok := blocks[it.Session]; !ok {
			path := filepath.Join(shared, "data", "transcripts", "spotter", it.Session+".jsonl")
			rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
			if err != nil {
				t.Fatalf("ingest %s: %v", it.Session, err)
			}
			blk, err := retrieve.Restore(ctx, st, retrieve.RestoreRequest{SessionID: rep.SessionID, Project: rep.Project, Window: 1})
			if err != nil {
				t.Fatalf("restore %s: %v", it.Session, err)
			}
			if blk.Text == "" || len(blk.Text) > retrieve.DefaultRestoreBudget {
				t.Errorf("restore %s: %d chars", it.Session, len(blk.Text))
			}
			blocks[it.Session] = blk.Text
		}
		rs, err := retrieve.Search(ctx, st, retrieve.SearchRequest{Query: carryover.Query{Text: it.Question, SessionID: it.Session}})
		if err != nil {
			t.Fatalf("search: %v", err)
		}
		var found strings.Builder
		for _, r := range rs.Results {
			found.WriteString(r.Text)
		}
		if found.Len() > retrieve.DefaultSearchBudget {
			t.Errorf("search %s: %d chars", it.ID, found.Len())
		}
		k := perKind[it.Kind]
		if k == nil {
			k = &tally{}
			perKind[it.Kind] = k
		}
		k.n++
		total.n++
		if hitAny(blocks[it.Session], it.Answers) {
			k.restore++
			total.restore++
		}
		if hitAny(found.String(), it.Answers) {
			k.search++
			total.search++
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(perKind)) {
		k := perKind[kind]
		t.Logf("%-8s restore %2d/%2d  search %2d/%2d", kind, k.restore, k.n, k.search, k.n)
	}
	t.Logf("all      restore %2d/%2d  search %2d/%2d", total.restore, total.n, total.search, total.n)
	if total.restore <= 3 {
		t.Errorf("restore recovers %d of %d facts, no better than the recent tail (3)", total.restore, total.n)
	}
	if total.search < total.n*2/3 {
		t.Errorf("search recovers %d of %d facts, want at least two thirds", total.search, total.n)
	}
}
