package exportfile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
)

func TestWriteFileIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "all.jsonl")
	if err := os.Mkdir(filepath.Dir(out), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFile(ctx, out, st, WriteOptions{Orphans: true}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(data), `{"type":"header","format":"carryover-export"`) {
		t.Fatalf("export: %q, %v", data, err)
	}
	// A failing export (the store is gone) leaves the earlier file as it
	// was, and no temporary file.
	st.Close()
	if _, err := WriteFile(ctx, out, st, WriteOptions{Orphans: true}); err == nil {
		t.Fatal("an export of a closed store did not fail")
	}
	if again, _ := os.ReadFile(out); string(again) != string(data) {
		t.Error("a failed export changed the file")
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".carryover-export-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestSessionsOldestFirst(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	for _, s := range []carryover.Session{
		{ID: "b0000000-0000-4000-8000-000000000002", Project: "/p", Started: day(3), Updated: day(3)},
		{ID: "a0000000-0000-4000-8000-000000000001", Project: "/p", Started: day(1), Updated: day(1)},
		{ID: "c0000000-0000-4000-8000-000000000003", Project: "/q", Started: day(2), Updated: day(2)},
	} {
		if err := st.Apply(ctx, carryover.Batch{Session: s}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(ss []carryover.Session) (out []string) {
		for _, s := range ss {
			out = append(out, s.ID[:1])
		}
		return out
	}
	all, err := Sessions(ctx, st, nil, "")
	if err != nil || strings.Join(ids(all), "") != "acb" {
		t.Errorf("all: %v, %v", ids(all), err)
	}
	p, err := Sessions(ctx, st, nil, "/p")
	if err != nil || strings.Join(ids(p), "") != "ab" {
		t.Errorf("project /p: %v, %v", ids(p), err)
	}
	one, err := Sessions(ctx, st, &all[2], "")
	if err != nil || strings.Join(ids(one), "") != "b" {
		t.Errorf("one session: %v, %v", ids(one), err)
	}
}
