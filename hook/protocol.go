// Package hook is Claude Code's hook protocol: event names, the JSON payload
// a hook reads on stdin, and the JSON a hook writes on stdout.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Event is a hook event, in Claude Code's spelling.
type Event string

// Events carryover handles.
const (
	SessionStart     Event = "SessionStart"
	UserPromptSubmit Event = "UserPromptSubmit"
	PreCompact       Event = "PreCompact"
	PostCompact      Event = "PostCompact"
	Stop             Event = "Stop"
	SessionEnd       Event = "SessionEnd"
	PostToolUse      Event = "PostToolUse"
	// PostToolUseFailure runs instead of PostToolUse after a tool call
	// that failed (a Bash command's non-zero exit, a tool's error).
	PostToolUseFailure Event = "PostToolUseFailure"
)

// Events lists every event carryover handles, in lifecycle order.
var Events = []Event{SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, PreCompact, PostCompact, SessionEnd}

// ParseEvent accepts an event in Claude Code's spelling (PreCompact) or in
// carryover's command-line spelling (pre-compact), case-insensitively.
func ParseEvent(s string) (Event, bool) {
	norm := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s))
	for _, e := range Events {
		if strings.ToLower(string(e)) == norm {
			return e, true
		}
	}
	return "", false
}

// Arg is the event's command-line spelling: PreCompact → pre-compact.
func (e Event) Arg() string {
	var b strings.Builder
	for i, r := range string(e) {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// MaxInput caps the payload read from stdin. Real payloads are a few KB;
// PostToolUse can carry a whole file, so leave room.
const MaxInput = 4 << 20

// ErrTooLarge means the payload exceeded MaxInput.
var ErrTooLarge = errors.New("hook payload too large")

// Input is the payload of any event; fields of other events stay empty.
// Unknown fields are ignored: new ones appear between Claude Code versions.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PromptID       string `json:"prompt_id"`

	Source             string          `json:"source"`              // SessionStart: startup|resume|compact|clear
	Prompt             string          `json:"prompt"`              // UserPromptSubmit
	Trigger            string          `json:"trigger"`             // PreCompact/PostCompact: manual|auto
	CustomInstructions *string         `json:"custom_instructions"` // PreCompact
	CompactSummary     string          `json:"compact_summary"`     // PostCompact
	Reason             string          `json:"reason"`              // SessionEnd
	ToolName           string          `json:"tool_name"`           // PostToolUse, PostToolUseFailure
	ToolInput          json.RawMessage `json:"tool_input"`          // an object, normally; anything is accepted
	ToolResponse       json.RawMessage `json:"tool_response"`       // PostToolUse
	ToolUseID          string          `json:"tool_use_id"`
	// Error is a failed call's error text (PostToolUseFailure): for Bash
	// "Exit code N\n" and the output. It can be megabytes; readers cap
	// what they look at.
	Error       string `json:"error"`
	IsInterrupt bool   `json:"is_interrupt"` // PostToolUseFailure: the user interrupted the call
	// AgentID is set when the event fires inside a subagent; SessionID is
	// then the parent session's.
	AgentID string `json:"agent_id"`
}

// Decode reads one JSON object of at most MaxInput bytes.
func Decode(r io.Reader) (Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return Input{}, fmt.Errorf("read payload: %w", err)
	}
	if len(data) > MaxInput {
		return Input{}, ErrTooLarge
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return Input{}, errors.New("empty payload")
	}
	var in Input
	if err := json.Unmarshal(data, &in); err != nil {
		return Input{}, fmt.Errorf("decode payload: %w", err)
	}
	return in, nil
}

type specificOutput struct {
	HookEventName     Event  `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// WriteContext writes the JSON that adds text to the model's context, for
// SessionStart, UserPromptSubmit, PostToolUse and PostToolUseFailure.
// Nothing is written for an empty text.
func WriteContext(w io.Writer, e Event, text string) error {
	if text == "" {
		return nil
	}
	out := struct {
		HookSpecificOutput specificOutput `json:"hookSpecificOutput"`
	}{specificOutput{HookEventName: e, AdditionalContext: text}}
	data, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	data = append(data, '\n')
	_, err = w.Write(data)
	return err
}
