package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// compactionMarker is the sentence of Claude Code's summary prompt that
// identifies a compaction request.
const compactionMarker = "Your task is to create a detailed summary of the conversation so far"

// fakeSummary starts every summary the fake writes. It never repeats the
// conversation, so a fact found after a compaction came from somewhere else.
const fakeSummary = "FAKE-SUMMARY"

const (
	normalInputTokens = 1200
	// bigInputTokens is reported for a [[BIG]] turn: above the threshold of
	// the 100000-token window the auto-compaction tests configure.
	bigInputTokens = 190000
)

// writeMarker asks the fake for one Write tool call: [[WRITE path text]]
// writes text (one line) to path, relative to the project.
var writeMarker = regexp.MustCompile(`\[\[WRITE (\S+) (.+?)\]\]`)

// mcpMarker asks the fake for one call of a tool of carryover's MCP
// server: [[MCP tool words]] calls mcp__carryover__<tool> with the input
// {"query": words}.
var mcpMarker = regexp.MustCompile(`\[\[MCP (\w+) (.+?)\]\]`)

// mcpToolPrefix is how Claude Code names the tools of an MCP server
// registered as "carryover".
const mcpToolPrefix = "mcp__carryover__"

// bigMarker asks for a reply reporting a huge usage.input_tokens:
// [[BIG]] for bigInputTokens, [[BIG n]] for n.
var bigMarker = regexp.MustCompile(`\[\[BIG(?: ([0-9]+))?\]\]`)

// fakeAPI is a scripted Anthropic Messages API. Its reply depends on the
// last user message: a compaction request gets a summary, a tool result a
// short text, [[BASH cmd]] a Bash tool call, [[WRITE path text]] and
// [[READ path]] a Write and a Read, [[MCP tool words]] a call of
// carryover's MCP tool, [[BIG]] (or [[BIG n]]) a text with a huge
// usage.input_tokens, anything else a short text. Every request is logged.
type fakeAPI struct {
	srv *httptest.Server
	// dir is the project directory relative tool paths are taken from.
	dir string

	mu   sync.Mutex
	n    int
	reqs []apiRequest
}

// apiRequest is one logged request.
type apiRequest struct {
	N        int
	Method   string
	Path     string
	Body     []byte
	Messages []apiMessage
	Tools    []string // names of the tools offered
	Reply    string   // what the fake answered, for failure messages
	ToolID   string   // the id of the tool_use the fake answered with
	Dir      string   // the project directory, for the file tools' paths
}

type apiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type reply struct {
	text        string
	toolName    string
	toolInput   map[string]any
	inputTokens int
}

