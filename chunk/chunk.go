// Package chunk turns transcript entries into retrieval chunks, classified
// items and compaction records. It is pure: no I/O, no clock.
//
// A turn starts at a real user prompt. Inside a turn, steps (the prompt; an
// assistant response with its tool calls and their results) are rendered as
// compact text and packed into chunks of about Options.TargetChars, never
// across turns, context windows or agents, and never above
// Options.MaxChars (a bigger step is split by lines). Build is incremental:
// it continues from a Cursor and returns the next one.
//
// Sidechain entries (subagent transcripts) become chunks marked Sidechain
// with their AgentID; they start no turn. The compaction subagent
// (agent-acompact-*) is skipped: its prompt and output are the summary,
// which is recorded as a Compaction and not chunked. File paths under the
// project directory are made relative to it.
package chunk

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/transcript"
)

// Bounds of the state carried in a Cursor.
const (
	maxCalls  = 32
	maxErrors = 8
	maxTasks  = 50
	maxEdits  = 5
)

// Cursor is the chunker's state carried between incremental ingests. It is
// small and JSON-friendly.
type Cursor struct {
	Seq    int    `json:"seq"`              // next chunk Seq
	Turn   int    `json:"turn"`             // current turn; -1 before the first real prompt
	Window int    `json:"window"`           // compactions seen so far
	Prompt string `json:"prompt,omitempty"` // current turn's prompt, shortened
	// Calls are tool calls whose result has not been seen yet, so that a
	// result arriving in a later batch is rendered and classified with its
	// call.
	Calls []Call `json:"calls,omitempty"`
	// Errors are the current turn's errors still waiting for a fix.
	Errors []OpenError `json:"errors,omitempty"`
	// Tasks is the TaskCreate/TaskUpdate task list.
	Tasks []Task `json:"tasks,omitempty"`
	// Compaction is the last compaction while its summary line is still to
	// come.
	Compaction *carryover.Compaction `json:"compaction,omitempty"`
	// Queued are prompts typed while Claude Code was busy, in the order
	// they were queued, while it is still to be seen how each is taken.
	Queued []string `json:"queued,omitempty"`
}

// OpenError is an error item waiting for the success that resolves it.
type OpenError struct {
	Tool  string         `json:"tool"`  // tool kind: bash, edit, read or the tool name
	Match string         `json:"match"` // command head or file a success must share
	Item  carryover.Item `json:"item"`
	Edits []string       `json:"edits,omitempty"` // edits made since the error, one line each
	idx   int            // 1 + index in this Build's Result.Items; 0 when from an earlier batch
}

// Task is one entry of the TaskCreate/TaskUpdate task list.
type Task struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
}

// NewCursor returns the cursor for the start of a transcript.
func NewCursor() Cursor { return Cursor{Turn: -1} }

// Options size the chunks. Sizes are in bytes of rendered text.
type Options struct {
	TargetChars int // pack steps into a chunk until about this size (default 1000)
	MaxChars    int // hard cap of a chunk's Text (default 1600); a bigger step is split
}

// Result is what Build extracted from a run of entries.
type Result struct {
	Chunks      []carryover.Chunk
	Items       []carryover.Item
	Compactions []carryover.Compaction
	Title       string // the session's first real prompt, one line, ≤ 120 bytes; "" if not in these entries
	Cursor      Cursor
}

// Build chunks entries (in file order, a contiguous run that continues where
// cur left off) and returns the chunks, items and compactions found, with
// the cursor to continue from. It never fails: unknown entries are ignored.
//
// Every batch ends with its open chunk flushed, so splitting a transcript at
// user prompts yields the same chunks as one Build over all of it; a split
// elsewhere yields differently packed chunks with the same text. Items that
// an earlier batch emitted are emitted again when they change: an error
// resolved in a later batch comes back with Resolved set, a compaction whose
// summary line is in a later batch comes back with the same Window and Line
// and its Summary, and the todo state always has the same key. The store is
// expected to keep the latest version per key.
func Build(sessionID, project string, entries []transcript.Entry, cur Cursor, opt Options) Result {
	if opt.MaxChars <= 0 {
		opt.MaxChars = 1600
	}
	opt.MaxChars = max(opt.MaxChars, 200)
	if opt.TargetChars <= 0 {
		opt.TargetChars = 1000
	}
	opt.TargetChars = min(opt.TargetChars, opt.MaxChars)
	cur.Calls = slices.Clone(cur.Calls)
	cur.Errors = slices.Clone(cur.Errors)
	for i := range cur.Errors {
		cur.Errors[i].idx = 0
	}
	cur.Tasks = slices.Clone(cur.Tasks)
	if cur.Compaction != nil {
		c := *cur.Compaction
		cur.Compaction = &c
	}
	b := &builder{session: sessionID, project: project, opt: opt, cur: cur}
	for i := range entries {
		b.entry(&entries[i])
	}
	b.closeStep()
	b.flush()
	for i, oe := range b.cur.Errors {
		if oe.idx > 0 {
			b.cur.Errors[i].Item = b.res.Items[oe.idx-1]
		}
	}
	b.res.Cursor = b.cur
	return b.res
}

