package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

const getDescription = `Read archived transcript text in full: the chunks whose ids a search returned (chunk_ids), or a stretch of one session's transcript (session with from_line and to_line, or one turn). Use it when a search snippet is cut short, or to see what happened around a hit: the exact command, its output, the edit, the error.
A line range gives the transcript's exact lines as archived (each line's JSON, untruncated, secrets masked) when the archive holds them, else the archived chunks; raw false asks for the chunks.
The result holds at most budget characters; when more was selected it says what was cut and how to get the rest.`

type getIn struct {
	ChunkIDs []int64 `json:"chunk_ids,omitempty" jsonschema:"ids of chunks to read, as shown by search (chunk N); at most 50"`
	Session  string  `json:"session,omitempty" jsonschema:"session id or a unique prefix of one (default: the current session), SESSION/agent-ID for one of its subagents; used when chunk_ids is not given"`
	Turn     *int    `json:"turn,omitempty" jsonschema:"only this turn of the session (turn numbers are in search results and the timeline)"`
	FromLine int     `json:"from_line,omitempty" jsonschema:"first transcript line of the range (1-based, as in search results)"`
	ToLine   int     `json:"to_line,omitempty" jsonschema:"last transcript line of the range"`
	Raw      *bool   `json:"raw,omitempty" jsonschema:"for a line range: true (the default) gives the exact transcript lines when the archive holds them, false the archived chunks' text"`
	Budget   int     `json:"budget,omitempty" jsonschema:"characters of the result, 500 to 30000 (default 8000)"`
}

const (
	defaultGetBudget = 8000
	minGetBudget     = 500
)

func (s *server) get(ctx context.Context, in getIn) (string, error) {
	budget, err := checkBudget(in.Budget, min(defaultGetBudget, s.opt.GetBudgetMax), minGetBudget, s.opt.GetBudgetMax)
	if err != nil {
		return "", err
	}
	if len(in.ChunkIDs) > 0 {
		if in.Session != "" || in.Turn != nil || in.FromLine != 0 || in.ToLine != 0 || in.Raw != nil {
			return "", fmt.Errorf("give either chunk_ids or a session range (session, turn, from_line, to_line, raw), not both")
		}
		return s.getChunks(ctx, in.ChunkIDs, budget)
	}
	lineRange := in.Turn == nil && (in.FromLine > 0 || in.ToLine > 0)
	if in.Raw != nil && *in.Raw && !lineRange {
		return "", fmt.Errorf("raw reads a line range: give from_line or to_line (and no turn)")
	}
	if in.FromLine < 0 || in.ToLine < 0 {
		return "", fmt.Errorf("from_line and to_line are 1-based line numbers, not negative")
	}
	if in.FromLine > 0 && in.ToLine > 0 && in.FromLine > in.ToLine {
		return "", fmt.Errorf("from_line %d is after to_line %d", in.FromLine, in.ToLine)
	}
	if in.Turn != nil && *in.Turn < 0 {
		return "", fmt.Errorf("turn %d: turns are numbered from 0", *in.Turn)
	}
	sess, err := s.resolveSession(ctx, in.Session)
	if err != nil {
		return "", err
	}
	if lineRange && (in.Raw == nil || *in.Raw) {
		if out, err := s.getRaw(ctx, sess, in.FromLine, in.ToLine, budget); err != nil || out != "" {
			return out, err
		}
		// No raw lines there (archived before the raw archive existed):
		// the chunks.
	}
	f := carryover.ChunkFilter{SessionID: sess.ID, Turn: -1, FromLine: in.FromLine, ToLine: in.ToLine}
	what := "session " + carryover.ShortID(sess.ID)
	if in.Turn != nil {
		f.Turn = *in.Turn
		what += fmt.Sprintf(", turn %d", *in.Turn)
	}
	if in.FromLine > 0 || in.ToLine > 0 {
		what += fmt.Sprintf(", lines %s-%s", lineOrEnd(in.FromLine, "1"), lineOrEnd(in.ToLine, "end"))
	}
	chunks, err := s.st.Chunks(ctx, f)
	if err != nil {
		return "", fmt.Errorf("chunks: %w", err)
	}
	if len(chunks) == 0 {
		return "", fmt.Errorf("nothing archived in %s (the session has %d turns; the timeline tool shows its turns and line ranges)", what, sess.Turns)
	}
	comps, err := s.st.Compactions(ctx, sess.ID)
	if err != nil {
		return "", fmt.Errorf("compactions: %w", err)
	}
	head := fmt.Sprintf("Archived text of %s (%s).\n", what, count(len(chunks), "chunk"))
	continueAt := func(_ []carryover.Chunk, line int) string {
		return fmt.Sprintf(`get {"session": %q, "from_line": %d%s}`, sess.ID, line, toLineArg(in.ToLine))
	}
	return s.renderChunks(head, chunks, comps, budget, continueAt), nil
}

