package chunk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// How much of a tool result is kept. Command output is the agent's only
// record of the world at that moment (test counts, commit hashes, task specs
// printed by CLIs) and cannot be re-run later, so it is kept generously;
// file reads and searches can be repeated and are mostly noise, so only a
// short head is kept. Failures are kept whole up to errWhole.
const (
	bashHead   = 4000
	bashTail   = 1500
	errWhole   = 1500
	errHead    = 1000
	errTail    = 600
	lookHead   = 300
	agentHead  = 3000
	agentTail  = 1000
	webHead    = 600
	otherHead  = 300
	otherTail  = 200
	promptHead = 4000
	promptTail = 1000
	textHead   = 3000
	textTail   = 1000
)

// input holds the tool_use input fields the renderer knows, across tools.
// Fields of unexpected types are skipped by encoding/json.
type input struct {
	Command      string `json:"command"`
	Description  string `json:"description"`
	FilePath     string `json:"file_path"`
	Path         string `json:"path"`
	NotebookPath string `json:"notebook_path"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	NewSource    string `json:"new_source"`
	ReplaceAll   bool   `json:"replace_all"`
	Content      string `json:"content"`
	Pattern      string `json:"pattern"`
	Glob         string `json:"glob"`
	Offset       any    `json:"offset"`
	Limit        any    `json:"limit"`
	Edits        []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	} `json:"edits"`
	Todos []struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	} `json:"todos"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"`
	URL          string `json:"url"`
	Query        string `json:"query"`
	Skill        string `json:"skill"`
	Args         string `json:"args"`
	Plan         string `json:"plan"`
	Question     string `json:"question"`
	TaskID       any    `json:"taskId"`
	Subject      string `json:"subject"`
	Status       string `json:"status"`
}

// Call is a tool call as far as its result needs it: kept in the Cursor
// while the result has not been seen.
type Call struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Head    string `json:"head,omitempty"` // the call, one short line
	Command string `json:"command,omitempty"`
	File    string `json:"file,omitempty"`
	Desc    string `json:"desc,omitempty"` // Bash description, task subject
	TaskID  string `json:"task,omitempty"`
	Status  string `json:"status,omitempty"`
	// Change is an edit in one short line (file: "old" → "new"): when it
	// precedes a passing re-run of a failed command, it is the likely fix.
	Change string `json:"change,omitempty"`
	// Values are the settings, names and UI strings an edit introduces,
	// kept until its result says it was applied.
	Values []string `json:"values,omitempty"`
}