// part is one rendered piece of a step: a prompt, an assistant text, or a
// tool call with its result. Items extracted from it are attached to it so
// they get the Seq of the chunk it lands in.
type part struct {
	text        string
	head        string // repeated on continuation pieces when split
	first, last int
	start, end  time.Time
	uuid        string
	answer      string // first line of assistant text, for summaries
	tool        string
	file        string
	command     string
	errText     string
	items       []int         // indexes in Result.Items
	inputs      []tieredIdent // specific identifiers the model typed into this call
}

type callPart struct {
	c Call
	p *part
}

type step struct {
	msgID string
	side  bool
	agent string
	parts []*part
	calls map[string]*callPart
}

type builder struct {
	session, project string
	opt              Options
	cur              Cursor
	res              Result

	step *step
	// the open chunk
	open      []*part
	openSize  int
	openSide  bool
	openAgent string
	compIdx   int // 1 + index in res.Compactions awaiting its summary
}

func (b *builder) entry(e *transcript.Entry) {
	if strings.HasPrefix(e.AgentID, "acompact") {
		return // the compaction subagent: its prompt and output are the summary
	}
	switch e.Type {
	case "system":
		if e.IsCompactBoundary() {
			b.boundary(e)
		}
	case "user":
		b.user(e)
	case "assistant":
		b.assistant(e)
	case "queue-operation":
		b.queued(e)
	}
}

// maxQueued bounds the prompts held in the cursor while queued.
const maxQueued = 20

// queued follows Claude Code's queue of prompts typed while it was busy.
// A prompt the running turn takes mid-way is written only as its enqueue
// and a later remove: no user line repeats it, so it is archived here, as
// an instruction within the turn. One dequeued comes back as a user line
// of its own, and one popped back into the input box reached no one.
func (b *builder) queued(e *transcript.Entry) {
	switch e.Subtype {
	case "enqueue":
		// Only what the user typed: Claude Code queues its own task
		// notifications too, and takes them otherwise.
		if _, kind := classifyPrompt(e.Content); kind != realPrompt {
			return
		}
		if len(b.cur.Queued) == maxQueued {
			b.cur.Queued = b.cur.Queued[1:]
		}
		b.cur.Queued = append(b.cur.Queued, e.Content)
	case "dequeue":
		if len(b.cur.Queued) > 0 {
			b.cur.Queued = b.cur.Queued[1:]
		}
	case "popAll":
		b.cur.Queued = nil
	case "remove":
		if len(b.cur.Queued) == 0 {
			return
		}
		text := b.cur.Queued[0]
		b.cur.Queued = b.cur.Queued[1:]
		if len(b.cur.Queued) == 0 {
			b.cur.Queued = nil
		}
		text, _ = classifyPrompt(text)
		intent := intentOf(text)
		b.ensureStep(e)
		p := b.addPart(e, "User (while Claude worked): "+headTail(text, promptHead, promptTail),
			"User: "+shortLine(intent, 100))
		b.item(p, e, carryover.KindGoal, shortLine(intent, 400), "", false)
	}
}

func (b *builder) boundary(e *transcript.Entry) {
	b.closeStep()
	b.flush()
	b.cur.Window++
	c := carryover.Compaction{SessionID: b.session, Window: b.cur.Window, Line: e.Line, Time: e.Time}
	if e.Compact != nil {
		c.Trigger, c.PreTokens, c.PostTokens = e.Compact.Trigger, e.Compact.PreTokens, e.Compact.PostTokens
	}
	b.res.Compactions = append(b.res.Compactions, c)
	b.compIdx = len(b.res.Compactions)
	b.cur.Compaction = &c
}