// maxRawRead bounds the lines one get reads from the raw archive: more
// than the largest budget shows.
const maxRawRead = 400

// getRaw renders the session's raw lines from..to (to <= 0: to the last)
// as archived, as many whole lines as fit the budget (the head of the
// first when it alone does not fit), then how to get the rest; "" when the
// raw archive has no line there.
func (s *server) getRaw(ctx context.Context, sess carryover.Session, from, to, budget int) (string, error) {
	from = max(from, 1)
	lines, end, err := retrieve.RawLines(ctx, s.st, sess.ID, from, to, maxRawRead)
	if err != nil || len(lines) == 0 {
		return "", err
	}
	id := carryover.ShortID(sess.ID)
	head := fmt.Sprintf("Transcript of session %s, lines %d-%d, as archived: each line's JSON, untruncated, secrets masked.\n", id, from, end)
	if lines[0].Line > from {
		head += fmt.Sprintf("Lines %d-%d are not in the raw archive (archived before it kept raw lines): get with raw false shows their chunks.\n",
			from, lines[0].Line-1)
	}
	parts := make([]string, len(lines))
	for i, l := range lines {
		text := string(l.Text)
		if text == "" {
			text = "(blank, or longer than the archive keeps)"
		}
		parts[i] = fmt.Sprintf("\n── line %d\n%s\n", l.Line, text)
	}
	// footer says which lines from line on are not shown and how to get
	// them.
	footer := func(line int) string {
		if line > end {
			return ""
		}
		return fmt.Sprintf("\n[Lines %d-%d not shown (budget %d characters). Continue with get {\"session\": %q, \"from_line\": %d, \"to_line\": %d}, or a larger budget (max %d).]\n",
			line, end, budget, sess.ID, line, end, s.opt.GetBudgetMax)
	}
	next := func(k int) int {
		if k < len(lines) {
			return lines[k].Line
		}
		return lines[len(lines)-1].Line + 1
	}
	var b strings.Builder
	b.WriteString(head)
	k := 0
	for k < len(parts) && b.Len()+len(parts[k])+len(footer(next(k+1))) <= budget {
		b.WriteString(parts[k])
		k++
	}
	if k == len(parts) {
		b.WriteString(footer(next(k)))
		return capText(b.String(), budget, fmt.Sprintf("the budget of %d characters is reached", budget)), nil
	}
	// Line k does not fit whole: the next page starts with it, unless it
	// alone is longer than the budget: then its head is shown.
	l := lines[k]
	rest := footer(l.Line + 1)
	if k == 0 {
		left := budget - b.Len() - len(rest) - 1
		more := fmt.Sprintf("line %d continues (%d characters); get {\"session\": %q, \"from_line\": %d, \"to_line\": %d, \"budget\": %d} shows more of it",
			l.Line, len(l.Text), sess.ID, l.Line, l.Line, min(s.opt.GetBudgetMax, max(2*len(parts[k]), minGetBudget)))
		if budget >= s.opt.GetBudgetMax {
			more = fmt.Sprintf("line %d continues (%d characters): get shows at most %d", l.Line, len(l.Text), s.opt.GetBudgetMax)
		}
		b.WriteString(capText(parts[k], max(left, 0), more))
		b.WriteString("\n")
		b.WriteString(rest)
	} else {
		b.WriteString(footer(l.Line))
	}
	return capText(b.String(), budget, fmt.Sprintf("the budget of %d characters is reached", budget)), nil
}

func lineOrEnd(n int, def string) string {
	if n <= 0 {
		return def
	}
	return fmt.Sprint(n)
}

