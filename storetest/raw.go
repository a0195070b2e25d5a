package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/exportfile"
)

// RawLines builds n consecutive raw lines from line from on, starting at
// byte offset off, tagged so that two generations of one line differ.
// Every 40th line is long (a tool result of 150 kB), so that a few hundred
// lines fill several blocks; line 7 of every 50 is blank, line 13 holds
// bytes that are not UTF-8 and a NUL, as a damaged transcript line may.
func RawLines(tag string, from, n int, off int64) []carryover.RawLine {
	lines := make([]carryover.RawLine, n)
	for i := range lines {
		no := from + i
		var text string
		switch {
		case no%50 == 7:
			text = ""
		case no%50 == 13:
			text = fmt.Sprintf("{\"broken\":%d \xff\xfe\x00", no)
		case no%40 == 0:
			text = fmt.Sprintf(`{"type":"user","line":%d,"tag":%q,"toolUseResult":{"stdout":%q}}`, no, tag,
				strings.Repeat(fmt.Sprintf("ok %s line %d of a long output\\n", tag, no), 5000))
		default:
			text = fmt.Sprintf(`{"type":"assistant","line":%d,"tag":%q,"message":{"content":[{"type":"text","text":"step %d: ran go test ./..."}]}}`,
				no, tag, no)
		}
		// The transcript's line was longer: masking shortened it.
		size := len(text) + 1 + no%3
		lines[i] = carryover.RawLine{Line: no, Offset: off, Size: size, Text: []byte(text)}
		off += int64(size)
	}
	return lines
}

// rawBatch is a batch of session with raw lines.
func rawBatch(session string, lines []carryover.RawLine, replace bool) carryover.Batch {
	b := Batch(session, "/p", 0, 0)
	b.Raw, b.RawReplace = lines, replace
	return b
}

// rawLines reads a session's raw lines.
func rawLines(t *testing.T, st carryover.Store, session string, from, to int) []carryover.RawLine {
	t.Helper()
	got, err := st.RawLines(context.Background(), session, from, to)
	if err != nil {
		t.Fatalf("RawLines(%s, %d, %d): %v", session, from, to, err)
	}
	return got
}