// summaryPreamble opens every compaction summary.
const summaryPreamble = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation."

func (b *builder) summary(e *transcript.Entry) {
	if b.cur.Compaction == nil {
		return
	}
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(e.Text()), summaryPreamble))
	if b.compIdx > 0 {
		b.res.Compactions[b.compIdx-1].Summary = s
	} else {
		c := *b.cur.Compaction
		c.Summary = s
		b.res.Compactions = append(b.res.Compactions, c)
	}
	b.cur.Compaction, b.compIdx = nil, 0
}

func (b *builder) user(e *transcript.Entry) {
	if e.CompactSummary {
		b.summary(e)
		return
	}
	if e.Meta {
		return
	}
	results := false
	for _, blk := range e.Blocks {
		if blk.Type == "tool_result" {
			results = true
			b.result(e, blk)
		}
	}
	if results {
		return
	}
	text, kind := classifyPrompt(e.Text())
	switch {
	case kind == notPrompt:
		return
	case e.Sidechain:
		// The parent agent's task prompt: context, not a user turn.
		b.closeStep()
		b.ensureStep(e)
		b.addPart(e, "Prompt: "+headTail(text, promptHead, promptTail), "Prompt: "+shortLine(text, 100))
		if b.cur.Prompt == "" {
			b.cur.Prompt = shortLine(text, 300)
		}
		b.closeStep()
	case kind == turnNote:
		// Claude Code's Stop hook fires before such lines as before a
		// prompt: a chunk boundary here keeps incremental ingests identical.
		b.closeStep()
		b.flush()
		b.ensureStep(e)
		b.addPart(e, "User: "+shorten(text, 600), "")
		b.closeStep()
	default:
		b.prompt(e, text)
	}
}

func (b *builder) prompt(e *transcript.Entry, text string) {
	b.closeStep()
	b.flush()
	b.cur.Turn++
	intent := intentOf(text)
	b.cur.Prompt = shortLine(intent, 300)
	b.cur.Errors = nil // errors are resolved within their turn
	if b.cur.Turn == 0 {
		b.res.Title = shorten(firstLine(intent), 120)
	}
	b.ensureStep(e)
	p := b.addPart(e, "User: "+headTail(text, promptHead, promptTail), "User: "+shortLine(intent, 100))
	b.item(p, e, carryover.KindGoal, shortLine(intent, 400), "", false)
	var seen []string
	for _, s := range Sentences(intent) {
		if len(seen) < maxConstraints && ownWords(intent, s) && isConstraint(s) && !slices.Contains(seen, s) {
			seen = append(seen, s)
			b.item(p, e, carryover.KindConstraint, s, "", false)
		}
	}
	for _, m := range markers(intent) {
		b.item(p, e, carryover.KindMarker, m, "user", false)
	}
	b.closeStep()
}

// Bounds of what a long prompt's own words are: pasted documents and logs
// come between the user's lead-in and their closing request.
const (
	longPrompt = 600
	ownHead    = 400
	ownTail    = 300
)

// ownWords reports whether sentence s of prompt text is the user's own:
// anywhere in a short prompt, at the head or the tail of a long one.
func ownWords(text, s string) bool {
	if len(text) <= longPrompt {
		return true
	}
	i := strings.Index(text, s)
	return i >= 0 && (i < ownHead || i+len(s) > len(text)-ownTail)
}

// intentOf is what the user asked in a prompt, without the IDE selection
// they attached.
func intentOf(text string) string {
	if intent := strings.TrimSpace(stripTag(text, "ide_selection")); intent != "" {
		return intent
	}
	return text
}

// maxConstraints bounds the constraints taken from one prompt (a pasted
// document is not a list of rules).
const maxConstraints = 5

type promptKind int

const (
	notPrompt  promptKind = iota
	realPrompt            // starts a turn
	turnNote              // user-side text inside a turn (interruptions, notifications)
)

// localCommands are built-in slash commands that act on the CLI itself;
// their wrapper lines are not prompts.
var localCommands = map[string]bool{"clear": true, "compact": true, "exit": true, "quit": true, "context": true,
	"model": true, "cost": true, "help": true, "config": true, "status": true, "memory": true, "login": true,
	"logout": true, "doctor": true, "permissions": true, "hooks": true, "mcp": true, "agents": true, "resume": true,
	"ide": true, "vim": true, "theme": true, "terminal-setup": true, "bug": true, "release-notes": true,
	"upgrade": true, "usage": true, "add-dir": true, "export": true, "statusline": true, "rewind": true,
	"todos": true, "privacy-settings": true, "output-style": true, "plugin": true, "tasks": true, "fast": true}

