package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// wire mirrors the JSON of a line. Only what carryover uses is decoded;
// message and toolUseResult stay raw until needed.
type wire struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	ParentUUID       *string         `json:"parentUuid"`
	SessionID        string          `json:"sessionId"`
	AgentID          string          `json:"agentId"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	Version          string          `json:"version"`
	GitBranch        string          `json:"gitBranch"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	TranscriptOnly   bool            `json:"isVisibleInTranscriptOnly"`
	Message          json.RawMessage `json:"message"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`
	Content          json.RawMessage `json:"content"`
	Summary          string          `json:"summary"`
	Operation        string          `json:"operation"` // a queue-operation's
	Data             *struct {
		Type string `json:"type"`
	} `json:"data"`
	Attachment *struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	} `json:"attachment"`
	CompactMetadata *struct {
		Trigger    string `json:"trigger"`
		PreTokens  int    `json:"preTokens"`
		PostTokens int    `json:"postTokens"`
	} `json:"compactMetadata"`
}

type wireMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Decode parses one transcript line. Invalid UTF-8 is replaced, not
// rejected; a line that is not a JSON object is an error.
func Decode(line []byte) (Entry, error) {
	if !utf8.Valid(line) {
		line = []byte(strings.ToValidUTF8(string(line), "\uFFFD"))
	}
	if e, ok := decodeFast(line); ok {
		return e, nil
	}
	return decodeStd(line)
}

// decodeStd decodes a valid UTF-8 line with encoding/json: the reference
// decodeFast must agree with, and the decoder of the lines it leaves.
func decodeStd(line []byte) (Entry, error) {
	var w wire
	if err := json.Unmarshal(line, &w); err != nil {
		return Entry{}, fmt.Errorf("decode line: %w", err)
	}
	e := Entry{
		Type:           w.Type,
		Subtype:        w.Subtype,
		UUID:           w.UUID,
		SessionID:      w.SessionID,
		AgentID:        w.AgentID,
		Cwd:            w.Cwd,
		Version:        w.Version,
		GitBranch:      w.GitBranch,
		Sidechain:      w.IsSidechain,
		Meta:           w.IsMeta,
		CompactSummary: w.IsCompactSummary,
		TranscriptOnly: w.TranscriptOnly,
		ToolUseResult:  w.ToolUseResult,
	}
	if w.ParentUUID != nil {
		e.Parent = *w.ParentUUID
	}
	if w.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, w.Timestamp); err == nil {
			e.Time = t
		}
	}
	switch w.Type {
	case "user", "assistant":
		if len(w.Message) > 0 {
			var m wireMessage
			if err := json.Unmarshal(w.Message, &m); err == nil {
				if w.Type == "assistant" {
					e.MessageID = m.ID
				}
				e.Blocks = decodeContent(m.Content)
			}
		}
	case "system":
		e.Content = rawString(w.Content)
		if w.CompactMetadata != nil {
			e.Compact = &CompactMeta{Trigger: w.CompactMetadata.Trigger, PreTokens: w.CompactMetadata.PreTokens, PostTokens: w.CompactMetadata.PostTokens}
		} else if w.Subtype == "compact_boundary" {
			e.Compact = &CompactMeta{}
		}
	case "progress":
		if w.Data != nil {
			e.Subtype = w.Data.Type
		}
	case "attachment":
		if w.Attachment != nil {
			e.Subtype = w.Attachment.Type
			e.Content = flattenText(w.Attachment.Content)
		}
	case "summary":
		e.Content = w.Summary
	case "queue-operation":
		e.Content = rawString(w.Content)
		if e.Subtype == "" {
			e.Subtype = w.Operation
		}
	}
	return e, nil
}

// decodeContent turns message content (a string or a block list) into blocks.
func decodeContent(raw json.RawMessage) []Block {
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []Block{{Type: "text", Text: s}}
		}
		return nil
	}
	var wbs []wireBlock
	if json.Unmarshal(raw, &wbs) != nil {
		return nil
	}
	bs := make([]Block, 0, len(wbs))
	for _, wb := range wbs {
		b := Block{Type: wb.Type, ID: wb.ID, Name: wb.Name, Input: wb.Input, ToolUseID: wb.ToolUseID, IsError: wb.IsError}
		switch wb.Type {
		case "text":
			b.Text = wb.Text
		case "thinking":
			b.Text = wb.Thinking
		case "tool_result":
			b.Text = flattenText(wb.Content)
		}
		bs = append(bs, b)
	}
	return bs
}

// flattenText renders a string or a list of {type:"text",text} parts (or
// plain strings) as text; images and other parts are dropped.
func flattenText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	case '[':
		var parts []json.RawMessage
		if json.Unmarshal(raw, &parts) != nil {
			return ""
		}
		var out []string
		for _, p := range parts {
			if len(p) > 0 && p[0] == '"' {
				var s string
				_ = json.Unmarshal(p, &s)
				out = append(out, s)
				continue
			}
			var tb struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if json.Unmarshal(p, &tb) == nil && tb.Type == "text" {
				out = append(out, tb.Text)
			}
		}
		return strings.Join(out, "\n")
	}
	return ""
}

func rawString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