func newFakeAPI(t testing.TB) *fakeAPI {
	f := &fakeAPI{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// setDir sets the project directory relative tool paths are taken from.
func (f *fakeAPI) setDir(dir string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dir = dir
}

// URL is the base URL to give Claude Code as ANTHROPIC_BASE_URL.
func (f *fakeAPI) URL() string { return f.srv.URL }

// Messages returns the logged POST /v1/messages requests, oldest first.
func (f *fakeAPI) Messages() []apiRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []apiRequest
	for _, r := range f.reqs {
		if r.Method == http.MethodPost && r.Path == "/v1/messages" {
			out = append(out, r)
		}
	}
	return out
}

// Others returns logged requests other than HEAD / and POST /v1/messages.
func (f *fakeAPI) Others() []apiRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []apiRequest
	for _, r := range f.reqs {
		if !(r.Method == http.MethodPost && r.Path == "/v1/messages") && !(r.Method == http.MethodHead && r.Path == "/") {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := apiRequest{Method: r.Method, Path: r.URL.Path, Body: body}
	if r.Method == http.MethodPost && r.URL.Path == "/v1/messages" {
		f.messages(w, req)
		return
	}
	f.log(&req)
	if r.Method == http.MethodHead && r.URL.Path == "/" {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, `{"type":"error","error":{"type":"not_found_error","message":"fake: not found"}}`)
}

func (f *fakeAPI) log(req *apiRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	req.N = f.n
	f.reqs = append(f.reqs, *req)
}

func (f *fakeAPI) messages(w http.ResponseWriter, req apiRequest) {
	var body struct {
		Model    string       `json:"model"`
		Stream   bool         `json:"stream"`
		Messages []apiMessage `json:"messages"`
		Tools    []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		f.log(&req)
		http.Error(w, "fake: bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	req.Messages = body.Messages
	for _, t := range body.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	// Number the request before choosing the reply, which quotes the number.
	f.mu.Lock()
	f.n++
	req.N, req.Dir = f.n, f.dir
	f.mu.Unlock()
	rp := script(req)
	if rp.toolName != "" {
		in, _ := json.Marshal(rp.toolInput)
		req.Reply = "tool_use " + rp.toolName + " " + string(in)
		req.ToolID = fmt.Sprintf("toolu_fake_%d", req.N)
	} else {
		req.Reply = rp.text
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()

	id := fmt.Sprintf("msg_fake_%d", req.N)
	usage := map[string]int{"input_tokens": rp.inputTokens, "output_tokens": 12,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	block, stop := map[string]any{"type": "text", "text": rp.text}, "end_turn"
	if rp.toolName != "" {
		block = map[string]any{"type": "tool_use", "id": req.ToolID, "name": rp.toolName, "input": rp.toolInput}
		stop = "tool_use"
	}
	if !body.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "type": "message", "role": "assistant",
			"model": body.Model, "content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Request-Id", fmt.Sprintf("req_fake_%d", req.N))
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	startUsage := map[string]int{"input_tokens": rp.inputTokens, "output_tokens": 1,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": body.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": startUsage}})
	if rp.toolName != "" {
		in, _ := json.Marshal(rp.toolInput)
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": rp.toolName, "input": map[string]any{}}})
		event("ping", map[string]any{"type": "ping"})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
	} else {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		event("ping", map[string]any{"type": "ping"})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": rp.text}})
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 12}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// script chooses the reply to a request from its last user message.
func script(req apiRequest) reply {
	last, ok := req.LastUser()
	text := last.Text()
	switch {
	case !ok:
		return reply{text: fmt.Sprintf("FAKE-REPLY %d", req.N), inputTokens: normalInputTokens}
	case strings.Contains(text, compactionMarker):
		return reply{text: fmt.Sprintf("<analysis>fake analysis</analysis>\n<summary>%s #%d: the user asked for a shell command and it ran.</summary>",
			fakeSummary, req.N), inputTokens: normalInputTokens}
	case last.HasToolResult():
		// A prompt with several tool markers gets its calls one after the
		// other, in one turn.
		prompt, done := req.turn()
		if steps := stepMarker.FindAllStringSubmatch(prompt, -1); done < len(steps) {
			return stepCall(req, steps[done])
		}
		return reply{text: "FAKE: tool finished.", inputTokens: normalInputTokens}
	}
	if m := stepMarker.FindStringSubmatch(text); m != nil {
		return stepCall(req, m)
	}
	if m := mcpMarker.FindStringSubmatch(text); m != nil {
		return reply{toolName: mcpToolPrefix + m[1], toolInput: map[string]any{"query": m[2]}, inputTokens: normalInputTokens}
	}
	if m := bigMarker.FindStringSubmatch(text); m != nil {
		tokens := bigInputTokens
		if m[1] != "" {
			tokens, _ = strconv.Atoi(m[1])
		}
		return reply{text: fmt.Sprintf("FAKE-REPLY %d (big usage)", req.N), inputTokens: tokens}
	}
	return reply{text: fmt.Sprintf("FAKE-REPLY %d", req.N), inputTokens: normalInputTokens}
}

// stepMarker is any tool marker a turn can chain: [[BASH cmd]],
// [[WRITE path text]], [[READ path]], and [[AGENT cmd]], a subagent that
// runs cmd.
var stepMarker = regexp.MustCompile(`\[\[(BASH|WRITE|READ|AGENT) (.+?)\]\]`)

// stepCall is the tool call a step marker asks for.
func stepCall(req apiRequest, m []string) reply {
	switch m[1] {
	case "WRITE":
		if w := writeMarker.FindStringSubmatch(m[0]); w != nil {
			return reply{toolName: "Write", toolInput: map[string]any{"file_path": projectPath(req, w[1]), "content": w[2] + "\n"},
				inputTokens: normalInputTokens}
		}
	case "READ":
		return reply{toolName: "Read", toolInput: map[string]any{"file_path": projectPath(req, m[2])}, inputTokens: normalInputTokens}
	case "AGENT":
		// A subagent told to run the command: its own first request asks
		// the fake for the Bash call.
		return reply{toolName: "Agent", toolInput: map[string]any{"description": "Run a command", "subagent_type": "claude",
			"prompt": "please run [[BASH " + m[2] + "]]"}, inputTokens: normalInputTokens}
	}
	return reply{toolName: "Bash", toolInput: map[string]any{"command": m[2], "description": "Run the requested command"},
		inputTokens: normalInputTokens}
}

// turn returns the text of the turn's prompt, the last user message that
// carries no tool result, and how many tool calls the assistant made since.
func (r apiRequest) turn() (prompt string, calls int) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		switch {
		case m.Role == "assistant":
			for _, b := range m.blocks() {
				if b.Type == "tool_use" {
					calls++
				}
			}
		case m.Role == "user" && !m.HasToolResult():
			return m.Text(), calls
		}
	}
	return "", calls
}

// projectPath makes a path absolute in the project directory: the file
// tools take absolute paths.
func projectPath(req apiRequest, p string) string {
	if strings.HasPrefix(p, "/") || req.Dir == "" {
		return p
	}
	return req.Dir + "/" + p
}

// LastUser returns the last message with role "user" (hook context comes in
// role "system" messages, which may follow it).
func (r apiRequest) LastUser() (apiMessage, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i], true
		}
	}
	return apiMessage{}, false
}

