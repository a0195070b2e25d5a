package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
)

// TestMigrateInjectionText turns a store back into the schema before
// injections kept their text and checks that opening it adds the columns
// in place: old records read with no text or reason, new ones keep both.
func TestMigrateInjectionText(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	st := openStore(t, path)
	old := carryover.Injection{Time: base, SessionID: "s1", Project: "/p", Event: "SessionStart:compact", Window: 1,
		Chars: 12, Tokens: 3, ChunkIDs: []int64{1}, Hash: "h1", Text: "will be lost", Reason: "gone too"}
	if _, err := st.RecordInjection(ctx, old); err != nil {
		t.Fatal(err)
	}
	st.Close()
	db := rawDB(t, path)
	for _, q := range []string{undoShares, undoIdentity, "ALTER TABLE injections DROP COLUMN text", "ALTER TABLE injections DROP COLUMN reason",
		"PRAGMA user_version = 7"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	st = openStore(t, path)
	ins, err := st.Injections(ctx, "s1", 0)
	if err != nil || len(ins) != 1 {
		t.Fatalf("after the migration: %d injections, %v", len(ins), err)
	}
	if ins[0].Text != "" || ins[0].Reason != "" || ins[0].Hash != "h1" || ins[0].Chars != 12 {
		t.Errorf("old record after the migration: %+v", ins[0])
	}
	in := old
	in.Time = base.Add(1000)
	in.Text, in.Reason = "## carryover: restored\n- `go test ./...`\n", "restore after compaction 1: 1 item"
	if _, err := st.RecordInjection(ctx, in); err != nil {
		t.Fatal(err)
	}
	ins, err = st.Injections(ctx, "s1", 1)
	if err != nil || len(ins) != 1 || ins[0].Text != in.Text || ins[0].Reason != in.Reason {
		t.Fatalf("new record: %+v, %v", ins, err)
	}
}

// TestInjectionsWithoutText: the hooks' reading of the audit log is
// Injections' but for the texts and reasons.
func TestInjectionsWithoutText(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	for i := range 5 {
		in := carryover.Injection{Time: base.Add(time.Duration(i) * time.Second), SessionID: fmt.Sprintf("s%d", i%2), Project: "/p",
			Event: "UserPromptSubmit", Window: i / 2, Chars: 40, Tokens: 10, ChunkIDs: []int64{int64(i), 9}, Hash: fmt.Sprint("h", i),
			Latency: time.Duration(i) * time.Millisecond, Text: strings.Repeat("recalled text ", 300+i), Reason: fmt.Sprint("reason ", i)}
		if i == 3 {
			in.ItemIDs, in.ChunkIDs = []int64{4, 5}, nil
		}
		if _, err := st.RecordInjection(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []struct {
		session string
		limit   int
	}{{"s0", 0}, {"s1", 1}, {"", 0}, {"", 4}, {"s9", 0}} {
		want, err := st.Injections(ctx, q.session, q.limit)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.InjectionsWithoutText(ctx, q.session, q.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%+v: %d records, want %d", q, len(got), len(want))
		}
		for i := range want {
			if want[i].Text == "" || want[i].Reason == "" {
				t.Fatalf("%+v: Injections lost the text of %d", q, want[i].ID)
			}
			want[i].Text, want[i].Reason = "", ""
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%+v: %+v\nwant %+v", q, got[i], want[i])
			}
		}
	}
}

// BenchmarkInjections reads the audit log the way the hooks do (a
// session's newest 200, on every prompt) and the way stats does (all of
// it), with the texts a restore (4000 chars) and recalls (2000) keep and
// without, for their cost: 20 sessions of 200 injections.
func BenchmarkInjections(b *testing.B) {
	for _, withText := range []bool{false, true} {
		name := "no text"
		if withText {
			name = "text"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			st := openStore(b, filepath.Join(b.TempDir(), "carryover.db"))
			line := "- `go test -race ./internal/pdf/...` passed after the fix in internal/pdf/render.go (L812)\n"
			for s := range 20 {
				for i := range 200 {
					in := carryover.Injection{Time: base.Add(time.Duration(s*200+i) * time.Second), SessionID: fmt.Sprintf("s%d", s),
						Project: "/p", Event: "UserPromptSubmit", Window: 1, ChunkIDs: []int64{1, 2, 3}, Hash: "h", Chars: 2000}
					if i%10 == 0 {
						in.Event, in.Chars, in.ItemIDs = "SessionStart:compact", 4000, []int64{4, 5, 6, 7, 8, 9, 10, 11}
					}
					if withText {
						in.Text = strings.Repeat(line, in.Chars/len(line))
						in.Reason = "recall: BM25 7.2 ≥ 2, 3 of 4 informative words (coverage 0.78 ≥ 0.5) from this session's window 0, turn 2"
					}
					if _, err := st.RecordInjection(ctx, in); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.Run("session 200", func(b *testing.B) {
				for b.Loop() {
					if ins, err := st.Injections(ctx, "s7", 200); err != nil || len(ins) != 200 {
						b.Fatal(len(ins), err)
					}
				}
			})
			b.Run("session 200 without text", func(b *testing.B) {
				for b.Loop() {
					if ins, err := st.InjectionsWithoutText(ctx, "s7", 200); err != nil || len(ins) != 200 {
						b.Fatal(len(ins), err)
					}
				}
			})
			b.Run("all", func(b *testing.B) {
				for b.Loop() {
					if ins, err := st.Injections(ctx, "", 0); err != nil || len(ins) != 4000 {
						b.Fatal(len(ins), err)
					}
				}
			})
		})
	}
}