func toLineArg(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(`, "to_line": %d`, n)
}

func (s *server) getChunks(ctx context.Context, ids []int64, budget int) (string, error) {
	chunks, missing, err := retrieve.ChunksByID(ctx, s.st, ids)
	if err != nil {
		return "", err
	}
	head := fmt.Sprintf("Archived text of %s.\n", count(len(chunks), "chunk"))
	if len(missing) > 0 {
		head += "Not found: chunk " + retrieve.JoinIDs(missing) + ".\n"
	}
	continueAt := func(rest []carryover.Chunk, _ int) string {
		ids := make([]string, len(rest))
		for i, c := range rest {
			ids[i] = fmt.Sprint(c.ID)
		}
		return `get {"chunk_ids": [` + strings.Join(ids, ", ") + `]}`
	}
	return s.renderChunks(head, chunks, nil, budget, continueAt), nil
}

// renderChunks writes chunks with their provenance and the compactions
// between them, as many whole chunks as fit the budget, then what fits of
// the next one, then what was cut and how to get it.
func (s *server) renderChunks(head string, chunks []carryover.Chunk, comps []carryover.Compaction, budget int, continueAt func(rest []carryover.Chunk, fromLine int) string) string {
	parts := make([]string, len(chunks))
	lastWindow := chunks[0].Window
	for i, c := range chunks {
		var part strings.Builder
		for _, cp := range comps {
			if cp.Window > lastWindow && cp.Window <= c.Window {
				fmt.Fprintf(&part, "\n════ compaction %d (%s) at line %d, %d tokens before it\n", cp.Window, cp.Trigger, cp.Line, cp.PreTokens)
			}
		}
		lastWindow = c.Window
		fmt.Fprintf(&part, "\n── chunk %d · session %s · turn %d · window %d · lines %d-%d · %s\n",
			c.ID, carryover.ShortID(c.SessionID), c.Turn, c.Window, c.FirstLine, c.LastLine, stamp(c.Start))
		text := strings.TrimSpace(c.Text)
		if text == "" {
			text = c.Summary
		}
		part.WriteString(text)
		part.WriteString("\n")
		parts[i] = part.String()
	}
	// footer says what chunks[k:] hold and how to get them.
	footer := func(k, from int) string {
		rest := chunks[k:]
		if len(rest) == 0 {
			return ""
		}
		return fmt.Sprintf("\n[Budget of %d characters reached: %s not shown (lines %d-%d). Continue with %s, or a larger budget (max %d).]\n",
			budget, count(len(rest), "more chunk"), rest[0].FirstLine, rest[len(rest)-1].LastLine, continueAt(rest, max(from, rest[0].FirstLine)), s.opt.GetBudgetMax)
	}
	var b strings.Builder
	b.WriteString(head)
	k := 0
	for k < len(parts) && b.Len()+len(parts[k])+len(footer(k+1, 0)) <= budget {
		b.WriteString(parts[k])
		k++
	}
	if k == len(parts) {
		return b.String()
	}
	// Chunk k does not fit whole: show its head when there is room.
	c := chunks[k]
	rest := footer(k+1, c.LastLine+1)
	if left := budget - b.Len() - len(rest) - 1; left >= minPartial || k == 0 {
		whole := fmt.Sprintf("chunk %d continues; get {\"chunk_ids\": [%d], \"budget\": %d} shows more of it",
			c.ID, c.ID, min(s.opt.GetBudgetMax, max(2*len(parts[k]), minGetBudget)))
		b.WriteString(capText(parts[k], max(left, 0), whole))
		b.WriteString("\n")
		b.WriteString(rest)
	} else {
		b.WriteString(footer(k, 0))
	}
	return capText(b.String(), budget, fmt.Sprintf("the budget of %d characters is reached", budget))
}

// minPartial is the least room worth showing part of a chunk in.
const minPartial = 200

const timelineDescription = `Show a session's turns and compactions in order: for each turn its prompt, transcript line range, number of archived chunks, time and context window; for each compaction its trigger, line, size and the start of its summary; and the subagents it ran. Use it to orient yourself after a compaction (what happened when, which lines to read with get). Defaults to the current session.`

