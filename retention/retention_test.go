package retention

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
	"github.com/carryover-dev/carryover/termsafe"
)

// osc52 would set the clipboard of the terminal that prints it raw.
const osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07"

const hostileID = "0e5c0000-0000-4000-8000-000000000001"

// hostileStore archives a session whose prompt, and so its title, holds
// an escape sequence.
func hostileStore(t *testing.T) (*sqlite.Store, string) {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "carryover.db")
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tr := filepath.Join(dir, hostileID+".jsonl")
	line := `{"type":"user","uuid":"u1","sessionId":"` + hostileID + `","cwd":"/home/dev/p","timestamp":"2025-01-05T10:00:00Z",` +
		`"message":{"role":"user","content":"fix the build ` + strings.ReplaceAll(strings.ReplaceAll(osc52, "\x1b", `\u001b`), "\x07", `\u0007`) + ` please"}}` + "\n"
	if err := os.WriteFile(tr, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	a := &ingest.Archiver{Store: st}
	if _, err := a.File(context.Background(), tr, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	s, err := st.Session(context.Background(), hostileID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Title, "\x1b]52") {
		t.Fatalf("the title lost its escape, nothing to test: %q", s.Title)
	}
	return st, db
}

func TestArchivedTextIsEscaped(t *testing.T) {
	ctx := context.Background()
	st, db := hostileStore(t)
	s, err := st.Session(ctx, hostileID)
	if err != nil {
		t.Fatal(err)
	}
	if l := Label(s, termsafe.Line); strings.ContainsRune(l, 0x1b) || !strings.Contains(l, `\e]52`) {
		t.Errorf("confirmation shows the escape raw: %q", l)
	}
	var out bytes.Buffer
	f := &Forgetter{Store: st, DB: db, Out: &out, Text: termsafe.Line}
	if err := f.Forget(ctx, s); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07") || !strings.Contains(out.String(), `forgot session `+hostileID+` (/home/dev/p: fix the build \e]52`) {
		t.Errorf("forget printed archived text raw:\n%q", out.String())
	}
	if _, err := st.Session(ctx, hostileID); err == nil {
		t.Error("the session is still archived")
	}
}

func TestSelect(t *testing.T) {
	ctx := context.Background()
	st, _ := hostileStore(t)
	for _, c := range []struct {
		name string
		c    Criteria
		want int
	}{
		{"older than now", Criteria{Before: time.Now(), MaxSize: -1}, 1},
		{"older than 2024", Criteria{Before: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), MaxSize: -1}, 0},
		{"other project", Criteria{Project: "/elsewhere", MaxSize: -1}, 0},
		{"under a huge size", Criteria{MaxSize: 1 << 40}, 0},
		{"over a tiny size", Criteria{MaxSize: 1}, 1},
	} {
		p, err := Select(ctx, st, c.c)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Sessions) != c.want || p.Total != 1 {
			t.Errorf("%s: %d sessions of %d, want %d", c.name, len(p.Sessions), p.Total, c.want)
		}
	}
	p, err := Select(ctx, st, Criteria{MaxSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	total, err := p.Prune(ctx, st, true, func(carryover.Session, carryover.PruneReport) {})
	if err != nil {
		t.Fatal(err)
	}
	sum := p.Summary(total, true)
	if len(total.Sessions) != 1 || !strings.HasPrefix(sum, "would remove 1 session (") || !strings.Contains(sum, "nothing removed") {
		t.Errorf("dry run: %+v\n%s", total, sum)
	}
	if _, err := st.Session(ctx, hostileID); err != nil {
		t.Errorf("a dry run removed the session: %v", err)
	}
}

func TestUnarchived(t *testing.T) {
	ctx := context.Background()
	st, db := hostileStore(t)
	f := &Forgetter{Store: st, DB: db, Out: &bytes.Buffer{}, Text: termsafe.Line}
	noted := "5e550000-0000-4000-8000-000000000009"
	if _, err := st.AddNote(ctx, carryover.Note{SessionID: noted, Project: "/p", Kind: "note", Text: "keep the alias"}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{noted: true, "5e550000-0000-4000-8000-00000000000a": false, "5e55": false} {
		s, ok, err := f.Unarchived(ctx, id)
		if err != nil || ok != want || ok && s.ID != id {
			t.Errorf("%s: %+v, %v, %v; want ok %v", id, s, ok, err, want)
		}
	}
}

// TestMaxSizeSharedChunks checks that a session whose chunks a resumed
// session shares is not counted as freeing them: removing it frees only
// its own rows, and a size prune goes on to the session that holds them.
func TestMaxSizeSharedChunks(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "carryover.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// b resumes a and repeats all its 20 chunks; c is as large as a and
	// the newest.
	a := storetest.Batch("a", "/p", 0, 20)
	b := storetest.Resumed(a, "b", 20, 21, 5)
	c := storetest.Batch("c", "/p", 0, 20)
	c.Session.Updated = b.Session.Updated.Add(time.Hour)
	for _, x := range []carryover.Batch{a, b, c} {
		if err := st.Apply(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	all, err := Select(ctx, st, Criteria{MaxSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	bytes := map[string]int64{}
	var sum int64
	for _, s := range all.Sessions {
		bytes[s.ID] = all.Bytes(s)
		sum += bytes[s.ID]
	}
	if len(bytes) != 3 || bytes["a"]*4 > bytes["c"] {
		t.Errorf("removing a frees about %d bytes, c %d: a's chunks are b's too, a should free far less", bytes["a"], bytes["c"])
	}
	free, err := st.FreeBytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if live := all.Size - free; sum < live*99/100 || sum > live {
		t.Errorf("removing every session frees %d bytes, the store holds %d", sum, live)
	}
	// Three quarters of the store: a alone does not get there.
	p, err := Select(ctx, st, Criteria{MaxSize: (all.Size - free) * 3 / 4})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range p.Sessions {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, " ") != "a b" {
		t.Errorf("a prune to three quarters of the store removes %v, want a and b", ids)
	}
}
