package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/ident"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/transcript"
)

// JIT measures the recall of the tool hooks, where no prompt asks: real
// sessions replayed through the hooks as Claude Code runs them (Replay:
// the transcript growing line by line, Stop at the end of each turn,
// PreCompact and SessionStart(compact) at each real compaction,
// SessionEnd at the end), the sessions of a project one after the other
// on one store, so that a later session can recall an earlier one's
// failures. At every failed tool call PostToolUseFailure runs, and at
// every successful Read, Edit, Write or MultiEdit PostToolUse, with the
// payload Claude Code sends (the failed call's error text from its
// tool_result, the successful call's tool_response from the transcript's
// toolUseResult), before the call's result line is written, as Claude
// Code does. A call the user refused fires neither.
//
// Each injection is scored by what the model typed next: useful when it
// carries an identifier (package ident) that the model typed into one of
// its next few tool calls and that the triggering call's own input did not
// hold; echo when the only such identifiers it carries are the call's own
// (the file it read, the command it ran); false when it carries none.
// A call that injected nothing is silent. A useful injection whose every
// such identifier the call's own result already showed (the hint in the
// error, the lines a Read returned) is counted apart as well: the model
// may have typed them from the result.

// JITGate is one setting of the tool hooks' thresholds.
type JITGate struct {
	FailureMinScore float64 `json:"failure_min_score"`
	FileMinNovel    int     `json:"file_min_novel"`
}

// JITSweep is the settings measured. The two hooks do not interact (each
// keeps its own once-per-window record), so one replay measures a failure
// threshold and a file threshold at once.
func JITSweep() []JITGate {
	scores := []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
	edits := []int{1, 2, 3, 4, 5, 6, 8}
	out := make([]JITGate, len(scores))
	for i := range scores {
		out[i] = JITGate{scores[i], edits[i]}
	}
	return out
}

// JITOptions configure JIT.
type JITOptions struct {
	// Paths are transcripts or directories of them (walked; subagent
	// transcripts are left out). The sessions of one directory are one
	// project's, replayed in the order they started.
	Paths []string
	// Next is how many of the model's following tool calls an injection's
	// identifiers are compared with (default 5).
	Next    int
	Timeout time.Duration
	// ByCwd replays each session under its own working directory, as the
	// product keys projects, rather than the sessions of a directory as
	// one project (the first session's directory): the spotter sessions
	// are worktrees of one repository, each its own project then.
	ByCwd bool
	// Gates are the settings replayed (default JITSweep()).
	Gates    []JITGate
	Progress func(path string)
}

// JITCall is one tool call the hooks fired for, and what they did at each
// setting.
type JITCall struct {
	Session string `json:"session"`
	Line    int    `json:"line"` // 1-based line of the call's result
	Event   string `json:"event"`
	Tool    string `json:"tool"`
	// Window is the context window the call is in.
	Window int `json:"window"`
	// Outcome[i] and Chars[i] are the outcome (useful, echo, false,
	// silent) and the characters injected at Gates[i].
	Outcome []string `json:"outcome"`
	Chars   []int    `json:"chars"`
	// InResult[i] is whether a useful injection's matched identifiers
	// were all in the call's own result.
	InResult []bool `json:"in_result"`
	// Text[i] is the injection at Gates[i], and Matched[i] the next
	// calls' identifiers it carried that the call's own input lacked.
	Text    []string   `json:"text,omitempty"`
	Matched [][]string `json:"matched,omitempty"`
	// Next are the identifiers the model typed into its next calls, for
	// reading why an injection missed.
	Next []string `json:"next,omitempty"`
}

// JITSession is one replayed session.
type JITSession struct {
	ID          string `json:"id"`
	Group       string `json:"group"`
	Lines       int    `json:"lines"`
	Compactions int    `json:"compactions"`
}

