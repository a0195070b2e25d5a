package chunk_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/chunk"
	"github.com/carryover-dev/carryover/transcript"
)

// checkInvariants verifies what every Result must hold.
func checkInvariants(t *testing.T, r chunk.Result, opt chunk.Options) {
	t.Helper()
	seen := map[string]bool{}
	for i, c := range r.Chunks {
		if c.Seq != r.Chunks[0].Seq+i {
			t.Errorf("chunk %d has Seq %d", i, c.Seq)
		}
		if len(c.Text) > opt.MaxChars || c.Text == "" {
			t.Errorf("chunk %d: %d bytes of text (max %d)", c.Seq, len(c.Text), opt.MaxChars)
		}
		if len(c.Summary) > 300 {
			t.Errorf("chunk %d: summary of %d bytes", c.Seq, len(c.Summary))
		}
		if len(c.Prompt) > 300 {
			t.Errorf("chunk %d: prompt of %d bytes", c.Seq, len(c.Prompt))
		}
		if c.FirstLine < 1 || c.LastLine < c.FirstLine {
			t.Errorf("chunk %d: lines %d-%d", c.Seq, c.FirstLine, c.LastLine)
		}
		if len(c.Hash) != 32 || seen[c.Hash] {
			t.Errorf("chunk %d: bad or duplicate hash %q", c.Seq, c.Hash)
		}
		seen[c.Hash] = true
		if i > 0 && !c.Sidechain && !r.Chunks[i-1].Sidechain && (c.Turn < r.Chunks[i-1].Turn || c.Window < r.Chunks[i-1].Window) {
			t.Errorf("chunk %d goes back in turn or window", c.Seq)
		}
		for _, e := range c.Errors {
			if len(e) > 300 {
				t.Errorf("chunk %d: error text of %d bytes", c.Seq, len(e))
			}
		}
	}
	first := 0
	if len(r.Chunks) > 0 {
		first = r.Chunks[0].Seq
	}
	for _, it := range r.Items {
		if it.ChunkSeq < first || it.ChunkSeq >= first+len(r.Chunks) {
			t.Errorf("item %s %q points to chunk %d outside the result", it.Kind, it.Text, it.ChunkSeq)
		}
		if it.Key == "" || it.Weight <= 0 {
			t.Errorf("item %s %q: key %q weight %v", it.Kind, it.Text, it.Key, it.Weight)
		}
	}
	if len(r.Title) > 120 || strings.Contains(r.Title, "\n") {
		t.Errorf("title %q", r.Title)
	}
}

func TestInvariantsOnRealTranscripts(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "data", "transcripts")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.jsonl"))
	subs, _ := filepath.Glob(filepath.Join(dir, "*", "*", "subagents", "*.jsonl"))
	files = append(append(files, more...), subs...)
	if len(files) < 5 {
		t.Fatalf("only %d transcripts under %s", len(files), dir)
	}
	for _, opt := range []chunk.Options{{TargetChars: 1000, MaxChars: 1600}, {TargetChars: 300, MaxChars: 400}} {
		for _, f := range files {
			es := readEntries(t, f)
			r := chunk.Build("s", projectOf(es), es, chunk.NewCursor(), opt)
			checkInvariants(t, r, opt)
			if len(r.Chunks) == 0 && len(es) > 20 && !strings.Contains(f, "acompact") {
				t.Errorf("%s: no chunks from %d entries", f, len(es))
			}
		}
	}
}

