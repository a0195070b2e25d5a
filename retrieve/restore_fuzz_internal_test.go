package retrieve

import (
	"testing"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
)

// FuzzRestoreFrom composes restores of sessions whose every text is the
// fuzzer's (the part of Restore after the store's reads): the restore hook
// must not panic on anything a transcript can hold, and keeps to its budget
// and, from texts that are each valid UTF-8 (JSON decoding makes them so),
// to valid UTF-8.
func FuzzRestoreFrom(f *testing.F) {
	f.Add("We decided the port is 48213. Never use cgo.", "go test ./... -run TestA", "exit 1: FAIL\tpkg 0.2s", "internal/pdf/render.go",
		"pdf.NewRenderer internal/pdf/render.go 2006-01-02", "$ go test ./...\n→ ok\nok pkg 0.1s", "the summary mentions render.go", 4000, 1)
	f.Add("", "", "", "", "", "", "", 100, 0)
	f.Add("信息：第一批数据已处理。我们决定用端口 8080。", "bash -c 'sh -c \"make\"'", "\x00\xff\xfe", `C:\src\shop\main.go`,
		"a/{b,c} {x} lib/web/{router.ex,pane_live.ex}", "[>] a · [ ] b\n[x] c", "端口", 2000, 3)
	f.Fuzz(func(t *testing.T, prompt, command, errText, file, typed, text, summary string, budget, window int) {
		if budget < 1 || budget > 20000 || window < 0 || window > 5 {
			t.Skip()
		}
		const id = "f0220000-0000-4000-8000-000000000001"
		item := func(k carryover.ItemKind, seq, line int, text, detail string) carryover.Item {
			return carryover.Item{ID: int64(line), SessionID: id, ChunkSeq: seq, Kind: k, Key: string(k), Text: text, Detail: detail,
				Line: line, Window: window, Weight: 0.8}
		}
		in := restoreInput{window: window, items: map[carryover.ItemKind][]carryover.Item{}}
		for _, it := range []carryover.Item{
			item(carryover.KindInputs, 2, 9, typed+"\n"+file+"\n"+command, ""),
			item(carryover.KindTodo, 2, 8, text, ""),
			item(carryover.KindValue, 2, 8, typed, errText),
			item(carryover.KindFileEdit, 2, 7, file, text),
			item(carryover.KindFix, 1, 6, errText, command),
			item(carryover.KindError, 1, 5, errText, text),
			item(carryover.KindCommand, 1, 4, command, prompt),
			item(carryover.KindDecision, 0, 2, prompt, summary),
			item(carryover.KindSpec, 0, 2, text, ""),
			item(carryover.KindGoal, 0, 1, prompt, ""),
		} {
			in.items[it.Kind] = append(in.items[it.Kind], it)
		}
		for seq := 2; seq >= 0; seq-- { // newest first
			in.recent = append(in.recent, carryover.Chunk{
				ID: int64(seq + 1), SessionID: id, Project: "/src/fuzz", Seq: seq, Turn: seq, Window: window,
				FirstLine: seq*3 + 1, LastLine: seq*3 + 3, Prompt: prompt,
				Text: "User: " + prompt + "\n" + text + "\n$ " + command + "\n→ " + errText + "\nAssistant: " + typed,
			})
		}
		req := RestoreRequest{SessionID: id, Project: "/src/fuzz", Window: window, Summary: summary, Budget: budget}
		blk := restoreFrom(in, req, summary, budget)
		if len(blk.Text) > budget {
			t.Fatalf("restore of %d bytes, budget %d", len(blk.Text), budget)
		}
		valid := true
		for _, s := range []string{prompt, command, errText, file, typed, text, summary} {
			valid = valid && utf8.ValidString(s)
		}
		if valid && !utf8.ValidString(blk.Text) {
			t.Fatalf("restore not valid UTF-8: %q", blk.Text)
		}
	})
}

