package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/carryover-dev/carryover/transcript"
)

// ReadLines reads a transcript as lines.
func ReadLines(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	return transcript.SplitLines(data), nil
}

// Point is where a compaction happens in a transcript's lines:
// lines[:Boundary] are written when PreCompact runs, lines[:Summary] when
// SessionStart(compact) runs. For a real compaction, lines[Boundary] is the
// compact_boundary line B and lines[Summary-1] the summary S after it; a
// simulated cut has neither (Summary == Boundary).
type Point struct {
	Boundary int
	Summary  int
}

// Cut is a simulated compaction after the first n lines: no boundary, no
// summary.
func Cut(n int) Point { return Point{Boundary: n, Summary: n} }

// Compactions returns the transcript's real compactions in order: each
// compact_boundary line and the summary line after it (the boundary alone
// when no summary follows it before the next boundary).
func Compactions(lines [][]byte) []Point {
	var out []Point
	for i, l := range lines {
		e, err := transcript.Decode(bytes.TrimSpace(l))
		if err != nil {
			continue
		}
		switch {
		case e.IsCompactBoundary():
			out = append(out, Point{Boundary: i, Summary: i + 1})
		case e.CompactSummary && len(out) > 0:
			out[len(out)-1].Summary = i + 1
		}
	}
	return out
}

// Prompt is a real prompt of a transcript.
type Prompt struct {
	Line int // index in the transcript's lines
	Text string
}

// UserPrompts lists a transcript's real user prompts, without slash
// commands and command output: Claude Code writes those, and no
// UserPromptSubmit carries them.
func UserPrompts(lines [][]byte) []Prompt {
	var out []Prompt
	for i, l := range lines {
		e, err := transcript.Decode(bytes.TrimSpace(l))
		if err != nil || !e.IsUserPrompt() {
			continue
		}
		text := strings.TrimSpace(e.Text())
		if text == "" || strings.HasPrefix(text, "<") || strings.HasPrefix(text, "/") ||
			strings.HasPrefix(text, "Caveat:") || strings.HasPrefix(text, "[Request interrupted") {
			continue
		}
		out = append(out, Prompt{Line: i, Text: text})
	}
	return out
}

// lineMeta is what a hook payload takes from the transcript: Claude Code
// sends its current directory, the prompt's id and the model.
type lineMeta struct {
	Cwd            string `json:"cwd"`
	PromptID       string `json:"promptId"`
	PermissionMode string `json:"permissionMode"`
	Timestamp      string `json:"timestamp"`
	UUID           string `json:"uuid"`
	SessionID      string `json:"sessionId"`
	Version        string `json:"version"`
	Type           string `json:"type"`
	Message        struct {
		Model string `json:"model"`
	} `json:"message"`
}

// merge keeps the latest value of each field.
func (m *lineMeta) merge(line []byte) {
	var l lineMeta
	if json.Unmarshal(bytes.TrimSpace(line), &l) != nil {
		return
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&m.Cwd, l.Cwd)
	set(&m.PromptID, l.PromptID)
	set(&m.PermissionMode, l.PermissionMode)
	set(&m.Timestamp, l.Timestamp)
	set(&m.UUID, l.UUID)
	set(&m.SessionID, l.SessionID)
	set(&m.Version, l.Version)
	if l.Type == "assistant" {
		set(&m.Message.Model, l.Message.Model)
	}
}

// SimulatedBoundary returns a compact_boundary line as Claude Code would
// write it after lines (automatic trigger, no summary): appended to them,
// it starts a new context window, so what came before is an earlier
// window that recall searches.
func SimulatedBoundary(lines [][]byte) []byte {
	var m lineMeta
	for _, l := range lines {
		m.merge(l)
	}
	h := sha256.Sum256(fmt.Appendf(nil, "boundary %s %d %s", m.SessionID, len(lines), m.UUID))
	x := hex.EncodeToString(h[:16])
	line, _ := json.Marshal(map[string]any{
		"parentUuid": nil, "logicalParentUuid": m.UUID, "isSidechain": false, "type": "system",
		"subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": false, "level": "info",
		"timestamp": m.Timestamp, "uuid": x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32],
		"cwd": m.Cwd, "sessionId": m.SessionID, "version": m.Version,
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 0},
	})
	return append(line, '\n')
}