// classifyPrompt tells a typed prompt from the user-line wrappers Claude
// Code writes, and renders a slash command as "/name args".
func classifyPrompt(raw string) (string, promptKind) {
	s := strings.TrimSpace(stripTag(stripTag(raw, "system-reminder"), "ide_opened_file"))
	switch {
	case s == "":
		return "", notPrompt
	case strings.HasPrefix(s, "<local-command-"), strings.HasPrefix(s, "Caveat: The messages below were generated"):
		return "", notPrompt
	}
	if name, ok := tagContent(s, "command-name"); ok {
		name = strings.TrimPrefix(name, "/")
		if localCommands[name] {
			return "", notPrompt
		}
		args, _ := tagContent(s, "command-args")
		return strings.TrimSpace("/" + name + " " + args), realPrompt
	}
	switch {
	case strings.HasPrefix(s, "<task-notification>"):
		if sum, ok := tagContent(s, "summary"); ok {
			return "[task notification] " + sum, turnNote
		}
		return s, turnNote
	case strings.HasPrefix(s, "[Request interrupted"):
		return s, turnNote
	case strings.HasPrefix(s, "<bash-input>"):
		in, _ := tagContent(s, "bash-input")
		return "! " + in, turnNote
	case strings.HasPrefix(s, "<bash-stdout>"), strings.HasPrefix(s, "<bash-stderr>"):
		return clean(stripANSI(s)), turnNote
	}
	return s, realPrompt
}

func (b *builder) assistant(e *transcript.Entry) {
	if b.step == nil || e.MessageID == "" || b.step.msgID != e.MessageID || b.step.side != e.Sidechain || b.step.agent != e.AgentID {
		b.closeStep()
		b.ensureStep(e)
		b.step.msgID = e.MessageID
	}
	for _, blk := range e.Blocks {
		switch blk.Type {
		case "text":
			t := strings.TrimSpace(blk.Text)
			if t == "" {
				continue
			}
			p := b.addPart(e, "Assistant: "+headTail(t, textHead, textTail), "")
			p.answer = shorten(firstLine(t), 120)
			for _, s := range Sentences(t) {
				if isDecision(s) {
					b.item(p, e, carryover.KindDecision, shorten(s, 400), "", false)
				}
			}
			for _, m := range markers(t) {
				b.item(p, e, carryover.KindMarker, m, "assistant", false)
			}
		case "tool_use":
			text, c := renderCall(blk.ID, blk.Name, blk.Input, b.project)
			p := b.addPart(e, text, c.Head)
			p.tool, p.file, p.command = c.Name, c.File, shorten(c.Command, 300)
			p.inputs = inputIdents(blk.Input)
			b.step.calls[blk.ID] = &callPart{c: c, p: p}
			if c.Name == "TodoWrite" && c.Desc != "" {
				b.item(p, e, carryover.KindTodo, c.Desc, "", false)
			}
		}
	}
}

func (b *builder) result(e *transcript.Entry, blk transcript.Block) {
	var cp *callPart
	if b.step != nil {
		if cp = b.step.calls[blk.ToolUseID]; cp != nil {
			delete(b.step.calls, blk.ToolUseID)
		}
	}
	if cp == nil {
		// The call is in an earlier step or batch, or unknown.
		c, ok := b.takeCall(blk.ToolUseID)
		b.ensureStep(e)
		head := "(tool result)"
		if ok {
			head = "(result of " + c.Head + ")"
		}
		p := b.addPart(e, head, head)
		p.tool, p.file, p.command = c.Name, c.File, shorten(c.Command, 300)
		cp = &callPart{c: c, p: p}
	}
	p := cp.p
	p.last = max(p.last, e.Line)
	if e.Time.After(p.end) {
		p.end = e.Time
	}
	failed, code, out := status(cp.c.Name, cleanResult(blk.Text), blk.IsError)
	if r := renderResult(cp.c, out, failed, code); r != "" {
		p.text += "\n" + r
	}
	if failed {
		if protocolError(blk.Text, out) {
			return // Claude Code refused the call itself: nothing in the project failed
		}
		b.failure(cp.c, p, e, out, code)
	} else {
		b.success(cp.c, p, e, out)
	}
}

