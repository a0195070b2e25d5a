package retrieve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
)

// The user's words: what the user stated in their prompts (and when
// declining a tool call) that the summary lacks — decisions, constraints,
// preferences, values — verbatim, with the line, ahead of the working set.
// They are the facts a model cannot rediscover in the files.

// UserShare is the part of the room the user's words may take before the
// other parts are sized; what the other parts leave unused comes back to
// them (a short session gets everything novel that fits).
const UserShare = 0.2

// shortSession is the most prompts a session may have for its user's
// plain requests to count as words to keep.
const shortSession = 3

// userLineCap bounds one line of the user's words: the sentences of one
// prompt.
const userLineCap = 420

// titleUser heads the user's words.
const titleUser = "### The user said\n"

// statementCues mark a sentence that states something to keep: a choice,
// a rule, a preference, a value.
var statementCues = []string{"decided", "decide", "we'll", "we will", "let's", "always", "never", "don't",
	"do not", "must", "should", "prefer", "instead", "rather than", "make sure", "from now on", "i want", "we want",
	"i'd like", "call it",
	// Chinese: decided, must, don't, always, never, use, from now on.
	"决定", "必须", "不要", "总是", "始终", "永远", "使用", "以后"}

// valueCues state a value when the sentence holds a specific token ("the
// port is 48213", "timeout = 30s").
var valueCues = []string{" is ", " are ", "=", ": ", " to ", "是", "为", "："}

// hasValue reports a specific token or a number in s.
func hasValue(s string) bool {
	return strings.ContainsAny(s, "0123456789") || specificity(s, 1) > 0
}

// userSentence is a candidate sentence of the user's words.
type userSentence struct {
	it    carryover.Item
	pos   int // index within the item
	text  string
	score float64
	note  string // the kind of the note it is, or ""
}

// noteScore ranks the notes the user kept explicitly above any sentence
// of a prompt.
const noteScore = 10.0

// userPrefix starts the line of the user's words of one prompt or note.
func userPrefix(s userSentence) string {
	if s.note != "" {
		return "- " + s.note + " (note): "
	}
	return fmt.Sprintf("- L%d: ", s.it.Line)
}

// userCandidates returns the novel statements of the user's prompts,
// best first. The items are newest first.
func (c *composer) userCandidates(in restoreInput) []userSentence {
	goals := in.items[carryover.KindGoal]
	maxLine := 1
	for _, it := range goals {
		maxLine = max(maxLine, it.Line)
	}
	var out []userSentence
	seen := map[string]bool{}
	for _, it := range goals {
		if trivial(it) || noise(it.Text) {
			continue
		}
		for i, s := range chunk.Sentences(it.Text) {
			key := normSpace(s)
			if seen[key] || !userStatement(s) {
				continue
			}
			seen[key] = true
			if c.nov.seenText(s) || c.nov.seenAllIdents(s) || c.nov.seenWords(s) {
				c.quoted[it.ID] = true
				continue
			}
			score := 0.3
			switch {
			case containsAnyFold(s, statementCues), hasValue(s) && containsAnyFold(s, valueCues):
				score = 1
			case len(goals) > shortSession:
				continue // in a long session, only statements and values
			}
			score += 0.25*float64(specificity(s, 3)) + 0.3*float64(it.Line)/float64(maxLine)
			out = append(out, userSentence{it: it, pos: i, text: s, score: score})
		}
	}
	// The notes kept with `carryover note` (the state goes to Now).
	for _, n := range in.notes {
		if n.Kind == "state" || strings.TrimSpace(n.Text) == "" || c.nov.seenText(n.Text) {
			continue
		}
		kind := n.Kind
		if kind == "" {
			kind = "note"
		}
		out = append(out, userSentence{it: carryover.Item{ID: -n.ID}, text: clip(oneLine(n.Text), userLineCap-40),
			score: noteScore, note: kind})
	}
	slices.SortStableFunc(out, func(a, b userSentence) int { return cmpDesc(a.score, b.score) })
	return out
}

