package passage_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/passage"
)

func line(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func result(t *testing.T, content any, extra map[string]any) []byte {
	v := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "tu_1", "content": content}}}}
	for k, x := range extra {
		v[k] = x
	}
	return line(t, v)
}

func TestTextTakesMessagesAndResultsOnly(t *testing.T) {
	raw := result(t, []any{map[string]any{"type": "text", "text": "first block"}, map[string]any{"type": "image"}, map[string]any{"type": "text", "text": "second block"}},
		map[string]any{"toolUseResult": map[string]any{"originalFile": "the whole file ORIGINAL_ONLY"}})
	if got := passage.Text(raw); got != "first block\nsecond block" {
		t.Errorf("Text = %q", got)
	}
	asst := line(t, map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
		map[string]any{"type": "thinking", "thinking": "hidden"},
		map[string]any{"type": "text", "text": "the answer"},
		map[string]any{"type": "tool_use", "name": "Edit", "input": map[string]any{"new_string": "INPUT_ONLY"}}}}})
	if got := passage.Text(asst); got != "the answer" {
		t.Errorf("assistant Text = %q", got)
	}
	for _, raw := range [][]byte{nil, []byte("not json"), []byte(`{"type":"summary","summary":"x","message":1}`), line(t, map[string]any{"type": "user", "message": map[string]any{"content": "plain prompt"}})} {
		got := passage.Text(raw)
		if got != "" && got != "plain prompt" {
			t.Errorf("Text(%q) = %q", raw, got)
		}
	}
}

func TestCutNumbersLines(t *testing.T) {
	var ls []string
	for i := 1; i <= 100; i++ {
		ls = append(ls, strings.Repeat("x", i%7)+"line")
	}
	ls[60] = "KEY=42"
	ps := passage.Cut(9, strings.Join(ls, "\n"))
	if len(ps) < 100/passage.Lines {
		t.Fatalf("%d passages", len(ps))
	}
	next := 1
	for i, p := range ps {
		if p.Line != 9 || p.Part != i || p.From != next || p.To < p.From || p.To-p.From >= passage.Lines {
			t.Fatalf("passage %d: %+v", i, p)
		}
		if got := strings.Join(ls[p.From-1:p.To], "\n"); got != p.Text {
			t.Fatalf("passage %d text is not lines %d-%d", i, p.From, p.To)
		}
		if strings.Contains(p.Text, "KEY=42") && (p.From > 61 || p.To < 61) {
			t.Errorf("KEY=42 in passage of lines %d-%d", p.From, p.To)
		}
		next = p.To + 1
	}
	if next != 101 {
		t.Errorf("passages end at line %d", next-1)
	}
}

// TestBadInput: a 5 MB single line, binary output, a 20 MB result and
// Chinese text are cut into bounded, valid passages.
func TestBadInput(t *testing.T) {
	// Past MaxTextBytes a line is not indexed: the needle lies before.
	oneLine := strings.Repeat("abcdefgh ", 3<<20/9) + "NEEDLE_DEEP " + strings.Repeat("abcdefgh ", 2<<20/9)
	ps := passage.Split(3, result(t, oneLine, nil))
	if len(ps) < 2000 {
		t.Errorf("a 5 MB line: %d passages", len(ps))
	}
	for _, p := range ps {
		if len(p.Text) > passage.MaxBytes || p.From != 1 || p.To != 1 || !utf8.ValidString(p.Text) {
			t.Fatalf("a 5 MB line: passage %d of %d bytes, lines %d-%d", p.Part, len(p.Text), p.From, p.To)
		}
	}
	found := 0
	for _, p := range ps {
		found += strings.Count(p.Text, "NEEDLE_DEEP")
	}
	if found != 1 {
		t.Errorf("the needle 3 MB into the line is in %d passages", found)
	}

	bin := string([]byte{0, 1, 2, 0xff, 0xfe, '\n', 0x80, 'o', 'k'})
	for _, p := range passage.Cut(1, bin) {
		if !utf8.ValidString(p.Text) {
			t.Errorf("binary: invalid UTF-8 passage %q", p.Text)
		}
	}

	huge := strings.Repeat("0123456789abcdef\n", 20<<20/17)
	ps = passage.Split(4, result(t, huge, nil))
	total := 0
	for _, p := range ps {
		total += len(p.Text) + 1
	}
	if total > passage.MaxTextBytes+passage.Lines {
		t.Errorf("a 20 MB result: %d bytes indexed, over %d", total, passage.MaxTextBytes)
	}

	zh := strings.Repeat("信息：第一批数据已处理，耗时十二毫秒。", 400)
	for _, p := range passage.Cut(5, zh) {
		if !utf8.ValidString(p.Text) || len(p.Text) > passage.MaxBytes {
			t.Fatalf("Chinese: passage of %d bytes, valid %v", len(p.Text), utf8.ValidString(p.Text))
		}
	}
	if idx := passage.Index(passage.Passage{Text: "首次全量同步"}); !strings.Contains(idx, "全量") {
		t.Errorf("Index lacks the bigrams: %q", idx)
	}
}
