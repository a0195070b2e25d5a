package chunk_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// projectOf returns the cwd of the first entry that has one.
func projectOf(es []transcript.Entry) string {
	for _, e := range es {
		if e.Cwd != "" {
			return e.Cwd
		}
	}
	return ""
}

// describe renders a Result compactly for a golden file: counts, every
// chunk's header, the full text of the first full chunks, and the items
// (all of them when allItems, else the kinds that are not plentiful).
func describe(r chunk.Result, fullChunks int, allItems bool) string {
	var b strings.Builder
	maxLen, side := 0, 0
	for _, c := range r.Chunks {
		maxLen = max(maxLen, len(c.Text))
		if c.Sidechain {
			side++
		}
	}
	fmt.Fprintf(&b, "title: %q\n", r.Title)
	fmt.Fprintf(&b, "turns: %d  chunks: %d  sidechain chunks: %d  max chunk: %d bytes\n", r.Cursor.Turn+1, len(r.Chunks), side, maxLen)
	counts := map[carryover.ItemKind]int{}
	for _, it := range r.Items {
		counts[it.Kind]++
	}
	fmt.Fprint(&b, "items:")
	for _, k := range append(slices.Clone(carryover.ItemKinds), carryover.KindInputs) {
		fmt.Fprintf(&b, " %s=%d", k, counts[k])
	}
	b.WriteString("\n")
	for _, c := range r.Compactions {
		fmt.Fprintf(&b, "compaction: window %d line %d trigger %q pre %d post %d summary %d bytes: %.80q\n",
			c.Window, c.Line, c.Trigger, c.PreTokens, c.PostTokens, len(c.Summary), c.Summary)
	}
	fmt.Fprintf(&b, "cursor: seq %d turn %d window %d calls %d errors %d tasks %d prompt %.60q\n",
		r.Cursor.Seq, r.Cursor.Turn, r.Cursor.Window, len(r.Cursor.Calls), len(r.Cursor.Errors), len(r.Cursor.Tasks), r.Cursor.Prompt)
	b.WriteString("\n")
	for i, c := range r.Chunks {
		fmt.Fprintf(&b, "chunk %d turn %d window %d lines %d-%d %d bytes %s side=%v agent=%q tools=%v files=%v\n",
			c.Seq, c.Turn, c.Window, c.FirstLine, c.LastLine, len(c.Text), c.Hash[:8], c.Sidechain, c.AgentID, c.Tools, c.Files)
		if i < fullChunks {
			fmt.Fprintf(&b, "  start %s end %s\n", c.Start.Format("15:04:05"), c.End.Format("15:04:05"))
			fmt.Fprintf(&b, "  prompt: %q\n  summary: %q\n  commands: %q\n  errors: %q\n", c.Prompt, c.Summary, c.Commands, c.Errors)
			for line := range strings.Lines(c.Text) {
				b.WriteString("  | " + line)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	for _, it := range r.Items {
		if !allItems && slices.Contains([]carryover.ItemKind{carryover.KindCommand, carryover.KindFileEdit, carryover.KindTodo}, it.Kind) {
			continue
		}
		fmt.Fprintf(&b, "item %s chunk %d line %d turn %d window %d weight %.2f resolved=%v\n  text: %.300q\n  detail: %.200q\n  key: %.120q\n",
			it.Kind, it.ChunkSeq, it.Line, it.Turn, it.Window, it.Weight, it.Resolved, it.Text, it.Detail, it.Key)
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./chunk -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run go test ./chunk -update after checking the change):\n%s", name, path, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w, g)
		}
	}
	return ""
}

// TestGoldenSample chunks the small synthetic transcript shipped in
// testdata, so the package is covered without the shared data.
func TestGoldenSample(t *testing.T) {
	es := readEntries(t, filepath.Join("testdata", "sample.jsonl"))
	r := chunk.Build("sample", projectOf(es), es, chunk.NewCursor(), chunk.Options{})
	checkGolden(t, "sample", describe(r, len(r.Chunks), true))
}

// TestGoldenSpotter chunks each real spotter session (and its subagents).
func TestGoldenSpotter(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "data", "transcripts", "spotter")
	mains, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(mains) == 0 {
		t.Fatalf("no spotter transcripts in %s: %v", dir, err)
	}
	for _, m := range mains {
		id := strings.TrimSuffix(filepath.Base(m), ".jsonl")
		t.Run(id[:8], func(t *testing.T) {
			es := readEntries(t, m)
			r := chunk.Build(id, projectOf(es), es, chunk.NewCursor(), chunk.Options{})
			got := describe(r, 3, false)
			agents, _ := filepath.Glob(filepath.Join(dir, id, "subagents", "agent-*.jsonl"))
			for _, a := range agents {
				aes := readEntries(t, a)
				ar := chunk.Build(id, projectOf(es), aes, chunk.NewCursor(), chunk.Options{})
				got += "\n== " + filepath.Base(a) + "\n" + describe(ar, 1, false)
			}
			checkGolden(t, "spotter-"+id[:8], got)
		})
	}
}