// renderCall renders a tool_use block and returns the Call to pair with its
// result.
func renderCall(id, name string, raw json.RawMessage, project string) (string, Call) {
	var in input
	_ = json.Unmarshal(raw, &in) // a bad input renders as the bare name
	c := Call{ID: id, Name: name}
	file := in.FilePath
	if file == "" {
		file = in.NotebookPath
	}
	file = relPath(project, file)
	var text string
	switch name {
	case "Bash":
		cmd := strings.TrimSpace(in.Command)
		c.Command = shorten(cmd, 400) // enough for items; keeps the Cursor small
		c.Desc = shorten(oneLine(in.Description), 200)
		text = "$ " + headTail(cmd, 1200, 300)
		if c.Desc != "" {
			text += "  # " + shorten(c.Desc, 120)
		}
		c.Head = "$ " + shorten(oneLine(cmd), 120)
	case "Edit":
		c.File = file
		// As a diff, added lines first (see editDiff); unescaped, the code
		// stays greppable as written.
		text = fmt.Sprintf("Edit %s:\n%s", file, editDiff(in.OldString, in.NewString, 900, 300))
		c.Change = fmt.Sprintf("%s: \"%s\" → \"%s\"", file, shorten(oneLine(in.OldString), 80), shorten(oneLine(in.NewString), 160))
		if in.ReplaceAll {
			text += " (all)"
		}
		c.Values = editValues(file, in.OldString, in.NewString)
	case "MultiEdit":
		c.File = file
		var b strings.Builder
		fmt.Fprintf(&b, "MultiEdit %s (%d edits)", file, len(in.Edits))
		for i, ed := range in.Edits {
			if i == 8 {
				b.WriteString("\n…")
				break
			}
			fmt.Fprintf(&b, "\n%s", editDiff(ed.OldString, ed.NewString, 400, 150))
		}
		for _, ed := range in.Edits {
			for _, v := range editValues(file, ed.OldString, ed.NewString) {
				c.Values = addValue(c.Values, v)
			}
		}
		text = b.String()
	case "Write":
		c.File = file
		text = fmt.Sprintf("Write %s (%d lines)\n%s", file, strings.Count(strings.TrimRight(in.Content, "\n"), "\n")+1, headTail(in.Content, 3000, 500))
		c.Values = editValues(file, "", in.Content)
	case "NotebookEdit":
		c.File = file
		text = "NotebookEdit " + file + "\n" + headTail(in.NewSource, 600, 200)
		c.Values = editValues(file, "", in.NewSource)
	case "Read":
		c.File = file
		text = "Read " + file
		if in.Offset != nil || in.Limit != nil {
			text += fmt.Sprintf(" (offset %v, limit %v)", orDash(in.Offset), orDash(in.Limit))
		}
	case "Grep":
		text = fmt.Sprintf("Grep %q", in.Pattern)
		if in.Path != "" {
			text += " in " + relPath(project, in.Path)
		}
		if in.Glob != "" {
			text += " (" + in.Glob + ")"
		}
	case "Glob":
		text = "Glob " + in.Pattern
		if in.Path != "" {
			text += " in " + relPath(project, in.Path)
		}
	case "LS":
		text = "LS " + relPath(project, in.Path)
	case "TodoWrite":
		var b strings.Builder
		b.WriteString("TodoWrite")
		for _, t := range in.Todos {
			b.WriteString("\n" + checkbox(t.Status) + " " + oneLine(t.Content))
		}
		text = b.String()
		c.Desc = shorten(strings.TrimPrefix(text, "TodoWrite\n"), 2000)
	case "Task", "Agent":
		text = name
		if in.SubagentType != "" {
			text += "(" + in.SubagentType + ")"
		}
		text += " " + oneLine(in.Description) + "\n" + headTail(in.Prompt, 400, 0)
	case "WebFetch":
		text = "WebFetch " + in.URL + " — " + shorten(oneLine(in.Prompt), 300)
	case "WebSearch":
		text = "WebSearch " + in.Query
	case "Skill":
		text = strings.TrimSpace("Skill " + in.Skill + " " + in.Args)
	case "ExitPlanMode":
		text = "ExitPlanMode\n" + headTail(in.Plan, 4000, 1500)
	case "AskUserQuestion":
		text = "AskUserQuestion " + headTail(in.Question, 600, 200)
	case "TaskCreate":
		c.Desc = shorten(oneLine(in.Subject), 120)
		text = "TaskCreate " + c.Desc + ": " + shorten(oneLine(in.Description), 300)
	case "TaskUpdate":
		c.TaskID = idString(in.TaskID)
		c.Status = in.Status
		c.Desc = shorten(oneLine(in.Subject), 120)
		text = strings.TrimSpace(fmt.Sprintf("TaskUpdate #%s %s %s", c.TaskID, c.Status, c.Desc))
	default:
		text = strings.TrimSpace(name + " " + strings.Join(stringValues(raw, 6), "; "))
	}
	if c.Head == "" {
		c.Head = shorten(oneLine(text), 120)
	}
	return text, c
}

func checkbox(status string) string {
	switch status {
	case "completed":
		return "[x]"
	case "in_progress":
		return "[>]"
	}
	return "[ ]"
}

func orDash(v any) any {
	if v == nil {
		return "-"
	}
	return v
}