type timelineIn struct {
	Session string `json:"session,omitempty" jsonschema:"session id or a unique prefix of one (default: the current session); SESSION/agent-ID for one of its subagents"`
}

// maxList caps the text of the timeline and of the sessions list.
const maxList = 12000

func (s *server) timeline(ctx context.Context, in timelineIn) (string, error) {
	sess, err := s.resolveSession(ctx, in.Session)
	if err != nil {
		return "", err
	}
	chunks, err := s.st.Chunks(ctx, carryover.ChunkFilter{SessionID: sess.ID, Turn: -1})
	if err != nil {
		return "", fmt.Errorf("chunks: %w", err)
	}
	comps, err := s.st.Compactions(ctx, sess.ID)
	if err != nil {
		return "", fmt.Errorf("compactions: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s · project %s\n%q\n%s to %s · %s · %s · %s\n",
		sess.ID, sess.Project, oneLine(sess.Title, 120), stamp(sess.Started), stamp(sess.Updated),
		count(sess.Turns, "turn"), count(len(comps), "compaction"), count(len(chunks), "chunk"))
	if sess.ID == s.opt.SessionID {
		b.WriteString("This is the current session.\n")
	}
	if sess.Parent != "" {
		fmt.Fprintf(&b, "A subagent of session %s (timeline {\"session\": %q} shows it).\n", sess.Parent, sess.Parent)
	}
	if w := ranWhere(sess); w != "" {
		b.WriteString(w + "\n")
	}
	subs, err := retrieve.Subagents(ctx, s.st, sess.ID)
	if err != nil {
		return "", err
	}
	if len(subs) > 0 {
		fmt.Fprintf(&b, "It ran %s (read one with timeline or get, session set to its id):\n", count(len(subs), "subagent"))
		for _, sub := range subs {
			fmt.Fprintf(&b, "  %s · %s · %s · %s\n", sub.ID, strconvQuote(oneLine(sub.Title, 120)), stamp(sub.Started), count(sub.Chunks, "chunk"))
		}
	}
	b.WriteString("\n")
	// A segment is a run of chunks of one turn in one window: long
	// autonomous turns often span a compaction.
	next := 0
	writeCompactions := func(beforeLine int) {
		for next < len(comps) && (beforeLine < 0 || comps[next].Line <= beforeLine) {
			cp := comps[next]
			fmt.Fprintf(&b, "════ compaction %d (%s) at line %d · %s · %d tokens before", cp.Window, cp.Trigger, cp.Line, stamp(cp.Time), cp.PreTokens)
			if sum := summaryHead(cp.Summary); sum != "" {
				fmt.Fprintf(&b, " · summary: %s", sum)
			}
			b.WriteString("\n")
			next++
		}
	}
	for i := 0; i < len(chunks); {
		j := i
		for j < len(chunks) && chunks[j].Turn == chunks[i].Turn && chunks[j].Window == chunks[i].Window {
			j++
		}
		seg := chunks[i:j]
		writeCompactions(seg[0].FirstLine)
		prompt := "prompt: " + strconvQuote(oneLine(seg[0].Prompt, 160))
		if i > 0 && chunks[i-1].Turn == seg[0].Turn {
			prompt = "(turn continued after the compaction)"
		}
		fmt.Fprintf(&b, "turn %d · window %d · lines %d-%d · %s · %s · %s\n",
			seg[0].Turn, seg[0].Window, seg[0].FirstLine, seg[len(seg)-1].LastLine, count(len(seg), "chunk"), stamp(seg[0].Start), prompt)
		i = j
	}
	writeCompactions(-1)
	return capText(b.String(), maxList, fmt.Sprintf(`the timeline is longer than %d characters. Read a stretch with get {"session": %q, "from_line": N}`, maxList, sess.ID)), nil
}

func strconvQuote(s string) string {
	if s == "" {
		return "(none)"
	}
	return `"` + s + `"`
}

// summaryHead is the start of a compaction summary, without its boiler
// plate.
func summaryHead(s string) string {
	s = strings.TrimSpace(s)
	for _, p := range []string{"This session is being continued from a previous conversation that ran out of context.", "The summary below covers the earlier portion of the conversation.", "Summary:"} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	if s == "" {
		return ""
	}
	return strconvQuote(oneLine(s, 160))
}