// rejectPrefix opens the result of a tool call the user declined.
const rejectPrefix = "The user doesn't want to proceed with this tool use"

func (b *builder) failure(c Call, p *part, e *transcript.Entry, out string, code int) {
	if said, ok := rejection(c, out, code); ok {
		// Not an error: the user said no, sometimes with what to do
		// instead, which is a request of theirs like a prompt.
		if said = strings.TrimSpace(said); said != "" {
			b.item(p, e, carryover.KindGoal, shortLine(said, 400), "", false)
			if isConstraint(said) {
				b.item(p, e, carryover.KindConstraint, shortLine(said, 400), "", false)
			}
		}
		return
	}
	if strings.TrimSpace(out) == "" {
		return // an exit code alone says nothing the next step could use
	}
	msg := errorSummary(out, code)
	if msg == "" {
		msg = "failed: " + c.Head
	}
	p.errText = msg
	idx := b.item(p, e, carryover.KindError, msg, c.Head, false)
	kind, match, key := toolKind(c.Name), matchOf(c), b.res.Items[idx].Key
	// The same call failing differently after edits: the edits fixed the
	// earlier error. Failing the same way again: one open error is enough.
	kept := b.cur.Errors[:0]
	for _, oe := range b.cur.Errors {
		switch {
		case oe.Tool != kind || oe.Match != match:
			kept = append(kept, oe)
		case oe.Item.Key != key && len(oe.Edits) > 0:
			b.resolve(oe, p, e, shorten(strings.Join(oe.Edits, "; "), 400), "")
		case oe.Item.Key != key:
			kept = append(kept, oe)
		}
	}
	b.cur.Errors = kept
	if len(b.cur.Errors) == maxErrors {
		b.cur.Errors = b.cur.Errors[1:]
	}
	b.cur.Errors = append(b.cur.Errors, OpenError{Tool: kind, Match: match, Item: b.res.Items[idx], idx: idx + 1})
}

// resolve marks an open error resolved by fix, found in part p, and adds
// the fix item. An error from an earlier batch is emitted again, resolved.
func (b *builder) resolve(oe OpenError, p *part, e *transcript.Entry, fix, verified string) {
	detail := oe.Item.Text
	if verified != "" {
		detail += " (then `" + verified + "` passed)"
	}
	b.item(p, e, carryover.KindFix, fix, detail, false)
	it := &oe.Item
	if oe.idx > 0 {
		it = &b.res.Items[oe.idx-1]
	}
	// The fix goes first: a restore line has room for the head of the detail only.
	it.Resolved, it.Detail = true, "fixed by: "+shorten(fix, 200)+" — in "+it.Detail
	it.Weight = Weight(it.Kind, it.Text, true, false)
	if oe.idx == 0 {
		b.res.Items = append(b.res.Items, *it) // keeps the ChunkSeq of the error's chunk
	}
}

// rejection reports whether a failed call's output is the user declining
// it, and what they said with it. Claude Code writes a fixed sentence,
// followed in newer versions by what the user said; older versions wrote
// the user's words alone as the error.
func rejection(c Call, out string, code int) (string, bool) {
	if strings.HasPrefix(out, rejectPrefix) {
		for _, cue := range []string{"reason for the rejection:", "the user said:"} {
			if i := strings.Index(out, cue); i >= 0 {
				return out[i+len(cue):], true
			}
		}
		return "", true
	}
	if c.Name == "" || code != 0 || strings.HasPrefix(out, "Exit code ") {
		return "", false
	}
	return out, userText(out)
}

// userText reports whether a call's error output reads like a person's
// sentence rather than a program's message: a few plain words, none of the
// error words, no "CODE:" opening, one short line.
func userText(out string) bool {
	out = strings.TrimSpace(out)
	if out == "" || len(out) > 400 || strings.Contains(out, "\n") {
		return false
	}
	low := strings.ToLower(out)
	if containsAny(low, errorWords) || containsAny(low, []string{"denied", "illegal", "permission", "status code", "eisdir", "enoent"}) {
		return false
	}
	f := strings.Fields(out)
	if len(f) == 0 || strings.HasSuffix(f[0], ":") || strings.ContainsAny(f[0], "/\\()[]<>=") {
		return false
	}
	if len(f) < 3 && strings.ContainsAny(out, "0123456789_:./") {
		return false // a short code or name, not a reply ("no", "stop that")
	}
	letters := 0
	for _, r := range out {
		if r == ' ' || r == ',' || r == '.' || r == '\'' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 {
			letters++
		}
	}
	return letters*10 >= len([]rune(out))*8
}