// IsCompaction reports whether the request asks for a compaction summary.
func (r apiRequest) IsCompaction() bool {
	last, ok := r.LastUser()
	return ok && strings.Contains(last.Text(), compactionMarker)
}

// SystemText joins the role "system" messages of messages[], where Claude
// Code puts hook context (not the top-level system prompt).
func (r apiRequest) SystemText() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Text())
		}
	}
	return strings.Join(parts, "\n")
}

// ConversationText joins the user and assistant messages.
func (r apiRequest) ConversationText() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role != "system" {
			parts = append(parts, m.Text())
		}
	}
	return strings.Join(parts, "\n")
}

// ToolResult returns the text of the tool_result for the tool_use id in
// the request's messages, and whether it is marked as an error.
func (r apiRequest) ToolResult(id string) (text string, isError, ok bool) {
	for _, m := range r.Messages {
		for _, b := range m.blocks() {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return contentText(b.Content), b.IsError, true
			}
		}
	}
	return "", false, false
}

// contentBlock is the subset of a content block the tests read.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
}

func (m apiMessage) blocks() []contentBlock {
	var bs []contentBlock
	if json.Unmarshal(m.Content, &bs) != nil {
		return nil
	}
	return bs
}

// Text is the message's text: a string content, or its text blocks, tool
// inputs and tool results, one per line.
func (m apiMessage) Text() string {
	return contentText(m.Content)
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []contentBlock
	if json.Unmarshal(raw, &bs) != nil {
		return ""
	}
	var parts []string
	for _, b := range bs {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_use":
			parts = append(parts, string(b.Input))
		case "tool_result":
			parts = append(parts, contentText(b.Content))
		}
	}
	return strings.Join(parts, "\n")
}

// HasToolResult reports whether the message carries a tool result.
func (m apiMessage) HasToolResult() bool {
	for _, b := range m.blocks() {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}