// JITResult is what JIT measured.
type JITResult struct {
	Next     int          `json:"next"`
	ByCwd    bool         `json:"by_cwd"`
	Gates    []JITGate    `json:"gates"`
	Sessions []JITSession `json:"sessions"`
	Calls    []JITCall    `json:"calls"`
	// LatencyMS are the tool hooks' in-process run times (milliseconds)
	// at the first setting, by event: without the process start, which
	// `bench latency` measures.
	LatencyMS map[string][]float64 `json:"latency_ms"`
}

// JIT runs the benchmark.
func JIT(ctx context.Context, opt JITOptions) (*JITResult, error) {
	if opt.Next <= 0 {
		opt.Next = 5
	}
	if len(opt.Gates) == 0 {
		opt.Gates = JITSweep()
	}
	files, err := NeededTranscripts(opt.Paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("bench jit: no transcripts under %s", strings.Join(opt.Paths, ", "))
	}
	groups, err := jitGroups(files)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "carryover-jit-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res := &JITResult{Next: opt.Next, ByCwd: opt.ByCwd, Gates: opt.Gates, LatencyMS: map[string][]float64{}}
	for _, g := range groups {
		for _, s := range g.sessions {
			res.Sessions = append(res.Sessions, JITSession{ID: s.id, Group: g.name, Lines: len(s.lines), Compactions: len(Compactions(s.lines))})
		}
	}
	for gi, g := range groups {
		var calls []JITCall // of this group, in replay order, filled at the first setting
		for si, gate := range opt.Gates {
			dir := filepath.Join(tmp, fmt.Sprintf("%d-%d", gi, si))
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, err
			}
			cfg := hookConfig(filepath.Join(dir, "store.db"), retrieve.DefaultRestoreBudget, opt.Timeout)
			cfg.ToolRecall = gate.thresholds()
			n := 0
			for _, s := range g.sessions {
				if si == 0 && opt.Progress != nil {
					opt.Progress(s.path)
				}
				cwd := g.cwd
				if opt.ByCwd {
					cwd = ""
				}
				err := s.replay(ctx, cfg, dir, cwd, opt.Next, func(c JITCall, sc jitScored, text string, lat time.Duration) {
					if si == 0 {
						calls = append(calls, c)
						res.LatencyMS[c.Event] = append(res.LatencyMS[c.Event], float64(lat.Microseconds())/1000)
					}
					calls[n].Outcome = append(calls[n].Outcome, sc.outcome)
					calls[n].InResult = append(calls[n].InResult, sc.inResult)
					calls[n].Chars = append(calls[n].Chars, len(text))
					calls[n].Text = append(calls[n].Text, text)
					calls[n].Matched = append(calls[n].Matched, sc.matched)
					n++
				})
				if err != nil {
					return nil, err
				}
			}
			os.RemoveAll(dir)
		}
		res.Calls = append(res.Calls, calls...)
	}
	return res, nil
}

// thresholds is the hooks' setting for g: zero where g holds the default,
// so that its figures measure the installed hooks.
func (g JITGate) thresholds() hook.ToolRecallThresholds {
	t := hook.ToolRecallThresholds{FailureMinScore: g.FailureMinScore, FileMinNovel: g.FileMinNovel}
	if t.FailureMinScore == retrieve.FailureMinScore {
		t.FailureMinScore = 0
	}
	if t.FileMinNovel == retrieve.FileRecallMinNovel {
		t.FileMinNovel = 0
	}
	return t
}

// jitGroup is one project's sessions, in the order they started.
type jitGroup struct {
	name     string
	cwd      string // the project the hooks see: the first session's directory
	sessions []*jitSession
}

type jitSession struct {
	id, path string
	lines    [][]byte
	entries  []transcript.Entry
	start    time.Time
}