// userPart renders the best novel statements that fit in room, grouped by
// prompt in the order they were said, each line with its transcript line.
// A sentence the block already shows (the last request) is not repeated.
func (c *composer) userPart(in restoreInput, room int) []string {
	if c.memo.user == nil {
		c.memo.user = c.userCandidates(in)
	}
	shown := c.shown.String()
	type group struct {
		it    carryover.Item
		sents []userSentence
	}
	// Notes first, then prompts in the order they were said.
	order := func(g *group) int {
		if g.sents[0].note != "" {
			return -1
		}
		return g.it.Line
	}
	var groups []*group
	byItem := map[int64]*group{}
	used := 0
	lineLen := func(g *group, extra *userSentence) int {
		ss := g.sents
		if extra != nil {
			ss = append(slices.Clone(ss), *extra)
		}
		n := len(userPrefix(ss[0])) + 1
		for i, s := range ss {
			if i > 0 {
				n++
			}
			n += len(s.text)
		}
		return n
	}
	for _, s := range c.memo.user {
		if strings.Contains(shown, strings.ToLower(s.text)) {
			continue
		}
		g := byItem[s.it.ID]
		before := 0
		if g == nil {
			g = &group{it: s.it}
		} else {
			before = lineLen(g, nil)
		}
		after := lineLen(g, &s)
		if after > userLineCap || used-before+after > room {
			continue
		}
		if byItem[s.it.ID] == nil {
			byItem[s.it.ID] = g
			groups = append(groups, g)
		}
		g.sents = append(g.sents, s)
		used += after - before
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return order(a) - order(b) })
	c.userLen = used
	if c.userAvail == 0 {
		for _, s := range c.memo.user {
			c.userAvail += len(s.text) + 8
		}
	}
	var lines []string
	for _, g := range groups {
		slices.SortFunc(g.sents, func(a, b userSentence) int { return a.pos - b.pos })
		texts := make([]string, len(g.sents))
		for i, s := range g.sents {
			texts[i] = s.text
		}
		id := g.it.ID
		if id < 0 {
			id = 0 // a note, not an item
		}
		if g.sents[0].note != "" {
			c.notes++
		}
		lines = append(lines, c.show(userPrefix(g.sents[0])+strings.Join(texts, " ")+"\n", id, 0))
	}
	return lines
}

// userStatement reports whether a sentence of a prompt states something
// rather than asks, and is the user's own text rather than pasted code,
// a table or a log.
func userStatement(s string) bool {
	if len(s) < 12 || len(s) > userLineCap-12 || strings.Count(s, "|") >= 2 || strings.ContainsAny(s, "{}\t") ||
		strings.Contains(s, "</") || strings.Contains(s, `\n`) || noise(s) {
		return false
	}
	return !chunk.IsQuestion(strings.ToLower(s)) && !strings.HasSuffix(s, "…") && !pastedLog(s)
}

// pastedLog reports a sentence that reads like pasted output: it opens
// with a time or a number, or holds two or more URLs or an upper-case
// error code.
func pastedLog(s string) bool {
	if s[0] >= '0' && s[0] <= '9' || strings.Count(s, "://") >= 2 {
		return true
	}
	for f := range strings.FieldsSeq(s) {
		f = strings.Trim(f, "`'\"()[]{},;:.")
		if len(f) >= 8 && strings.Contains(f, "_") && strings.ToUpper(f) == f && strings.ContainsAny(f, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			return true // NS_ERROR_CORRUPTED_CONTENT, ERR_CONNECTION_REFUSED
		}
	}
	return false
}

// pastedPrompt reports a prompt that is a pasted log rather than the
// user's words: at least minPastedLines lines, three in four of which read
// like pasted output.
func pastedPrompt(text string) bool {
	n, pasted := 0, 0
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		n++
		if pastedLog(line) {
			pasted++
		}
	}
	return n >= minPastedLines && pasted*4 >= n*3
}

// minPastedLines is the fewest lines a prompt needs to count as a pasted log.
const minPastedLines = 8

// lastLine returns the last non-empty line of text.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func containsAnyFold(s string, subs []string) bool {
	low := strings.ToLower(s)
	for _, w := range subs {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// seenWords reports whether the summary holds nearly every content word
// of s (four letters or more): a sentence it paraphrases closely.
func (n novelty) seenWords(s string) bool {
	if n.summary == "" {
		return false
	}
	total, found := 0, 0
	for _, w := range words(lowerASCII(s)) {
		if len(w) < 4 {
			continue
		}
		total++
		if n.grams.mayContain(w) && n.contains(w) {
			found++
		}
	}
	return total >= 3 && found*5 >= total*4
}