// sameLines reports where got differs from want, "" when it does not.
func sameLines(got, want []carryover.RawLine) string {
	if len(got) != len(want) {
		first := func(l []carryover.RawLine) string {
			if len(l) == 0 {
				return "none"
			}
			return fmt.Sprintf("%d-%d", l[0].Line, l[len(l)-1].Line)
		}
		return fmt.Sprintf("%d lines (%s), want %d (%s)", len(got), first(got), len(want), first(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Line != w.Line || g.Offset != w.Offset || g.Size != w.Size || !bytes.Equal(g.Text, w.Text) {
			return fmt.Sprintf("line %d: got {%d %d %d %.60q}, want {%d %d %d %.60q}", i, g.Line, g.Offset, g.Size, g.Text,
				w.Line, w.Offset, w.Size, w.Text)
		}
	}
	return ""
}

func checkRange(t *testing.T, st carryover.Store, session string, first, last int) {
	t.Helper()
	f, l, err := st.RawRange(context.Background(), session)
	if err != nil || f != first || l != last {
		t.Errorf("RawRange(%s) = %d, %d, %v; want %d, %d", session, f, l, err, first, last)
	}
}

// testRawLines writes raw lines in the batches of an ingest (the first
// with chunks, the next small ones as hooks append) and reads them back
// by ranges that cross blocks.
func testRawLines(t *testing.T, st carryover.Store) {
	all := RawLines("a", 1, 400, 0)
	first := Batch("s1", "/p", 0, 3)
	first.Raw, first.RawReplace = all[:250], true
	apply(t, st, first)
	next := all[250]
	for i := 250; i < len(all); i += 30 {
		end := min(i+30, len(all))
		apply(t, st, rawBatch("s1", all[i:end], false))
		next = all[end-1]
	}
	if next.Line != 400 {
		t.Fatalf("fixture: last line %d", next.Line)
	}
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), all); msg != "" {
		t.Fatalf("all lines: %s", msg)
	}
	for _, r := range [][2]int{{1, 1}, {39, 41}, {120, 121}, {200, 330}, {399, 400}, {250, 251}, {395, 0}} {
		want := all[r[0]-1:]
		if r[1] > 0 {
			want = all[r[0]-1 : r[1]]
		}
		if msg := sameLines(rawLines(t, st, "s1", r[0], r[1]), want); msg != "" {
			t.Errorf("lines %d-%d: %s", r[0], r[1], msg)
		}
	}
	if got := rawLines(t, st, "s1", 401, 500); len(got) != 0 {
		t.Errorf("lines past the end: %d", len(got))
	}
	if got := rawLines(t, st, "nope", 1, 0); len(got) != 0 {
		t.Errorf("lines of an unknown session: %d", len(got))
	}
	checkRange(t, st, "s1", 1, 400)
	checkRange(t, st, "nope", 0, 0)
	// Lines read at once (a search's passages): what RawLines reads for
	// each alone, in the refs' order, an unknown session's and a line past
	// the end as none.
	refs := []carryover.LineRef{{SessionID: "s1", Line: 400}, {SessionID: "s1", Line: 1}, {SessionID: "nope", Line: 3},
		{SessionID: "s1", Line: 251}, {SessionID: "s1", Line: 401}, {SessionID: "s1", Line: 250}, {SessionID: "s1", Line: 1}}
	at, err := carryover.ReadRawLinesAt(context.Background(), st, refs)
	if err != nil || len(at) != len(refs) {
		t.Fatalf("ReadRawLinesAt: %d of %d, %v", len(at), len(refs), err)
	}
	for i, r := range refs {
		if msg := sameLines(at[i], rawLines(t, st, r.SessionID, r.Line, r.Line)); msg != "" {
			t.Errorf("ReadRawLinesAt %v: %s", r, msg)
		}
	}
	if at, err := carryover.ReadRawLinesAt(context.Background(), st, nil); err != nil || len(at) != 0 {
		t.Errorf("ReadRawLinesAt of no line: %v, %v", at, err)
	}
	// The same lines again (a hook that read them too) change nothing.
	apply(t, st, rawBatch("s1", all[300:330], false), rawBatch("s1", all[380:], false))
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), all); msg != "" {
		t.Errorf("after a replay of lines 301-330: %s", msg)
	}
	for _, bad := range []func(*carryover.Batch){
		func(b *carryover.Batch) { b.Raw[1].Line++ },
		func(b *carryover.Batch) { b.Raw[0].Line = 0 },
		func(b *carryover.Batch) { b.Raw[2].Text = []byte("two\nlines") },
	} {
		b := rawBatch("s1", RawLines("bad", 401, 3, 0), true)
		bad(&b)
		if err := st.Apply(context.Background(), b); err == nil {
			t.Errorf("a batch of bad raw lines was stored")
		}
	}
	checkRange(t, st, "s1", 1, 400)
}

// testRawRestart replaces a session's lines from the start (a rewritten
// transcript read again from offset 0) and from the middle of a block: no
// line is lost or stored twice.
func testRawRestart(t *testing.T, st carryover.Store) {
	old := RawLines("old", 1, 300, 0)
	apply(t, st, rawBatch("s1", old[:200], true), rawBatch("s1", old[200:], false))
	// A shorter rewrite: the old lines past its end go too.
	fresh := RawLines("new", 1, 120, 0)
	apply(t, st, rawBatch("s1", fresh[:90], true))
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), fresh[:90]); msg != "" {
		t.Fatalf("after the restart's first batch: %s", msg)
	}
	apply(t, st, rawBatch("s1", fresh[90:], false))
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), fresh); msg != "" {
		t.Fatalf("after the restart: %s", msg)
	}
	checkRange(t, st, "s1", 1, 120)
	// Replacing from the middle of a block keeps the lines before it.
	again := RawLines("again", 61, 100, fresh[60].Offset)
	apply(t, st, rawBatch("s1", again, true))
	want := append(append([]carryover.RawLine(nil), fresh[:60]...), again...)
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), want); msg != "" {
		t.Fatalf("after replacing from line 61: %s", msg)
	}
	checkRange(t, st, "s1", 1, 160)
}

