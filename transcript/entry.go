// Package transcript reads Claude Code session transcripts (.jsonl): one JSON
// object per line, append-only, with lines of any length and a possibly torn
// last line while Claude Code is writing.
package transcript

import (
	"encoding/json"
	"strings"
	"time"
)

// Entry is one transcript line, decoded into the fields carryover uses.
// Unknown types and fields are kept as Type/Subtype only.
type Entry struct {
	Line   int   // 1-based line number
	Offset int64 // byte offset of the line start
	Size   int   // bytes including the newline

	Type      string // user, assistant, system, progress, attachment, summary, queue-operation, ...
	Subtype   string // system subtype, progress data.type, attachment type or queue operation
	UUID      string
	Parent    string
	SessionID string
	AgentID   string
	Time      time.Time
	Cwd       string
	Version   string
	GitBranch string

	Sidechain      bool
	Meta           bool // isMeta: injected caveats and command wrappers
	CompactSummary bool // isCompactSummary: the kept summary after a compaction
	TranscriptOnly bool // isVisibleInTranscriptOnly

	MessageID string  // assistant: API message id (shared by the lines of one response)
	Blocks    []Block // user/assistant content; a string content becomes one text block
	// ToolUseResult is the structured tool result of a user tool_result line.
	ToolUseResult json.RawMessage

	Compact *CompactMeta // system/compact_boundary

	Content string // system content, summary title, queue-operation content, attachment hook context
}

// CompactMeta is the compactMetadata of a compact_boundary line.
type CompactMeta struct {
	Trigger    string
	PreTokens  int
	PostTokens int
}

// Block is one content block of a message.
type Block struct {
	Type      string // text, thinking, tool_use, tool_result, image, ...
	Text      string // text, thinking, or a tool_result's text content
	ID        string // tool_use id
	Name      string // tool_use name
	Input     json.RawMessage
	ToolUseID string // tool_result: the tool_use it answers
	IsError   bool
}

// IsUserPrompt reports whether e is a real prompt typed by the user (or sent
// by the SDK): a user line with text and no tool results, not meta, not a
// compaction summary, not in a sidechain.
func (e *Entry) IsUserPrompt() bool {
	if e.Type != "user" || e.Meta || e.CompactSummary || e.Sidechain {
		return false
	}
	hasText := false
	for _, b := range e.Blocks {
		switch b.Type {
		case "tool_result":
			return false
		case "text":
			if strings.TrimSpace(b.Text) != "" {
				hasText = true
			}
		}
	}
	return hasText
}

// Text joins the entry's text blocks.
func (e *Entry) Text() string {
	var parts []string
	for _, b := range e.Blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// IsCompactBoundary reports whether e is a system/compact_boundary line.
func (e *Entry) IsCompactBoundary() bool {
	return e.Type == "system" && e.Subtype == "compact_boundary"
}