// jitGroups groups transcripts by directory: one project each. Worktrees
// of one repository (the spotter sessions) are replayed as one project,
// under the first session's directory.
func jitGroups(files []string) ([]*jitGroup, error) {
	byDir := map[string]*jitGroup{}
	var order []string
	for _, f := range files {
		lines, es, err := readEntries(f)
		if err != nil {
			return nil, fmt.Errorf("bench jit: %w", err)
		}
		s := &jitSession{id: ingest.SessionIDFromPath(f), path: f, lines: lines, entries: es}
		for _, e := range es {
			if !e.Time.IsZero() {
				s.start = e.Time
				break
			}
		}
		dir := filepath.Dir(f)
		g := byDir[dir]
		if g == nil {
			g = &jitGroup{name: filepath.Base(dir)}
			byDir[dir] = g
			order = append(order, dir)
		}
		g.sessions = append(g.sessions, s)
	}
	var out []*jitGroup
	for _, dir := range order {
		g := byDir[dir]
		slices.SortStableFunc(g.sessions, func(a, b *jitSession) int { return a.start.Compare(b.start) })
		g.cwd = g.sessions[0].cwd()
		out = append(out, g)
	}
	return out, nil
}

// cwd is the session's first working directory.
func (s *jitSession) cwd() string {
	for _, e := range s.entries {
		if e.Cwd != "" {
			return e.Cwd
		}
	}
	return ""
}

// jitTool is one tool call of a transcript.
type jitTool struct {
	id, name string
	input    json.RawMessage
	idents   []string // identifiers the model typed into it
}

// replay replays the session on the store of cfg and reports every tool
// call the tool hooks fired for, with its outcome.
func (s *jitSession) replay(ctx context.Context, cfg hook.Config, dir, cwd string, next int,
	report func(c JITCall, sc jitScored, text string, lat time.Duration)) error {
	r, err := NewReplay(cfg, dir, s.id, s.lines)
	if err != nil {
		return err
	}
	r.Cwd = cwd
	if cwd == "" {
		cwd = s.cwd()
	}
	// The model's tool calls in order, and where each one is.
	var calls []jitTool
	pos := map[string]int{}
	for _, e := range s.entries {
		if e.Type != "assistant" || e.Sidechain {
			continue
		}
		for _, b := range e.Blocks {
			if b.Type == "tool_use" && b.ID != "" {
				var ids []string
				for _, in := range ident.InputStrings(b.Input) {
					ids = append(ids, ident.All(in)...)
				}
				pos[b.ID] = len(calls)
				calls = append(calls, jitTool{id: b.ID, name: b.Name, input: b.Input, idents: ids})
			}
		}
	}
	points := Compactions(s.lines)
	prompts := map[int]bool{}
	for i, p := range UserPrompts(s.lines) {
		if i > 0 {
			prompts[p.Line] = true
		}
	}
	window := 0
	for i := 0; i < len(s.lines); i++ {
		if len(points) > 0 && points[0].Boundary == i {
			p := points[0]
			points = points[1:]
			if _, err := r.Compact(ctx, p); err != nil {
				return fmt.Errorf("bench jit: %w", err)
			}
			window++
			i = p.Summary - 1
			continue
		}
		if prompts[i] {
			// The previous turn ended: Claude Code ran Stop.
			if err := r.Write(i); err != nil {
				return err
			}
			if _, _, err := r.Run(ctx, hook.Stop, map[string]any{"stop_hook_active": false}); err != nil {
				return fmt.Errorf("bench jit: %w", err)
			}
		}
		e := s.entries[i]
		if e.Type != "user" || e.Sidechain {
			continue
		}
		for _, b := range e.Blocks {
			k, ok := pos[b.ToolUseID]
			if b.Type != "tool_result" || !ok {
				continue
			}
			call := calls[k]
			ev, fields := jitEvent(call, b, e.ToolUseResult)
			if ev == "" {
				continue
			}
			// The hook runs before the result's line is written.
			if err := r.Write(i); err != nil {
				return err
			}
			fields["tool_name"], fields["tool_input"], fields["tool_use_id"] = call.name, jsonOrEmpty(call.input), call.id
			if r.meta.PermissionMode != "" {
				fields["permission_mode"] = r.meta.PermissionMode
			}
			out, res, err := r.Run(ctx, ev, fields)
			if err != nil {
				return fmt.Errorf("bench jit: line %d: %w", i+1, err)
			}
			text, err := additionalContext(out)
			if err != nil {
				return fmt.Errorf("bench jit: line %d: %w", i+1, err)
			}
			nextCalls := calls[k+1 : min(len(calls), k+1+next)]
			sc := jitScore(text, call, nextCalls, cwd, jitResult(call, b, e.ToolUseResult))
			var typed []string
			for _, c := range nextCalls {
				typed = append(typed, c.idents...)
			}
			report(JITCall{Session: s.id, Line: i + 1, Event: string(ev), Tool: call.name, Window: window, Next: compactIdents(typed)},
				sc, text, res.Latency)
		}
	}
	if err := r.Write(len(s.lines)); err != nil {
		return err
	}
	if _, _, err := r.Run(ctx, hook.SessionEnd, map[string]any{"reason": "other"}); err != nil {
		return fmt.Errorf("bench jit: %w", err)
	}
	return nil
}

