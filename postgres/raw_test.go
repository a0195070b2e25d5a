package postgres_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storetest"
)

// TestRawLinesRowSecurity: raw lines are read by their owner and the
// members of their session's team, follow the session when it is shared
// later, and no role writes them shared with a team it is not in.
func TestRawLinesRowSecurity(t *testing.T) {
	ctx := context.Background()
	f := newRLS(t)
	lines := storetest.RawLines("r", 1, 90, 0)
	withRaw := func(id string) carryover.Batch {
		b := storetest.Batch(id, "/repo", 0, 1)
		b.Raw, b.RawReplace = lines, true
		return b
	}
	same := func(got []carryover.RawLine) bool {
		if len(got) != len(lines) {
			return false
		}
		for i := range got {
			if got[i].Line != lines[i].Line || !bytes.Equal(got[i].Text, lines[i].Text) {
				return false
			}
		}
		return true
	}
	aliceT, alice := f.store(t, "alice", f.team), f.store(t, "alice", "")
	if err := aliceT.Apply(ctx, withRaw("a-shared")); err != nil {
		t.Fatal(err)
	}
	if err := alice.Apply(ctx, withRaw("a-private")); err != nil {
		t.Fatal(err)
	}
	bob, carol := f.store(t, "bob", ""), f.store(t, "carol", "")
	read := func(st interface {
		RawLines(context.Context, string, int, int) ([]carryover.RawLine, error)
	}, id string) []carryover.RawLine {
		t.Helper()
		got, err := st.RawLines(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if !same(read(bob, "a-shared")) {
		t.Errorf("bob, in the team, does not read alice's shared raw lines")
	}
	if got := read(bob, "a-private"); len(got) != 0 {
		t.Errorf("bob reads %d raw lines of alice's private session", len(got))
	}
	if got := read(carol, "a-shared"); len(got) != 0 {
		t.Errorf("carol, in no team, reads %d raw lines of alice's shared session", len(got))
	}
	// Shared later: the raw lines follow the session's team.
	b := storetest.Batch("a-private", "/repo", 1, 1)
	b.Session.Team = f.team
	if err := alice.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if !same(read(bob, "a-private")) {
		t.Errorf("bob does not read the raw lines of a session alice shared later")
	}
	// carol writes raw lines of her own, but not shared with the team.
	if err := carol.Apply(ctx, withRaw("c-1")); err != nil {
		t.Fatal(err)
	}
	c := f.conn(t, "carol")
	if got := outcome(c, `UPDATE raw_blocks SET team = $1`, f.team); got != "42501" && got != "ok 0" {
		t.Errorf("carol shared her raw lines with the team by hand: %s", got)
	}
	if got := outcome(c, `INSERT INTO raw_blocks (owner, team, session_id, first_line, last_line, first_offset, end_offset, text_bytes, data)
		VALUES (current_user, $1, 'c-1', 500, 500, 0, 1, 1, '\x00')`, f.team); got != "42501" {
		t.Errorf("carol inserted a raw block shared with the team: %s", got)
	}
	if !same(read(carol, "c-1")) {
		t.Errorf("carol does not read her own raw lines")
	}
}