func TestRobust(t *testing.T) {
	huge := strings.Repeat("x", 3<<20)
	manyLines := strings.Repeat("line of output\n", 100000)
	tests := map[string][]transcript.Entry{
		"empty":     nil,
		"no blocks": {{Line: 1, Type: "user"}, {Line: 2, Type: "assistant", MessageID: "m"}, {Line: 3, Type: "system"}},
		"unknown":   {{Line: 1, Type: "mode"}, {Line: 2, Type: "last-prompt", Content: "hi"}, {Line: 3, Type: "summary", Content: "t"}},
		"orphan result": {{Line: 1, Type: "user", Blocks: []transcript.Block{
			{Type: "tool_result", ToolUseID: "nope", Text: "output", IsError: true}}}},
		"bad input": {{Line: 1, Type: "assistant", MessageID: "m", Blocks: []transcript.Block{
			{Type: "tool_use", ID: "a", Name: "Bash", Input: json.RawMessage(`{"command": [1,2`)},
			{Type: "tool_use", ID: "b", Name: "Edit", Input: json.RawMessage(`"just a string"`)},
			{Type: "tool_use", ID: "c", Name: "Mystery", Input: json.RawMessage(`{"a":{"b":["x",{"c":"y"}]},"n":1}`)},
			{Type: "tool_use", ID: "d", Name: "TaskUpdate", Input: json.RawMessage(`{"taskId":5,"status":7}`)}}},
			{Line: 2, Type: "user", Blocks: []transcript.Block{{Type: "tool_result", ToolUseID: "a", Text: "Exit code x\n"}}}},
		"huge": {{Line: 1, Type: "user", Blocks: []transcript.Block{{Type: "text", Text: huge}}},
			{Line: 2, Type: "assistant", MessageID: "m", Blocks: []transcript.Block{{Type: "text", Text: huge},
				{Type: "tool_use", ID: "a", Name: "Bash", Input: json.RawMessage(`{"command":"` + huge + `"}`)}}},
			{Line: 3, Type: "user", Blocks: []transcript.Block{{Type: "tool_result", ToolUseID: "a", Text: manyLines, IsError: true}}}},
		"summary without boundary":  {{Line: 1, Type: "user", CompactSummary: true, Blocks: []transcript.Block{{Type: "text", Text: "s"}}}},
		"boundary without metadata": {{Line: 1, Type: "system", Subtype: "compact_boundary"}},
		"invalid utf8 cut":          {{Line: 1, Type: "user", Blocks: []transcript.Block{{Type: "text", Text: strings.Repeat("é", 5000)}}}},
	}
	opt := chunk.Options{TargetChars: 1000, MaxChars: 1600}
	for name, es := range tests {
		t.Run(name, func(t *testing.T) {
			r := chunk.Build("s", "", es, chunk.NewCursor(), chunk.Options{})
			checkInvariants(t, r, opt)
			for _, c := range r.Chunks {
				if !utf8.ValidString(c.Text) {
					t.Errorf("chunk %d: invalid UTF-8 after cutting", c.Seq)
				}
			}
			if _, err := json.Marshal(r.Cursor); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestTitleAndTurns(t *testing.T) {
	es := lines(t,
		"user:<local-command-stdout>x</local-command-stdout>",
		"user:First line of the task\nmore detail",
		"asst:m1:ok",
		"user:[Request interrupted by user]",
		"user:second prompt")
	r := chunk.Build("s", "", es, chunk.NewCursor(), chunk.Options{})
	if r.Title != "First line of the task" {
		t.Errorf("title %q", r.Title)
	}
	if r.Cursor.Turn != 1 || r.Cursor.Prompt != "second prompt" {
		t.Errorf("cursor %+v", r.Cursor)
	}
	// A later batch does not retitle the session.
	r2 := chunk.Build("s", "", lines(t, "user:third"), r.Cursor, chunk.Options{})
	if r2.Title != "" || r2.Cursor.Turn != 2 {
		t.Errorf("second batch: title %q turn %d", r2.Title, r2.Cursor.Turn)
	}
}

func TestHashDependsOnPosition(t *testing.T) {
	a := lines(t, "user:same prompt")
	b := lines(t, "asst:m0:x", "user:same prompt")[1:] // same text, another uuid
	ra := chunk.Build("s", "", a, chunk.NewCursor(), chunk.Options{})
	rb := chunk.Build("s", "", b, chunk.NewCursor(), chunk.Options{})
	if ra.Chunks[0].Text != rb.Chunks[0].Text || ra.Chunks[0].Hash == rb.Chunks[0].Hash {
		t.Errorf("same text at another place must hash differently: %q %q", ra.Chunks[0].Hash, rb.Chunks[0].Hash)
	}
	again := chunk.Build("s", "", a, chunk.NewCursor(), chunk.Options{})
	if again.Chunks[0].Hash != ra.Chunks[0].Hash {
		t.Error("re-ingesting the same lines must give the same hash")
	}
}

func BenchmarkBuild(b *testing.B) {
	path := filepath.Join(sharedDir(b), "data", "transcripts", "spotter", "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl")
	es := readEntries(b, path)
	project := projectOf(es)
	b.ReportAllocs()
	for b.Loop() {
		chunk.Build("fa812bfe", project, es, chunk.NewCursor(), chunk.Options{})
	}
}