// jitEvent is the hook Claude Code fires for a tool call's result, and
// the event's own payload fields: PostToolUseFailure for an error (not
// for a call the user or a rule refused), PostToolUse for a file tool
// that worked (the installed matcher), nothing otherwise.
func jitEvent(call jitTool, res transcript.Block, toolUseResult json.RawMessage) (hook.Event, map[string]any) {
	if res.IsError {
		if strings.HasPrefix(res.Text, "The user doesn't want to proceed") || strings.Contains(res.Text, "requested permissions to use") {
			return "", nil
		}
		return hook.PostToolUseFailure, map[string]any{"error": res.Text, "is_interrupt": false}
	}
	switch call.name {
	case "Read", "Edit", "Write", "MultiEdit":
		return hook.PostToolUse, map[string]any{"tool_response": jsonOrEmpty(toolUseResult)}
	}
	return "", nil
}

func jsonOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(`{}`)
	}
	return raw
}

// jitResult is what a call's result showed the model: a failure's error
// text, a Read's lines (the other file tools show what they were given).
func jitResult(call jitTool, res transcript.Block, toolUseResult json.RawMessage) string {
	switch {
	case res.IsError:
		return res.Text
	case call.name == "Read":
		return strings.Join(ident.InputStrings(toolUseResult), "\n")
	}
	return ""
}