// FuzzVerbatimList builds the compaction instructions' "keep these
// verbatim" list from items whose every text is the fuzzer's: no panic,
// within the list's cap and the room given, valid UTF-8 from valid texts.
func FuzzVerbatimList(f *testing.F) {
	f.Add("We decided the port is 48213. Never use cgo.", "internal/a.go", "go test ./...", "exit 1: FAIL", "[>] a\n[ ] b", "## Constraints\n- No CDN", "x y\nz\nlib/a.go lib/b.go", 0, 3000)
	f.Add("", "", "", "", "", "", "", 0, 0)
	f.Add("信息：我们决定用端口 8080。", `C:\src\a.go`, "bash -c 'make'", "\xff", "[x] 完成", "不要", "\n\n", 2, 40)
	f.Fuzz(func(t *testing.T, goal, edit, command, errText, todo, spec, inputs string, window, room int) {
		if window < 0 || window > 5 || room < 0 || room > 10000 {
			t.Skip()
		}
		it := func(k carryover.ItemKind, line int, text string) []carryover.Item {
			return []carryover.Item{{ID: int64(line), Kind: k, Key: string(k), Text: text, Line: line, Window: window, Weight: 0.8}}
		}
		groups := [][]carryover.Item{it(carryover.KindGoal, 1, goal), it(carryover.KindFileEdit, 4, edit), it(carryover.KindCommand, 3, command),
			it(carryover.KindError, 2, errText), it(carryover.KindTodo, 5, todo), it(carryover.KindSpec, 2, spec)}
		got := verbatimList(groups, inputs, room)
		if len(got) > room || len(got) > len(verbatimHeading)+VerbatimCap {
			t.Fatalf("list of %d bytes, room %d, cap %d", len(got), room, VerbatimCap)
		}
		valid := true
		for _, s := range []string{goal, edit, command, errText, todo, spec, inputs} {
			valid = valid && utf8.ValidString(s)
		}
		if valid && !utf8.ValidString(got) {
			t.Fatalf("list not valid UTF-8: %q", got)
		}
	})
}

// FuzzFileRecall picks and renders file recall's edits and open errors
// from any texts, against any text the tool call showed: no panic, the
// block within FileRecallBudget, valid UTF-8 from valid texts.
func FuzzFileRecall(f *testing.F) {
	f.Add("internal/pdf/render.go", "Use fpdf.New instead of NewA4", "+doc := fpdf.New(\"P\", \"mm\", \"A4\", \"\")", "doc := fpdf.NewA4()", "render.go:42: undefined: fpdf.NewA4", 3)
	f.Add("", "", "", "", "", 0)
	f.Add(`C:\src\a.go`, "信息", "\xff⏎", "a.go:1:2", "exit 1: —", 40)
	f.Fuzz(func(t *testing.T, rel, why, diff, shown, errText string, total int) {
		if total < 0 || total > 1000 || len(rel)+len(why)+len(diff)+len(shown)+len(errText) > 1<<16 {
			t.Skip()
		}
		edits := []fileEdit{{chunk: 1, first: 10, last: 12, why: why, diff: []string{diff, shown}}, {chunk: 2, first: 20, last: 22, why: why}}
		picked, _ := novelEdits(edits, func(id string) bool { return shownIdent(shown, id) }, rel)
		open := []carryover.Item{{ID: 9, Kind: carryover.KindError, Text: errText, Line: 30}}
		blk := renderFileRecall(rel, carryover.Item{ID: 5, Kind: carryover.KindFileEdit, Text: rel, Detail: why}, total, picked, open)
		if len(blk.Text) > FileRecallBudget {
			t.Fatalf("block of %d bytes, budget %d", len(blk.Text), FileRecallBudget)
		}
		valid := true
		for _, s := range []string{rel, why, diff, shown, errText} {
			valid = valid && utf8.ValidString(s)
		}
		if valid && !utf8.ValidString(blk.Text) {
			t.Fatalf("block not valid UTF-8: %q", blk.Text)
		}
	})
}