// protocolMessages open the errors Claude Code itself returns for a call
// it refused to run (a file edited before it was read, a string not
// found): the call's protocol, not the project, failed.
var protocolMessages = []string{"File has not been read yet", "File has been modified since read",
	"File has been unexpectedly modified", "Sibling tool call errored", "No such tool available",
	"String to replace not found", "InputValidationError", "Cancelled: parallel tool call", "File content (",
	"File does not exist."}

// protocolError reports a tool_use_error wrapper or a known message of
// Claude Code's own (raw is the result as written, out as cleaned).
func protocolError(raw, out string) bool {
	if strings.Contains(raw, "<tool_use_error>") {
		return true
	}
	out = strings.TrimPrefix(strings.TrimSpace(out), "Error: ")
	if strings.HasPrefix(out, "Found ") && strings.Contains(out, "matches of the string to replace") {
		return true
	}
	return hasPrefixAny(out, protocolMessages)
}

// toolKind groups tools whose success can resolve each other's errors.
func toolKind(name string) string {
	switch name {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return "edit"
	}
	return strings.ToLower(name)
}

// matchOf is what a later success must share with a failure to resolve it:
// the command head for Bash, the file for file tools.
func matchOf(c Call) string {
	if c.Name == "Bash" {
		return commandHead(c.Command)
	}
	return c.File
}

// success classifies a call that worked. An open error of the turn is
// resolved by the first later success of the same tool kind on the same
// command head (Bash: "mix test", "git push") or the same file; that
// success becomes a fix item whose Detail is the error (and the files
// edited in between, the likely real fix).
func (b *builder) success(c Call, p *part, e *transcript.Entry, out string) {
	kind, match := toolKind(c.Name), matchOf(c)
	kept := b.cur.Errors[:0]
	for _, oe := range b.cur.Errors {
		if oe.Tool != kind || oe.Match != match {
			kept = append(kept, oe)
			continue
		}
		fix, verified := c.Head, ""
		switch {
		case c.Name == "Bash" && len(oe.Edits) > 0:
			// The edits between the failure and this passing re-run are the fix.
			fix, verified = shorten(strings.Join(oe.Edits, "; "), 400), shorten(c.Command, 200)
		case c.Name == "Bash":
			fix = shorten(c.Command, 300)
		case kind == "edit":
			fix = c.Name + " " + c.File
		}
		b.resolve(oe, p, e, fix, verified)
	}
	b.cur.Errors = kept

	b.spec(c, p, e, out)
	switch c.Name {
	case "Bash":
		head := commandHead(c.Command)
		prog, _, _ := strings.Cut(head, " ")
		if c.Command != "" && !trivialCommands[prog] {
			ro := readOnlyCommands[head] || readOnlyCommands[prog]
			b.item(p, e, carryover.KindCommand, shorten(c.Command, 300), c.Desc, ro)
		}
		b.values(p, e, outputValues(out), cmp.Or(c.Desc, c.Head))
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		if c.File == "" {
			break
		}
		b.item(p, e, carryover.KindFileEdit, c.File, shorten(b.cur.Prompt, 200), false)
		b.values(p, e, c.Values, c.File)
		for i := range b.cur.Errors {
			change := c.Change
			if change == "" {
				change = c.Name + " " + c.File
			}
			if oe := &b.cur.Errors[i]; len(oe.Edits) < maxEdits && !slices.Contains(oe.Edits, change) {
				oe.Edits = append(oe.Edits, change)
			}
		}
	case "Task", "Agent":
		b.values(p, e, reportedIDs(out), c.Head)
	case "TaskCreate":
		// "Task #3 created successfully: subject"
		if rest, ok := strings.CutPrefix(out, "Task #"); ok && len(b.cur.Tasks) < maxTasks {
			id, _, _ := strings.Cut(rest, " ")
			b.cur.Tasks = append(b.cur.Tasks, Task{ID: id, Subject: c.Desc, Status: "pending"})
			b.item(p, e, carryover.KindTodo, renderTasks(b.cur.Tasks), "", false)
		}
	case "TaskUpdate":
		i := slices.IndexFunc(b.cur.Tasks, func(t Task) bool { return t.ID == c.TaskID })
		if i < 0 {
			break
		}
		if c.Status == "deleted" {
			b.cur.Tasks = slices.Delete(b.cur.Tasks, i, i+1)
		} else {
			if c.Status != "" {
				b.cur.Tasks[i].Status = c.Status
			}
			if c.Desc != "" {
				b.cur.Tasks[i].Subject = c.Desc
			}
		}
		b.item(p, e, carryover.KindTodo, renderTasks(b.cur.Tasks), "", false)
	}
}