// compactIdents drops repeats and boilerplate, keeping the order.
func compactIdents(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !ident.Boilerplate(id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// jitScored is an injection's score.
type jitScored struct {
	outcome  string
	matched  []string
	inResult bool // useful, with every matched identifier in the call's result
}

// jitScore scores an injection against the next tool calls: see JIT.
func jitScore(text string, call jitTool, nextCalls []jitTool, cwd, result string) jitScored {
	if text == "" {
		return jitScored{outcome: "silent"}
	}
	// The call's own identifiers, and the parts of them (a directory of
	// the file it read) the next calls may type.
	own := func(id string) bool {
		return slices.ContainsFunc(call.idents, func(o string) bool { return strings.Contains(o, id) })
	}
	echo := false
	var matched []string
	seen := map[string]bool{}
	for _, c := range nextCalls {
		for _, id := range c.idents {
			if seen[id] || ident.Boilerplate(id) || !held(text, id, cwd) {
				continue
			}
			seen[id] = true
			if own(id) {
				echo = true
				continue
			}
			matched = append(matched, id)
		}
	}
	switch {
	case len(matched) > 0:
		inResult := result != "" && !slices.ContainsFunc(matched, func(id string) bool { return !strings.Contains(result, id) })
		return jitScored{outcome: "useful", matched: matched, inResult: inResult}
	case echo:
		return jitScored{outcome: "echo"}
	}
	return jitScored{outcome: "false"}
}

// JITCounts are one hook's figures over some calls.
type JITCounts struct {
	Calls  int `json:"calls"`
	Fired  int `json:"fired"`
	Useful int `json:"useful"`
	Echo   int `json:"echo"`
	False  int `json:"false"`
	Silent int `json:"silent"`
	// InResult are the useful injections whose matched identifiers the
	// call's own result showed too.
	InResult int `json:"in_result"`
}

func (c *JITCounts) add(outcome string, inResult bool) {
	c.Calls++
	switch outcome {
	case "useful":
		c.Useful++
		if inResult {
			c.InResult++
		}
	case "echo":
		c.Echo++
	case "false":
		c.False++
	default:
		c.Silent++
	}
	if outcome != "silent" {
		c.Fired++
	}
}

func (c *JITCounts) plus(o JITCounts) {
	c.Calls += o.Calls
	c.Fired += o.Fired
	c.Useful += o.Useful
	c.Echo += o.Echo
	c.False += o.False
	c.Silent += o.Silent
	c.InResult += o.InResult
}

// jitHooks are the two hooks, by event.
var jitHooks = []hook.Event{hook.PostToolUseFailure, hook.PostToolUse}

// Counts returns a hook's figures for a session ("" for all) at setting
// gate.
func (r *JITResult) Counts(ev hook.Event, session string, gate int) JITCounts {
	var c JITCounts
	for _, call := range r.Calls {
		if call.Event == string(ev) && (session == "" || call.Session == session) {
			c.add(call.Outcome[gate], call.InResult[gate])
		}
	}
	return c
}

// JITChoice is the setting chosen for one hook, and how it did on the
// sessions it was not chosen on.
type JITChoice struct {
	Event string `json:"event"`
	// Gate is the setting chosen on every session (index into Gates).
	Gate int `json:"gate"`
	// Held are the leave-one-session-out figures: each session at the
	// setting chosen on the others, summed.
	Held JITCounts `json:"held_out"`
	// Mean and worst per-session rates (of fired) over the sessions where
	// the hook fired, held out.
	MeanUseful         float64 `json:"mean_useful"`
	MeanFalse          float64 `json:"mean_false"`
	WorstUseful        float64 `json:"worst_useful"`
	WorstFalse         float64 `json:"worst_false"`
	WorstUsefulSession string  `json:"worst_useful_session"`
	WorstFalseSession  string  `json:"worst_false_session"`
}

// choose picks a hook's setting on some sessions: the most useful
// injections among the settings whose false injections stay within 10 %
// of those fired (fewer false ones break ties, then the stricter
// setting); when none does, the lowest share of false injections (more
// useful ones break ties, then the stricter setting).
func (r *JITResult) choose(ev hook.Event, skip string) int {
	best, bestOK := -1, false
	var bc JITCounts
	for g := range r.Gates {
		var c JITCounts
		for _, s := range r.Sessions {
			if s.ID != skip {
				c.plus(r.Counts(ev, s.ID, g))
			}
		}
		// Settings come loosest first: on a tie the later, stricter one wins.
		ok := c.Fired > 0 && 10*c.False <= c.Fired
		switch {
		case best < 0, ok && !bestOK:
		case ok != bestOK:
			continue
		case ok && (c.Useful > bc.Useful || c.Useful == bc.Useful && c.False <= bc.False):
		case !ok && (falseShare(c) < falseShare(bc) || falseShare(c) == falseShare(bc) && c.Useful >= bc.Useful):
		default:
			continue
		}
		best, bestOK, bc = g, ok, c
	}
	return best
}

func falseShare(c JITCounts) float64 {
	if c.Fired == 0 {
		return 1
	}
	return float64(c.False) / float64(c.Fired)
}

// Choices chooses each hook's setting on all sessions and measures the
// choice leave-one-session-out.
func (r *JITResult) Choices() []JITChoice {
	var out []JITChoice
	for _, ev := range jitHooks {
		ch := JITChoice{Event: string(ev), Gate: r.choose(ev, ""), WorstUseful: 1}
		n := 0
		for _, s := range r.Sessions {
			c := r.Counts(ev, s.ID, r.choose(ev, s.ID))
			ch.Held.plus(c)
			if c.Fired == 0 {
				continue
			}
			n++
			u, f := float64(c.Useful)/float64(c.Fired), float64(c.False)/float64(c.Fired)
			ch.MeanUseful += u
			ch.MeanFalse += f
			if u < ch.WorstUseful {
				ch.WorstUseful, ch.WorstUsefulSession = u, s.ID
			}
			if f > ch.WorstFalse || ch.WorstFalseSession == "" {
				ch.WorstFalse, ch.WorstFalseSession = f, s.ID
			}
		}
		if n > 0 {
			ch.MeanUseful /= float64(n)
			ch.MeanFalse /= float64(n)
		} else {
			ch.WorstUseful = 0
		}
		out = append(out, ch)
	}
	return out
}

// DefaultGate is the index of the installed setting of a hook's threshold
// in Gates, or -1.
func (r *JITResult) DefaultGate(ev hook.Event) int {
	return slices.IndexFunc(r.Gates, func(g JITGate) bool {
		if ev == hook.PostToolUseFailure {
			return g.FailureMinScore == retrieve.FailureMinScore
		}
		return g.FileMinNovel == retrieve.FileRecallMinNovel
	})
}

func pctOf(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", 100*float64(n)/float64(d))
}

// Print writes, for each hook at its installed setting, one row per
// session and the total; then the sweep and the leave-one-session-out
// choice; with verbose, every injection at the installed setting first.
func (r *JITResult) Print(w io.Writer, verbose bool) error {
	fmt.Fprintf(w, "Recall where no prompt asks: %d sessions replayed through the hooks; PostToolUseFailure at every failed tool call,\n"+
		"PostToolUse at every Read/Edit/Write/MultiEdit. An injection is useful when it carries an identifier the model typed\n"+
		"into one of its next %d tool calls that the call's own input lacked, echo when it carries only the call's own, false\n"+
		"when it carries none of them; silent: nothing injected.\n", len(r.Sessions), r.Next)
	if r.ByCwd {
		fmt.Fprintln(w, "Each session is the project of its own working directory.")
	} else {
		fmt.Fprintln(w, "The sessions of a directory are one project, the first one's directory (--by-cwd: each its own).")
	}
	for _, ev := range jitHooks {
		def := r.DefaultGate(ev)
		if def < 0 {
			continue
		}
		if verbose {
			fmt.Fprintf(w, "\n%s injections at the installed setting:\n", ev)
			for _, c := range r.Calls {
				if c.Event == string(ev) && c.Outcome[def] != "silent" {
					fmt.Fprintf(w, "  %-6s %s L%d %s (window %d)", strings.ToUpper(c.Outcome[def]), carryover.ShortID(c.Session), c.Line, c.Tool, c.Window)
					if m := c.Matched[def]; len(m) > 0 {
						fmt.Fprintf(w, " typed next: %s", strings.Join(m[:min(len(m), 6)], " "))
						if c.InResult[def] {
							fmt.Fprint(w, " (all in the call's own result)")
						}
					} else {
						fmt.Fprintf(w, " next calls typed: %s", strings.Join(c.Next[:min(len(c.Next), 8)], " "))
					}
					fmt.Fprintf(w, "\n      %s\n", strings.ReplaceAll(c.Text[def], "\n", "\n      "))
				}
			}
		}
		g := r.Gates[def]
		setting := fmt.Sprintf("min score %.2f", g.FailureMinScore)
		if ev == hook.PostToolUse {
			setting = fmt.Sprintf("min novel %d", g.FileMinNovel)
		}
		fmt.Fprintf(w, "\n%s (installed: %s)\n", ev, setting)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "SESSION\tPROJECT\tLINES\tCOMPACTIONS\tCALLS\tFIRED\tUSEFUL\tECHO\tFALSE\tSILENT\t")
		var total JITCounts
		for _, s := range r.Sessions {
			c := r.Counts(ev, s.ID, def)
			total.plus(c)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", carryover.ShortID(s.ID), clipName(s.Group, 24), s.Lines, s.Compactions,
				c.Calls, c.Fired, c.Useful, c.Echo, c.False, c.Silent)
		}
		fmt.Fprintf(tw, "total\t\t\t\t%d\t%d\t%d (%s)\t%d (%s)\t%d (%s)\t%d\t\n", total.Calls, total.Fired,
			total.Useful, pctOf(total.Useful, total.Fired), total.Echo, pctOf(total.Echo, total.Fired), total.False, pctOf(total.False, total.Fired), total.Silent)
		if err := tw.Flush(); err != nil {
			return err
		}
		if total.Useful > 0 {
			fmt.Fprintf(w, "  of the useful, %d carried only identifiers the call's own result showed too (the error's hint, the lines read)\n", total.InResult)
		}
		if lat := r.LatencyMS[string(ev)]; len(lat) > 0 {
			s := slices.Clone(lat)
			sort.Float64s(s)
			fmt.Fprintf(w, "  in-process run time (without the process start): median %.1f ms, p90 %.1f ms, max %.1f ms over %d runs\n",
				s[len(s)/2], s[len(s)*9/10], s[len(s)-1], len(s))
		}
	}
	fmt.Fprintf(w, "\nSweep (all sessions) and leave-one-session-out choice: the most useful injections with false ≤ 10 %% of fired\n")
	choices := r.Choices()
	for _, ch := range choices {
		ev := hook.Event(ch.Event)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\tFIRED\tUSEFUL\tECHO\tFALSE\t\n", ev)
		for g, gate := range r.Gates {
			c := r.Counts(ev, "", g)
			name := fmt.Sprintf("min score %.2f", gate.FailureMinScore)
			if ev == hook.PostToolUse {
				name = fmt.Sprintf("min novel %d", gate.FileMinNovel)
			}
			if g == ch.Gate {
				name = "(chosen) " + name
			}
			if g == r.DefaultGate(ev) {
				name = "(installed) " + name
			}
			fmt.Fprintf(tw, "%s\t%d\t%d (%s)\t%d\t%d (%s)\t\n", name, c.Fired, c.Useful, pctOf(c.Useful, c.Fired), c.Echo, c.False, pctOf(c.False, c.Fired))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		h := ch.Held
		fmt.Fprintf(w, "  held out: fired %d, useful %d (%s), false %d (%s); per session (where it fired) useful mean %.0f %% worst %.0f %% (%s), false mean %.0f %% worst %.0f %% (%s)\n",
			h.Fired, h.Useful, pctOf(h.Useful, h.Fired), h.False, pctOf(h.False, h.Fired),
			100*ch.MeanUseful, 100*ch.WorstUseful, carryover.ShortID(ch.WorstUsefulSession),
			100*ch.MeanFalse, 100*ch.WorstFalse, carryover.ShortID(ch.WorstFalseSession))
	}
	return nil
}

func clipName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n+1:]
}

// JSON is what 'bench jit --json' prints: the result and the gate chosen
// per event. Unless verbose, the calls go without their text and matches.
func (r *JITResult) JSON(verbose bool) map[string]any {
	if !verbose {
		for i := range r.Calls {
			r.Calls[i].Text, r.Calls[i].Matched, r.Calls[i].Next = nil, nil, nil
		}
	}
	return map[string]any{"result": r, "choices": r.Choices()}
}