func idString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// stringValues returns up to max "key: value" pairs of the string values in
// a JSON input, in document order, each shortened.
func stringValues(raw json.RawMessage, max int) []string {
	type frame struct{ obj, wantKey bool }
	var (
		out   []string
		stack []frame
		key   string
	)
	dec := json.NewDecoder(bytes.NewReader(raw))
	for len(out) < max {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				if top != nil && top.obj {
					top.wantKey = true
				}
				stack = append(stack, frame{obj: v == '{', wantKey: v == '{'})
			} else if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case string:
			if top != nil && top.obj && top.wantKey {
				key, top.wantKey = v, false
				continue
			}
			if top != nil && top.obj {
				top.wantKey = true
			}
			if s := shorten(oneLine(v), 200); s != "" {
				out = append(out, key+": "+s)
			}
		default:
			if top != nil && top.obj {
				top.wantKey = true
			}
		}
	}
	return out
}

// renderResult renders a tool result under its call; "" when the result
// adds nothing (a successful edit or todo update).
func renderResult(c Call, out string, failed bool, code int) string {
	if failed {
		head := "→ error"
		if code != 0 {
			head = "→ exit " + strconv.Itoa(code)
		}
		if out == "" {
			return head
		}
		if len(out) <= errWhole {
			return head + "\n" + out
		}
		return head + "\n" + headTail(out, errHead, errTail)
	}
	switch c.Name {
	case "Edit", "MultiEdit", "Write", "NotebookEdit", "TodoWrite", "TaskUpdate":
		return ""
	case "Bash":
		if out == "" {
			return "→ ok"
		}
		return "→ ok\n" + headTail(out, bashHead, bashTail)
	case "Read", "Grep", "Glob", "LS":
		if out == "" {
			return ""
		}
		if c.Name == "Read" {
			out = stripLineNumbers(out)
		}
		return "→ " + headTail(out, lookHead, 0)
	case "Task", "Agent", "TaskOutput":
		return "→ " + headTail(out, agentHead, agentTail)
	case "WebFetch", "WebSearch":
		return "→ " + headTail(out, webHead, 0)
	}
	if out == "" {
		return ""
	}
	return "→ " + headTail(out, otherHead, otherTail)
}

// status reads a tool result: whether it failed, the exit code Claude Code
// puts on its first line ("Exit code 1"), and the output without that line.
// A Bash output whose first line starts with "Error:" or "fatal:" counts as
// a failure even when the command's exit status was hidden (a pipe).
func status(name, out string, isErr bool) (failed bool, code int, body string) {
	body = out
	if rest, ok := strings.CutPrefix(out, "Exit code "); ok {
		num, after, _ := strings.Cut(rest, "\n")
		if n, err := strconv.Atoi(strings.TrimSpace(num)); err == nil {
			code, body = n, strings.TrimSpace(after)
		}
	}
	failed = isErr || code != 0
	if !failed && name == "Bash" {
		first := firstLine(body)
		failed = strings.HasPrefix(first, "Error:") || strings.HasPrefix(first, "error:") || strings.HasPrefix(first, "fatal:")
	}
	return failed, code, body
}

// cleanResult prepares tool result text: reminders Claude Code appends are
// dropped, error wrappers unwrapped, escapes and blank runs removed.
func cleanResult(s string) string {
	s = stripTag(s, "system-reminder")
	if strings.Contains(s, "<tool_use_error>") {
		s = strings.NewReplacer("<tool_use_error>", "", "</tool_use_error>", "").Replace(s)
	}
	return clean(s)
}

// stripLineNumbers drops the "    12→" prefixes of Read output, which take
// a third of a short head.
func stripLineNumbers(s string) string {
	var b strings.Builder
	b.Grow(min(len(s), 2*lookHead))
	for line := range strings.Lines(s) {
		if b.Len() > 2*lookHead {
			break // only a head is kept
		}
		if i := strings.Index(line, "→"); i > 0 && i <= 8 && strings.Trim(line[:i], " 0123456789") == "" {
			line = line[i+len("→"):]
		}
		b.WriteString(line)
	}
	return b.String()
}