func renderTasks(ts []Task) string {
	lines := make([]string, len(ts))
	for i, t := range ts {
		lines[i] = checkbox(t.Status) + " #" + t.ID + " " + t.Subject
	}
	return strings.Join(lines, "\n")
}

// values adds one value item for the values a call introduced or
// reported, with where they came from as its detail.
func (b *builder) values(p *part, e *transcript.Entry, vs []string, from string) {
	if len(vs) == 0 {
		return
	}
	b.item(p, e, carryover.KindValue, shorten(strings.Join(vs, valueSep), valueItemCap), shorten(from, 80), false)
}

// item appends an item found in part p and returns its index.
func (b *builder) item(p *part, e *transcript.Entry, kind carryover.ItemKind, text, detail string, readOnly bool) int {
	b.res.Items = append(b.res.Items, carryover.Item{
		SessionID: b.session,
		Kind:      kind,
		Text:      text,
		Detail:    detail,
		Key:       Key(kind, text),
		Turn:      max(b.cur.Turn, 0),
		Window:    b.cur.Window,
		Line:      e.Line,
		Time:      e.Time,
		Weight:    Weight(kind, text, false, readOnly),
	})
	idx := len(b.res.Items) - 1
	p.items = append(p.items, idx)
	return idx
}

func (b *builder) takeCall(id string) (Call, bool) {
	i := slices.IndexFunc(b.cur.Calls, func(c Call) bool { return c.ID == id })
	if i < 0 {
		return Call{}, false
	}
	c := b.cur.Calls[i]
	b.cur.Calls = slices.Delete(b.cur.Calls, i, i+1)
	return c, true
}

func (b *builder) ensureStep(e *transcript.Entry) {
	if b.step != nil && b.step.side == e.Sidechain && b.step.agent == e.AgentID {
		return
	}
	b.closeStep()
	b.step = &step{side: e.Sidechain, agent: e.AgentID, calls: map[string]*callPart{}}
}

func (b *builder) addPart(e *transcript.Entry, text, head string) *part {
	p := &part{text: text, head: head, first: e.Line, last: e.Line, start: e.Time, end: e.Time, uuid: e.UUID}
	b.step.parts = append(b.step.parts, p)
	return p
}

// closeStep packs the open step into the open chunk; its unanswered calls
// wait in the cursor for their results.
func (b *builder) closeStep() {
	s := b.step
	if s == nil {
		return
	}
	b.step = nil
	for _, p := range s.parts { // parts keep the calls' order
		for id, cp := range s.calls {
			if cp.p == p {
				if len(b.cur.Calls) == maxCalls {
					b.cur.Calls = b.cur.Calls[1:]
				}
				c := cp.c
				if c.Name == "TodoWrite" {
					c.Desc = "" // already emitted as a todo item
				}
				b.cur.Calls = append(b.cur.Calls, c)
				delete(s.calls, id)
			}
		}
	}
	if len(s.parts) == 0 {
		return
	}
	size := 0
	for _, p := range s.parts {
		size += len(p.text) + 1
	}
	if len(b.open) > 0 && (b.openSide != s.side || b.openAgent != s.agent || b.openSize >= b.opt.TargetChars ||
		b.openSize+size > b.opt.MaxChars && size <= b.opt.MaxChars) {
		b.flush() // keep a step whole when it fits a chunk of its own
	}
	b.openSide, b.openAgent = s.side, s.agent
	for _, p := range s.parts {
		b.pack(p)
	}
}

// minRoom is the least free space worth filling with the head of a part
// too big for any chunk.
const minRoom = 300

