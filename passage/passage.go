// Package passage cuts the text of a transcript's raw lines into passages:
// windows of lines of every message text and tool result, whole, with the
// transcript line that holds them. Chunks keep a rendered, shortened copy
// of a turn; the passages let search find a line deep in a long tool
// result (a config dump, a test log) that no chunk kept, and show it.
//
// Passages are not stored as text: a store indexes them (Index) and, to
// show one, reads its raw line back and cuts it again (Split is
// deterministic), so the text is kept once, compressed, in the raw archive.
package passage

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/internal/tokenize"
)

const (
	// Lines is the most text lines one passage holds.
	Lines = 24
	// MaxBytes is the most bytes one passage holds: a longer line is
	// cut into pieces of about this size (a minified file, a 5 MB line).
	MaxBytes = 2048
	// MaxTextBytes bounds the text of one transcript line that is
	// indexed: what lies past it (a 20 MB dump's tail) is not searchable,
	// to bound a hook's work and the store's growth.
	MaxTextBytes = 4 << 20
)

// Passage is a window of the text of one transcript line.
type Passage struct {
	Line int // the transcript line (1-based)
	Part int // its index among the line's passages, from 0
	// From and To are the first and last text line it holds, 1-based,
	// counted over the line's text (its texts joined by newlines).
	From, To int
	Text     string
}

// entry is what Split reads of a transcript line: its message's content
// only (not Claude Code's toolUseResult, which repeats files whole).
type entry struct {
	Type    string `json:"type"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type block struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

// Text returns the searchable text of a raw transcript line: its message
// text and tool results, joined by newlines, at most MaxTextBytes. A line
// that is not a user or assistant message (or not JSON) has none.
func Text(raw []byte) string {
	if !bytes.Contains(raw, []byte(`"message"`)) {
		return ""
	}
	var e entry
	if json.Unmarshal(raw, &e) != nil || e.Type != "user" && e.Type != "assistant" || len(e.Message.Content) == 0 {
		return ""
	}
	var b strings.Builder
	add := func(s string) {
		if strings.TrimSpace(s) == "" || b.Len() >= MaxTextBytes {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	var s string
	if json.Unmarshal(e.Message.Content, &s) == nil {
		add(s)
	} else {
		var blocks []block
		if json.Unmarshal(e.Message.Content, &blocks) != nil {
			return ""
		}
		for _, bl := range blocks {
			switch bl.Type {
			case "text":
				add(bl.Text)
			case "tool_result":
				addContent(bl.Content, add)
			}
		}
	}
	t := b.String()
	if len(t) > MaxTextBytes {
		k := MaxTextBytes
		for k > 0 && !utf8.RuneStart(t[k]) {
			k--
		}
		t = t[:k]
	}
	return t
}

// addContent adds a tool result's content: a string, or blocks of text.
func addContent(c json.RawMessage, add func(string)) {
	if len(c) == 0 {
		return
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		add(s)
		return
	}
	var blocks []block
	if json.Unmarshal(c, &blocks) != nil {
		return
	}
	for _, bl := range blocks {
		if bl.Type == "text" {
			add(bl.Text)
		}
	}
}

// Split cuts the text of raw transcript line number line into passages.
func Split(line int, raw []byte) []Passage {
	return Cut(line, Text(raw))
}

// Cut cuts a line's text into passages of at most Lines lines and about
// MaxBytes bytes; a longer text line is cut at a rune boundary into
// pieces, each its own passage, numbered as its line.
func Cut(line int, text string) []Passage {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	var out []Passage
	var cur strings.Builder
	from, n := 0, 0
	flush := func(to int) {
		if strings.TrimSpace(cur.String()) != "" {
			out = append(out, Passage{Line: line, Part: len(out), From: from, To: to, Text: cur.String()})
		}
		cur.Reset()
		n = 0
	}
	num := 0
	for rest := text; ; {
		num++
		l, tail, more := strings.Cut(rest, "\n")
		if len(l) > MaxBytes {
			if n > 0 {
				flush(num - 1)
			}
			for len(l) > 0 {
				k := min(len(l), MaxBytes)
				if k < len(l) {
					// At a space when one is near, so that no word is
					// cut in two and lost to the index.
					if sp := strings.LastIndexAny(l[k-256:k], " \t,;"); sp >= 0 {
						k = k - 256 + sp + 1
					}
				}
				for k < len(l) && !utf8.RuneStart(l[k]) {
					k--
				}
				from = num
				cur.WriteString(l[:k])
				flush(num)
				l = l[k:]
			}
		} else {
			if n > 0 && (n >= Lines || cur.Len()+len(l) > MaxBytes) {
				flush(num - 1)
			}
			if n == 0 {
				from = num
			} else {
				cur.WriteByte('\n')
			}
			cur.WriteString(l)
			n++
		}
		if !more {
			break
		}
		rest = tail
	}
	if n > 0 {
		flush(num)
	}
	return out
}

// Index returns what a full-text index holds for a passage: its text and
// the extra terms of its identifiers and Chinese or Japanese runs
// (tokenize.IndexTerms), as the chunks' index holds them.
func Index(p Passage) string {
	terms := tokenize.IndexTerms(p.Text)
	if terms == "" {
		return p.Text
	}
	return p.Text + "\n" + terms
}