// testRawAppendOnly writes lines as an import or a copy does: only those
// after the last stored line are added, and stored lines stay.
func testRawAppendOnly(t *testing.T, st carryover.Store) {
	mine := RawLines("mine", 1, 100, 0)
	apply(t, st, rawBatch("s1", mine, true))
	theirs := RawLines("theirs", 1, 160, 0)
	apply(t, st, rawBatch("s1", theirs[:50], false))
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), mine); msg != "" {
		t.Fatalf("older lines of a copy changed the stored ones: %s", msg)
	}
	apply(t, st, rawBatch("s1", theirs[80:], false))
	want := append(append([]carryover.RawLine(nil), mine...), theirs[100:]...)
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), want); msg != "" {
		t.Fatalf("after a copy of lines 81-160: %s", msg)
	}
	apply(t, st, rawBatch("s1", theirs, false))
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), want); msg != "" {
		t.Fatalf("a second copy changed lines: %s", msg)
	}
	// Into a session without raw lines, a copy may start anywhere.
	apply(t, st, rawBatch("s2", theirs[20:40], false))
	if msg := sameLines(rawLines(t, st, "s2", 0, 0), theirs[20:40]); msg != "" {
		t.Fatalf("copy into a new session: %s", msg)
	}
	checkRange(t, st, "s2", 21, 40)
}

// testRawConcurrentWriters runs hooks of one session at once, each
// writing the same transcript's lines from where the session was, in
// batches of its own size: the stored lines are the transcript's, each
// once, whatever the order of the commits.
func testRawConcurrentWriters(t *testing.T, st carryover.Store) {
	const writers = 4
	all := RawLines("t", 1, 240, 0)
	apply(t, st, rawBatch("s1", all[:10], true))
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			size := 7 + 11*w
			for i := 10; i < len(all); i += size {
				if err := st.Apply(ctx, rawBatch("s1", all[i:min(i+size, len(all))], false)); err != nil {
					errs <- fmt.Errorf("writer %d, lines from %d: %w", w, i+1, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), all); msg != "" {
		t.Fatalf("after concurrent writers: %s", msg)
	}
}

// testRawPruneForget checks that prune and forget remove a session's raw
// lines and leave the others', and that a forgotten session's raw lines
// are refused with the rest of its batch.
func testRawPruneForget(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	lines := RawLines("x", 1, 120, 0)
	for _, s := range []string{"s1", "s2", "s3"} {
		b := Batch(s, "/p", 0, 2)
		b.Raw, b.RawReplace = lines, true
		apply(t, st, b)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s2", Forget: true}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"s1", "s2"} {
		if got := rawLines(t, st, s, 0, 0); len(got) != 0 {
			t.Errorf("%d raw lines of pruned session %s left", len(got), s)
		}
		checkRange(t, st, s, 0, 0)
	}
	if msg := sameLines(rawLines(t, st, "s3", 0, 0), lines); msg != "" {
		t.Errorf("the other session's lines: %s", msg)
	}
	b := Batch("s2", "/p", 0, 1)
	b.Raw, b.RawReplace = lines, true
	if err := st.Apply(ctx, b); !errors.Is(err, carryover.ErrForgotten) {
		t.Fatalf("apply of a forgotten session: %v", err)
	}
	if got := rawLines(t, st, "s2", 0, 0); len(got) != 0 {
		t.Errorf("%d raw lines of the forgotten session stored", len(got))
	}
}

// testRawExportImport exports a session with its raw lines, removes it,
// imports the file twice and finds the same lines, once; an import into
// a store that archived further leaves its lines alone.
func testRawExportImport(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	lines := RawLines("e", 1, 260, 0)
	b := Batch("s1", "/p", 0, 3)
	b.Raw, b.RawReplace = lines[:200], true
	apply(t, st, b)
	ss, err := st.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	n, err := exportfile.Write(ctx, &file, st, exportfile.WriteOptions{Sessions: []carryover.Session{ss}})
	if err != nil {
		t.Fatal(err)
	}
	if n.RawLines != 200 {
		t.Errorf("export wrote %d raw lines, want 200", n.RawLines)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		rep, err := exportfile.Read(ctx, bytes.NewReader(file.Bytes()), st, exportfile.ReadOptions{})
		if err != nil {
			t.Fatalf("import %d: %v", i, err)
		}
		if rep.Read.RawLines != 200 {
			t.Errorf("import %d read %d raw lines, want 200", i, rep.Read.RawLines)
		}
		if msg := sameLines(rawLines(t, st, "s1", 0, 0), lines[:200]); msg != "" {
			t.Fatalf("after import %d: %s", i, msg)
		}
	}
	// The session goes on; the old export does not rewind it.
	apply(t, st, rawBatch("s1", lines[200:], false))
	if _, err := exportfile.Read(ctx, bytes.NewReader(file.Bytes()), st, exportfile.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if msg := sameLines(rawLines(t, st, "s1", 0, 0), lines); msg != "" {
		t.Fatalf("after importing an older export: %s", msg)
	}
}