// pack adds a part to the open chunk. A part that fits a chunk is never
// split; a bigger one is cut at line breaks, its first piece filling the open
// chunk, later pieces repeating its head so they still say what they belong
// to.
func (b *builder) pack(p *part) {
	if len(b.open) > 0 && b.openSize >= b.opt.TargetChars {
		b.flush()
	}
	rest, prefix := p.text, ""
	for first := true; ; first = false {
		room := b.opt.MaxChars - b.openSize
		if len(b.open) > 0 {
			room-- // the newline joining it
		}
		if len(prefix)+len(rest) <= room {
			b.add(p, prefix+rest, first)
			return
		}
		if len(b.open) > 0 && (room-len(prefix) < minRoom || len(prefix)+len(rest) <= b.opt.MaxChars) {
			b.flush()
			continue
		}
		room -= len(prefix)
		n := cutAt(rest, room)
		if i := strings.LastIndexByte(rest[:n], '\n'); i > room/2 {
			n = i
		}
		b.add(p, prefix+rest[:n], first)
		b.flush()
		rest = strings.TrimPrefix(rest[n:], "\n")
		prefix = "(cont.) " + shorten(p.head, 100) + "\n"
	}
}

// add appends a piece of p to the open chunk; only the first piece carries
// p's items and answer line.
func (b *builder) add(p *part, text string, first bool) {
	q := *p
	q.text = text
	if !first {
		q.items, q.answer = nil, ""
	}
	b.open = append(b.open, &q)
	b.openSize += len(text)
	if len(b.open) > 1 {
		b.openSize++
	}
}

// flush turns the open chunk into a Chunk.
func (b *builder) flush() {
	if len(b.open) == 0 {
		return
	}
	parts, size := b.open, b.openSize
	b.open, b.openSize = nil, 0
	c := carryover.Chunk{
		SessionID: b.session,
		Project:   b.project,
		Seq:       b.cur.Seq,
		Turn:      max(b.cur.Turn, 0),
		Window:    b.cur.Window,
		FirstLine: parts[0].first,
		LastLine:  parts[0].last,
		Prompt:    b.cur.Prompt,
		Sidechain: b.openSide,
	}
	if b.openSide {
		c.AgentID = b.openAgent
	}
	b.cur.Seq++
	var text strings.Builder
	text.Grow(size) // the parts and the newlines between them
	answer := ""
	for i, p := range parts {
		if i > 0 {
			text.WriteByte('\n')
		}
		text.WriteString(p.text)
		c.FirstLine, c.LastLine = min(c.FirstLine, p.first), max(c.LastLine, p.last)
		if !p.start.IsZero() && (c.Start.IsZero() || p.start.Before(c.Start)) {
			c.Start = p.start
		}
		if p.end.After(c.End) {
			c.End = p.end
		}
		c.Tools = addDistinct(c.Tools, p.tool)
		c.Files = addDistinct(c.Files, p.file)
		c.Commands = addDistinct(c.Commands, p.command)
		c.Errors = addDistinct(c.Errors, p.errText)
		if answer == "" {
			answer = p.answer
		}
		for _, idx := range p.items {
			b.res.Items[idx].ChunkSeq = c.Seq
		}
	}
	c.Text = text.String()
	c.Summary = summarize(c.Prompt, answer, c.Tools, c.Files)
	sum := sha256.Sum256([]byte(parts[0].uuid + "\n" + c.Text))
	c.Hash = hex.EncodeToString(sum[:16])
	b.res.Chunks = append(b.res.Chunks, c)
	if ids := chunkInputs(parts); ids != "" {
		b.res.Items = append(b.res.Items, carryover.Item{
			SessionID: b.session, ChunkSeq: c.Seq, Kind: carryover.KindInputs, Text: ids,
			Key: string(carryover.KindInputs) + ":" + c.Hash, Turn: c.Turn, Window: c.Window,
			Line: c.LastLine, Time: c.End, Weight: Weight(carryover.KindInputs, ids, false, false),
		})
	}
}

func addDistinct(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// summarize builds a chunk's extractive summary: the prompt's first line,
// the first line of the assistant's answer, the tools and the files.
func summarize(prompt, answer string, tools, files []string) string {
	var segs []string
	if prompt != "" {
		segs = append(segs, shorten(prompt, 80))
	}
	if answer != "" {
		segs = append(segs, answer)
	}
	if len(tools) > 0 {
		segs = append(segs, "tools: "+strings.Join(tools, ", "))
	}
	if len(files) > 0 {
		segs = append(segs, "files: "+strings.Join(files, ", "))
	}
	return shorten(strings.Join(segs, " | "), 300)
}
