package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
)

// DefaultRestoreBudget is the restore block's size when none is given, in
// characters (bytes).
const DefaultRestoreBudget = 4000

// RestoreRequest asks for the block injected after a compaction.
type RestoreRequest struct {
	SessionID string
	Project   string
	// Root is the directory paths are shown relative to, when not the
	// project's: a linked worktree's own root (its project is the main
	// worktree's).
	Root string
	// Window is the current context window (compactions so far); the
	// restore draws from earlier windows. With 0, every window is used.
	Window int
	// Summary is the compaction summary now in the model's context; what
	// it already states is left out. When "", the summary recorded for the
	// window in the store is used, if any.
	Summary string
	// Kept is what the compaction kept verbatim of the conversation: in
	// the model's context like the summary, and left out the same way.
	Kept   string
	Budget int // characters; DefaultRestoreBudget when <= 0
	// Shares replaces DefaultRestoreShares when not zero (benchmarks
	// sweep it).
	Shares RestoreShares
}

// Block is text for Claude's context and the archive rows it came from.
type Block struct {
	Text     string // markdown, at most the budget; "" when nothing is worth injecting
	ChunkIDs []int64
	ItemIDs  []int64
	// Reason says in a few words why this text was chosen, for the audit
	// log and the web view.
	Reason string
}

// RestoreShares are the most each part of a restore may use, as
// fractions of the budget (less the header). Each part is sized from what
// is present; what a part leaves goes to the typed identifiers of the
// working set, which after a compaction are most of what the next steps
// need (see `bench needed`), and what those leave to the lost facts.
type RestoreShares struct {
	Now, Files, Commands, Facts, Steps float64
}

// DefaultRestoreShares were chosen leave-one-session-out on the needed
// and survival benchmarks (see the README's figures), not per session.
var DefaultRestoreShares = RestoreShares{Now: 0.15, Files: 0.07, Commands: 0.06, Facts: 0.30, Steps: 0.08}

// MinTypedShare is the part of the room the typed identifiers keep when
// there are enough of them, at the default budget and above. It was chosen
// leave-one-session-out over the spotter compactions and the
// claude-code-log cuts (bench needed at 2,000 and 4,000 chars, 0.3 to
// 1.0), among the values that keep bench survival's restore: every
// held-out session chose 0.6 (above it the facts give way and survival
// drops).
const MinTypedShare = 0.60

// SmallTypedShare is MinTypedShare for a budget of SmallBudget or less:
// there the header, the state and a fact line or two are most of the
// block, and the identifiers hold the most the next steps need per byte
// (some 115 characters per needed identifier held at 2,000, against a
// fact line of 200 to 300). Chosen leave-one-session-out on bench needed
// at 2,000 chars over the spotter compactions (0.6 to 0.95): four folds
// chose 0.9, one 0.85. The facts and last steps give way, which is what a
// small budget drops (bench survival at 2,000: 4 of 60 held, 6 before;
// recall finds 52). Between the two budgets the share moves linearly.
const (
	SmallTypedShare = 0.9
	SmallBudget     = 2000
)

// minTypedShare is the typed identifiers' least share of a budget's room.
func minTypedShare(budget int) float64 {
	switch {
	case budget <= SmallBudget:
		return SmallTypedShare
	case budget >= DefaultRestoreBudget:
		return MinTypedShare
	}
	f := float64(budget-SmallBudget) / float64(DefaultRestoreBudget-SmallBudget)
	return SmallTypedShare + f*(MinTypedShare-SmallTypedShare)
}

// Caps of the lines of the Now part, in bytes.
const (
	requestCap = 420 // the last user request
	todoCap    = 520 // the todo list
	aboutCap   = 300 // what the assistant said it was about to do
	stateCap   = 400 // a state note
)

// Restore selects what the compaction summary most likely lost and what
// the next step of work needs, and renders it within the budget:
//
//   - Now: the state note, the last user request, the todo list as it
//     stood, and what the assistant said it was about to do at the cut;
//   - Working set: the files edited, the last command that worked per
//     kind (test, build, lint, run, git), and the specific identifiers the
//     model typed into its tool calls (paths, names, ids, values),
//     recency-weighted, relative to the project root;
//   - Lost facts: open errors, errors with what fixed them, constraints,
//     decisions with their reasons, values and markers, ranked;
//   - Last steps: the final tool calls before the cut.
//
// Anything the compaction summary already states (exact strings,
// case-insensitively) is left out, so are noise lines and repeats. A part
// with nothing to show has no heading.
func Restore(ctx context.Context, st carryover.Store, req RestoreRequest) (Block, error) {
	budget := req.Budget
	if budget <= 0 {
		budget = DefaultRestoreBudget
	}
	summary := req.Summary
	if summary == "" {
		s, err := compactionSummary(ctx, st, req.SessionID, req.Window)
		if err != nil {
			return Block{}, err
		}
		summary = s
	}
	if req.Kept != "" {
		summary += "\n" + req.Kept
	}
	in, err := loadRestoreInput(ctx, st, req)
	if err != nil {
		return Block{}, err
	}
	return restoreFrom(in, req, summary, budget), nil
}

// restoreFrom composes the restore of what loadRestoreInput read: no
// store, so that it can be tested on any input (FuzzRestoreFrom).
func restoreFrom(in restoreInput, req RestoreRequest, summary string, budget int) Block {
	in.keepLatestWindow(req.Window)
	header := fmt.Sprintf("## carryover: restored after compaction (session %s, window %d)\n"+
		"Details the summary does not state", carryover.ShortID(req.SessionID), req.Window)
	root := cmp.Or(req.Root, req.Project)
	if root != "" && req.Root == "" {
		root = inferRoot(root, in.items[carryover.KindFileEdit])
	}
	if root != "" {
		header += "; paths relative to " + root
	}
	header += "; more: `carryover search \"<words>\"`\n"
	room := float64(max(budget-len(header), 0))
	sh := req.Shares
	if sh == (RestoreShares{}) {
		sh = DefaultRestoreShares
	}
	caps := partCaps{user: int(UserShare * room), now: int(sh.Now * room), files: int(sh.Files * room), commands: int(sh.Commands * room),
		facts: int(sh.Facts * room), steps: int(sh.Steps * room)}
	nov := newNovelty(summary, root)
	memo := &restoreMemo{}
	c := newComposer(nov, root, memo)
	blk := c.compose(in, header, budget, caps)
	// The typed identifiers hold most of what the next steps need per
	// byte: when the other parts leave them less than minTypedShare of
	// the room (small budgets), the facts and the last steps give way.
	if want := int(minTypedShare(budget) * room); c.typedLen < want && c.typedAvail > c.typedLen {
		short := min(want-c.typedLen, c.typedAvail-c.typedLen)
		cut := min(short*3/4, caps.facts)
		caps.facts -= cut
		caps.steps = max(caps.steps-(short-cut), 0)
		c = newComposer(nov, root, memo)
		blk = c.compose(in, header, budget, caps)
	}
	// What the typed identifiers could not use goes to the lost facts,
	// then to the last steps.
	if left := budget - len(blk.Text); left > 40 && blk.Text != "" {
		if c.userAvail > c.userLen {
			// The user's words that did not fit come first.
			grow := min(left, c.userAvail-c.userLen+40)
			caps.user += grow
			left -= grow
		}
		caps.facts += left * 3 / 4
		caps.steps += left / 4
		c = newComposer(nov, root, memo)
		blk = c.compose(in, header, budget, caps)
	}
	if blk.Text != "" {
		// The room is settled: the typed identifiers' families collapse
		// and more of them fill what that frees.
		if typed := c.collapseTyped(); typed != nil {
			blk = c.render(header, budget, typed)
		}
	}
	if blk.Text == "" && len(c.quoted) > 0 && len(header)+len(allStated) <= budget {
		// Say so in one line rather than pad: the summary kept it all.
		blk.Text = header + allStated
		blk.Reason = fmt.Sprintf("restore after compaction %d: the summary states all %s found", req.Window, plural(len(c.quoted), "item"))
		return blk
	}
	if blk.Text != "" {
		blk.Reason = fmt.Sprintf("restore after compaction %d: %s, %s, %s in %d of %d chars; %s typed, %s",
			req.Window, plural(len(blk.ItemIDs), "item"), plural(len(blk.ChunkIDs), "chunk"), plural(c.notes, "note"),
			len(blk.Text), budget, plural(c.typedShown, "identifier"), plural(c.steps, "last step"))
		if n := len(c.quoted); n > 0 {
			blk.Reason += fmt.Sprintf("; %s left out as already in the summary", plural(n, "item"))
		}
	}
	return blk
}

// allStated is the block's one line when the summary states everything
// the restore found.
const allStated = "- Nothing to add: the summary states every detail carryover found for this window.\n"

// partCaps are the most each part may use, in bytes.
type partCaps struct {
	user, now, files, commands, facts, steps int
}

// compose renders the block with the given caps; the typed identifiers
// take what the other parts leave.
func (c *composer) compose(in restoreInput, header string, budget int, caps partCaps) Block {
	now := c.nowPart(in, caps.now)
	user := c.userPart(in, caps.user)
	files := c.filesLine(in.items[carryover.KindFileEdit], caps.files)
	commands := c.commandLines(in.items[carryover.KindCommand], caps.commands)
	// The user's words are the first of the lost facts: they take their
	// room from the facts', not the working set's.
	facts := c.factsPart(in, max(caps.facts-partLen(user, titleUser), 0))
	steps := c.stepsPart(in.recent, caps.steps)
	c.steps = len(steps)

	used := len(header) + partLen(user, titleUser) + partLen(now, titleNow) + partLen(facts, titleFacts) + partLen(steps, titleSteps) +
		len(files) + linesLen(commands)
	wsTitle := 0
	if files == "" && len(commands) == 0 {
		wsTitle = len(titleWorkingSet)
	}
	typed := c.typedLines(in, budget-used-wsTitle)
	c.parts = composed{now: now, user: user, files: files, commands: commands, facts: facts, steps: steps}
	return c.render(header, budget, typed)
}

// composed are the parts of a composition but the typed identifiers.
type composed struct {
	now, user       []string
	files           string
	commands, facts []string
	steps           []string
}

// render writes the block of the composed parts and the typed lines.
func (c *composer) render(header string, budget int, typed []string) Block {
	pt := c.parts
	now, user, facts, steps := pt.now, pt.user, pt.facts, pt.steps
	// Over the budget (caps are shares of the room, and rounding adds
	// up), the lowest parts give way a line at a time: never a heading
	// without lines.
	ws := append(append([]string{}, pt.commands...), typed...)
	if pt.files != "" {
		ws = append([]string{pt.files}, ws...)
	}
	size := func() int {
		return len(header) + partLen(user, titleUser) + partLen(now, titleNow) + partLen(ws, titleWorkingSet) + partLen(facts, titleFacts) + partLen(steps, titleSteps)
	}
	for size() > budget {
		switch {
		case len(steps) > 0:
			steps = steps[:len(steps)-1]
		case len(facts) > 0:
			facts = facts[:len(facts)-1]
		case len(ws) > 0:
			ws = ws[:len(ws)-1]
		case len(now) > 0:
			now = now[:len(now)-1]
		case len(user) > 0:
			user = user[:len(user)-1]
		default:
			return Block{}
		}
	}
	c.steps = len(steps)
	var b strings.Builder
	b.WriteString(header)
	writePart(&b, titleNow, now)
	writePart(&b, titleUser, user)
	writePart(&b, titleWorkingSet, ws)
	writePart(&b, titleFacts, facts)
	writePart(&b, titleSteps, steps)
	if b.Len() == len(header) {
		return Block{}
	}
	return Block{Text: b.String(), ItemIDs: c.itemIDs, ChunkIDs: c.chunkIDs}
}

const (
	titleNow        = "### Now\n"
	titleWorkingSet = "### Working set\n"
	titleFacts      = "### Lost facts\n"
	titleSteps      = "### Last steps before the compaction\n"
)

func writePart(b *strings.Builder, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	b.WriteString(title)
	for _, l := range lines {
		b.WriteString(l)
	}
}

func partLen(lines []string, title string) int {
	if len(lines) == 0 {
		return 0
	}
	return len(title) + linesLen(lines)
}

func linesLen(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	return n
}

// restoreInput is what a restore reads from the store.
type restoreInput struct {
	items  map[carryover.ItemKind][]carryover.Item // newest line first
	notes  []carryover.Note
	recent []carryover.Chunk // the last chunks before the cut, newest first
	window int
}

// keepLatestWindow keeps the working set and the last steps of the window
// that just ended when the session compacted before: what earlier windows
// touched is in an earlier summary, which the new one folded in, and is no
// longer in play. (The lost facts still draw on every window, decayed.) A
// kind the window has none of keeps what it has.
func (in *restoreInput) keepLatestWindow(window int) {
	if window < 2 {
		return
	}
	last := window - 1
	for _, k := range []carryover.ItemKind{carryover.KindFileEdit, carryover.KindCommand, carryover.KindInputs} {
		its := in.items[k]
		if slices.ContainsFunc(its, func(it carryover.Item) bool { return it.Window == last }) {
			// A copy: the slice read may be shared with the caller's store.
			in.items[k] = slices.DeleteFunc(slices.Clone(its), func(it carryover.Item) bool { return it.Window != last })
		}
	}
	in.recent = slices.DeleteFunc(in.recent, func(ch carryover.Chunk) bool { return ch.Window != last })
}

// restoreKinds bound each kind's newest items read: enough candidates for
// the largest budget, few enough that a restore stays fast (reading a row
// costs microseconds); older items have decayed.
var restoreKinds = []struct {
	kinds []carryover.ItemKind
	limit int
}{
	{[]carryover.ItemKind{carryover.KindGoal}, 24},
	{[]carryover.ItemKind{carryover.KindTodo}, 1},
	{[]carryover.ItemKind{carryover.KindConstraint}, 40},
	{[]carryover.ItemKind{carryover.KindDecision}, 40},
	{[]carryover.ItemKind{carryover.KindError, carryover.KindFix}, 80},
	{[]carryover.ItemKind{carryover.KindFileEdit}, 60},
	{[]carryover.ItemKind{carryover.KindCommand}, 80},
	{[]carryover.ItemKind{carryover.KindValue}, 40},
	{[]carryover.ItemKind{carryover.KindMarker, carryover.KindNote}, 40},
	{[]carryover.ItemKind{carryover.KindInputs}, 250},
}

// recentChunks is how many of the last chunks a restore reads.
const recentChunks = 12

func loadRestoreInput(ctx context.Context, st carryover.Store, req RestoreRequest) (restoreInput, error) {
	in := restoreInput{items: map[carryover.ItemKind][]carryover.Item{}, window: req.Window}
	groups := make([]carryover.ItemGroup, len(restoreKinds))
	for i, q := range restoreKinds {
		groups[i] = carryover.ItemGroup{Kinds: q.kinds, Limit: q.limit}
	}
	read, err := carryover.ReadForRestore(ctx, st, carryover.RestoreReads{
		Items:     carryover.ItemFilter{SessionID: req.SessionID, BeforeWindow: max(req.Window, 0)},
		Groups:    groups,
		SessionID: req.SessionID, Project: req.Project,
		Recent: carryover.ChunkFilter{
			SessionID: req.SessionID, Turn: -1, BeforeWindow: max(req.Window, 0), Newest: true, Limit: recentChunks,
		},
	})
	if err != nil {
		return in, fmt.Errorf("restore: %w", err)
	}
	for g, got := range read.Groups {
		if len(restoreKinds[g].kinds) == 1 {
			// The group is the kind's items, in order: kept, not copied.
			if len(got) > 0 {
				in.items[restoreKinds[g].kinds[0]] = got
			}
			continue
		}
		for _, it := range got {
			in.items[it.Kind] = append(in.items[it.Kind], it)
		}
	}
	in.notes = restoreNotes(read.SessionNotes, read.ProjectNotes)
	in.recent = read.Recent
	return in, nil
}

func newComposer(nov novelty, root string, memo *restoreMemo) *composer {
	return &composer{nov: nov, root: root, quoted: map[int64]bool{}, memo: memo}
}

// restoreMemo keeps what the compositions of one restore share: they
// differ only in the room of each part.
type restoreMemo struct {
	// The typed identifiers, heaviest first, the item each came from, and
	// the room all of them would take.
	typed     []string
	typedShow []string // as shown: relative to the root
	typedLow  []string // typedShow in lower case
	typedRest []int    // the length of what follows each one's family prefix
	// The shortest typedShow and typedRest from each index on.
	typedMinShow, typedMinRest []int
	typedSeen                  []int8 // whether the summary holds each: 0 not asked yet, 1 yes, 2 no
	typedItem                  map[string]int64
	typedAvail                 int
	// The lost facts' candidates per section, ranked and deduplicated, and
	// the items left out as already in the summary.
	facts       *[numSections][]*entry
	factsQuoted []int64
	// The commands' lines, in order, and the commands left out as already
	// in the summary.
	commands       *[]commandCandidate
	commandsQuoted []int64
	// The last steps' lines, newest first.
	steps *[]stepCandidate
	// The user's novel statements, best first.
	user []userSentence
}

// composer renders the parts of one restore and remembers what it showed.
type composer struct {
	nov      novelty
	root     string
	itemIDs  []int64
	chunkIDs []int64
	// shown is the text of the block so far, lowercased: an identifier it
	// already holds is not listed again.
	shown      strings.Builder
	typedShown int
	// typedLen is the bytes the typed identifiers took, typedAvail what
	// all of them would take.
	typedLen, typedAvail int
	// userLen is the bytes the user's words took, userAvail what all of
	// them would take.
	userLen, userAvail int
	steps              int
	notes              int
	quoted             map[int64]bool // items left out as already in the summary
	memo               *restoreMemo
	parts              composed   // the last composition's
	pick               *typedPick // its typed identifiers
}

func (c *composer) show(line string, itemID, chunkID int64) string {
	c.shown.WriteString(strings.ToLower(line))
	if itemID != 0 && !slices.Contains(c.itemIDs, itemID) {
		c.itemIDs = append(c.itemIDs, itemID)
	}
	if chunkID != 0 && !slices.Contains(c.chunkIDs, chunkID) {
		c.chunkIDs = append(c.chunkIDs, chunkID)
	}
	return line
}

// seen reports whether the summary states the item, counting those it
// leaves out.
func (c *composer) seen(it carryover.Item) bool {
	if c.nov.seen(it) {
		c.quoted[it.ID] = true
		return true
	}
	return false
}

// rel shows a path relative to the project root when it lies inside it.
func (c *composer) rel(p string) string { return relPath(p, c.root) }

// nowPart: the state note, the last request, the todo list, what the
// assistant was about to do.
func (c *composer) nowPart(in restoreInput, room int) []string {
	var lines []string
	add := func(line string, itemID, chunkID int64) bool {
		if line == "" || linesLen(lines)+len(line) > room {
			return false
		}
		lines = append(lines, c.show(line, itemID, chunkID))
		return true
	}
	for i := len(in.notes) - 1; i >= 0; i-- {
		if n := in.notes[i]; n.Kind == "state" {
			if add("- state (note): "+clip(oneLine(n.Text), stateCap)+"\n", 0, 0) {
				c.notes++
			}
			break
		}
	}
	for _, it := range in.items[carryover.KindGoal] { // newest first
		if trivial(it) || noise(it.Text) {
			continue
		}
		switch {
		case c.seen(it):
		case pastedPrompt(it.Text):
			// A pasted log is said to be one, with the line that usually
			// matters, its last, rather than its first few hundred bytes.
			add(fmt.Sprintf("- last request (L%d): a pasted log of %d lines, ending: %s\n", it.Line,
				strings.Count(strings.TrimSpace(it.Text), "\n")+1, clip(lastLine(it.Text), requestCap/2)), it.ID, 0)
		default:
			add(fmt.Sprintf("- last request (L%d): %s\n", it.Line, clip(oneLine(it.Text), requestCap)), it.ID, 0)
		}
		break
	}
	if todos := in.items[carryover.KindTodo]; len(todos) > 0 {
		it := todos[0]
		if t := todoLine(it.Text, todoCap); t != "" {
			add(fmt.Sprintf("- todo list (L%d): %s\n", it.Line, t), it.ID, 0)
		}
	}
	if s, id := aboutTo(in.recent); s != "" && !c.nov.seenText(s) {
		add("- was about to: "+clip(s, aboutCap)+"\n", 0, id)
	}
	return lines
}

// todoLine renders a todo list on one line, the open tasks first: "[>] a
// · [ ] b · [x] c".
func todoLine(text string, room int) string {
	var open, done []string
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "[x]") || strings.HasPrefix(l, "[completed]") {
			done = append(done, l)
		} else {
			open = append(open, l)
		}
	}
	var b strings.Builder
	for _, l := range append(open, done...) {
		if b.Len() > 0 {
			l = " · " + l
		}
		if b.Len()+len(l) > room {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// aboutTo returns the last thing the assistant said before the cut (its
// last text line in the last chunks) and the chunk it is in.
func aboutTo(recent []carryover.Chunk) (string, int64) {
	for _, ch := range recent { // newest first
		lines := strings.Split(ch.Text, "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if t, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "Assistant: "); ok {
				t = oneLine(t)
				if len(t) >= 12 && !noise(t) {
					return t, ch.ID
				}
			}
		}
	}
	return "", 0
}

// filesLine lists the files edited, newest first, relative to the root.
func (c *composer) filesLine(items []carryover.Item, room int) string {
	const prefix = "- edited: "
	var b strings.Builder
	seen := map[string]bool{}
	var ids []int64
	for _, it := range items {
		p := c.rel(oneLine(it.Text))
		if p == "" || seen[p] || c.seen(it) {
			continue
		}
		seen[p] = true
		sep := ", "
		if b.Len() == 0 {
			sep = prefix
		}
		if b.Len()+len(sep)+len(p)+1 > room {
			break
		}
		b.WriteString(sep)
		b.WriteString(p)
		ids = append(ids, it.ID)
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteByte('\n')
	line := b.String()
	for _, id := range ids {
		c.show("", id, 0)
	}
	return c.show(line, 0, 0)
}

// commandKinds orders the kinds of commands shown: the last one that
// worked of each.
var commandKinds = []string{"test", "build", "lint", "run", "git"}

// commandKind classifies a shell command by what it is for, by its
// words outside quotes: a quoted argument is text (`bd close X --reason
// "tests pass"` is not a test), but for the command a shell's -c runs.
func commandKind(cmd string) string {
	low := strings.ToLower(cmd)
	f := strings.Fields(unquoted(low))
	if len(f) == 0 {
		return ""
	}
	if sh := filepath.Base(f[0]); (sh == "bash" || sh == "sh" || sh == "zsh") && slices.Contains(f[1:], "-c") {
		if _, script, ok := strings.Cut(low, " -c "); ok {
			return commandKind(strings.Trim(strings.TrimSpace(script), `'"`))
		}
	}
	// Environment assignments and wrappers before the program.
	for len(f) > 1 && (strings.Contains(f[0], "=") || f[0] == "sudo" || f[0] == "env" || f[0] == "time") {
		f = f[1:]
	}
	prog, rest := filepath.Base(f[0]), strings.Join(f[1:], " ")
	has := func(words ...string) bool {
		for _, w := range words {
			if slices.Contains(f[1:], w) || strings.HasPrefix(rest, w+" ") || rest == w {
				return true
			}
		}
		return false
	}
	switch {
	case prog == "git" || prog == "gh":
		return "git"
	case strings.Contains(prog, "test") || prog == "pytest" || prog == "jest" || prog == "vitest" ||
		has("test", "tests", "vitest", "jest", "pytest", "spec", "check") && !has("build"):
		return "test"
	case strings.Contains(prog, "lint") || prog == "staticcheck" || prog == "eslint" || prog == "ruff" ||
		prog == "gofmt" || prog == "prettier" || prog == "mypy" || has("vet", "lint", "credo", "fmt", "format", "clippy", "typecheck"):
		return "lint"
	case prog == "make" || prog == "tsc" || prog == "cmake" || prog == "ninja" || has("build", "compile", "install", "deps.get", "deps.compile"):
		return "build"
	case prog == "go" || prog == "npm" || prog == "npx" || prog == "pnpm" || prog == "yarn" || prog == "mix" ||
		prog == "cargo" || prog == "python" || prog == "python3" || prog == "node" || prog == "uv" || prog == "bun" ||
		prog == "docker" || prog == "curl" || strings.HasPrefix(f[0], "./"):
		return "run"
	}
	return ""
}

// unquoted is a command with its quoted strings ('…' and "…", to their
// end when unclosed) left out; a backslash-escaped quote does not open one.
func unquoted(cmd string) string {
	if !strings.ContainsAny(cmd, `'"`) {
		return cmd
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(cmd); i++ {
		ch := cmd[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
				b.WriteByte(' ')
			} else if ch == '\\' && quote == '"' {
				i++
			}
		case ch == '\\':
			if i+1 < len(cmd) {
				b.WriteByte(cmd[i+1])
				i++
			}
		case ch == '\'' || ch == '"':
			quote = ch
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// commandLines shows the last command that worked of each kind, then
// other commands that worked, newest first, each verbatim but for what
// only shaped its output; commands that differ only in numbers count as
// one.
func (c *composer) commandLines(items []carryover.Item, room int) []string {
	if c.memo.commands == nil {
		c.memo.commands, c.memo.commandsQuoted = c.commandCandidates(items)
	}
	for _, id := range c.memo.commandsQuoted {
		c.quoted[id] = true
	}
	var lines []string
	used := 0
	keys := map[string]bool{}
	for _, cand := range *c.memo.commands {
		if keys[cand.key] || used+len(cand.line) > room {
			continue
		}
		keys[cand.key] = true
		used += len(cand.line)
		lines = append(lines, c.show(cand.line, cand.itemID, 0))
	}
	return lines
}

// commandCandidate is a line commandLines may show.
type commandCandidate struct {
	line   string
	key    string // commands with one key count as one
	itemID int64
}

// commandCandidates renders commandLines' lines in their order, and the
// items left out as already in the summary: what does not depend on the
// room.
func (c *composer) commandCandidates(items []carryover.Item) (*[]commandCandidate, []int64) {
	found := map[string]carryover.Item{}
	var others []carryover.Item
	var quoted []int64
	for _, it := range items { // newest first
		if trivial(it) {
			continue
		}
		if c.nov.seen(it) {
			quoted = append(quoted, it.ID)
			continue
		}
		k := commandKind(it.Text)
		if _, ok := found[k]; k != "" && !ok {
			found[k] = it
			continue
		}
		others = append(others, it)
	}
	cands := []commandCandidate{}
	add := func(label string, it carryover.Item) {
		cmd := clip(shortCommand(oneLine(it.Text)), commandTextCap)
		cands = append(cands, commandCandidate{
			line:   fmt.Sprintf("- %s`%s` (L%d)\n", label, cmd, it.Line),
			key:    maskDigits(commandKey(normSpace(cmd))),
			itemID: it.ID,
		})
	}
	for _, k := range commandKinds {
		if it, ok := found[k]; ok {
			add(k+": ", it)
		}
	}
	for _, it := range others {
		add("ran: ", it)
	}
	return &cands, quoted
}

// tierWeights weigh an identifier by where the model typed it (the lines
// of a KindInputs item): into a call's arguments, or into the text it put
// into a file; or, not typed yet, named by a spec it read. After
// compactions the model re-types from memory the identifiers of its paths
// and commands several times as often as those of the text it wrote; the
// weights were chosen leave-one-session-out with bench needed.
var tierWeights = [...]float64{1, 0.3, specTierWeight}

// specTierWeight weighs a path a spec the model read names but the model
// has not typed (chunk's tierSpec). Chosen leave-one-session-out on bench
// needed at 2,000 and 4,000 chars over the spotter compactions (0.1 to
// 1): four folds chose 0.3, one 0.1; above 0.3 a small restore's spec
// paths crowd out what the model typed.
const specTierWeight = 0.3

// typedOrder ranks the identifiers of the inputs items, heaviest first
// (see typedLines), and gives the item each came from.
func typedOrder(items []carryover.Item) ([]string, map[string]int64) {
	maxLine := 1
	for _, it := range items {
		maxLine = max(maxLine, it.Line)
	}
	type weighed struct {
		id string
		w  float64
	}
	var ws []weighed // in the order first seen
	at := map[string]int{}
	itemOf := map[string]int64{}
	for _, it := range items {
		pos := float64(it.Line) / float64(maxLine)
		for tier, line := range strings.Split(it.Text, "\n") {
			f := tierWeights[min(tier, len(tierWeights)-1)]
			ids := strings.Fields(line)
			// Last used first: among the identifiers of one chunk, which
			// weigh the same, the later ones are the more recent.
			slices.Reverse(ids)
			for _, id := range ids {
				k, ok := at[id]
				if !ok {
					k = len(ws)
					at[id] = k
					ws = append(ws, weighed{id: id})
					itemOf[id] = it.ID
				}
				ws[k].w += f * pos * pos
			}
		}
	}
	slices.SortStableFunc(ws, func(a, b weighed) int { return cmpDesc(a.w, b.w) })
	order := make([]string, len(ws))
	for i, x := range ws {
		order[i] = x.id
	}
	return order, itemOf
}

// typedLines lists the specific identifiers the model typed into its tool
// calls before the cut, the most recent and most repeated first (weight:
// the sum of the squares of the relative positions of the chunks that
// hold them), without those the summary or the block already states.
func (c *composer) typedLines(in restoreInput, room int) []string {
	items := in.items[carryover.KindInputs]
	if len(items) == 0 || room < len(typedPrefix)+20 {
		return nil
	}
	if c.memo.typed == nil {
		c.memo.typed, c.memo.typedItem = typedOrder(items)
		c.memo.typedShow = make([]string, len(c.memo.typed))
		c.memo.typedLow = make([]string, len(c.memo.typed)) // as needed
		c.memo.typedSeen = make([]int8, len(c.memo.typed))
		c.memo.typedRest = make([]int, len(c.memo.typed))
		for i, id := range c.memo.typed {
			c.memo.typedShow[i] = c.rel(id)
			_, rest := familyOf(c.memo.typedShow[i])
			c.memo.typedRest[i] = len(rest)
			c.memo.typedAvail += len(c.memo.typedShow[i]) + 1
		}
		// The shortest identifier from each on: the lists stop when not
		// even it would fit.
		c.memo.typedMinShow = make([]int, len(c.memo.typed)+1)
		c.memo.typedMinRest = make([]int, len(c.memo.typed)+1)
		c.memo.typedMinShow[len(c.memo.typed)], c.memo.typedMinRest[len(c.memo.typed)] = math.MaxInt/2, math.MaxInt/2
		for i := len(c.memo.typed) - 1; i >= 0; i-- {
			c.memo.typedMinShow[i] = min(c.memo.typedMinShow[i+1], len(c.memo.typedShow[i]))
			c.memo.typedMinRest[i] = min(c.memo.typedMinRest[i+1], c.memo.typedRest[i])
		}
	}
	c.typedAvail += c.memo.typedAvail
	p := &typedPick{c: c, listed: map[string]bool{}, room: room}
	p.shown.add(c.shown.String())
	p.appendLow("")
	c.pick = p
	// The identifiers that fit written out; collapseTyped then adds more
	// in the room their families free.
	fits := func(i int, show string) bool { return p.w.add(show).size <= room }
	for i, id := range c.memo.typed {
		if p.w.size+1+c.memo.typedMinShow[i] > room {
			break // an identifier takes at least itself and a space
		}
		p.add(i, id, fits)
	}
	lines := wrapTyped(p.chosen)
	c.typedLen = linesLen(lines)
	return lines
}

// typedPick is typedLines' choice, which collapseTyped extends.
type typedPick struct {
	c       *composer
	shown   countedText // the block's other parts, lower case
	chosen  []string    // as shown
	low     []string    // lower case, beside chosen
	lowText countedText // low, each after a space
	listed  map[string]bool
	room    int
	w       wrapState // the lines chosen take
	fam     families  // the same with families collapsed, once collapsed
}

// collapseTyped lays out the typed identifiers with their families
// collapsed and adds more of them in the room that frees. It changes no
// other part: the block holds at least what it would without families.
func (c *composer) collapseTyped() []string {
	p := c.pick
	if p == nil || len(p.chosen) == 0 {
		return nil
	}
	p.fam = newFamilies(p.chosen)
	// Joining a family of two or more takes at least the member and a
	// comma: most identifiers fail that cheap test.
	fits := func(i int, show string) bool {
		return p.fam.size+1+c.memo.typedRest[i] <= p.room && p.fam.sizeWith(show) <= p.room
	}
	for i, id := range c.memo.typed {
		if p.fam.size+1+c.memo.typedMinRest[i] > p.room {
			break
		}
		p.add(i, id, fits)
	}
	return wrapTyped(p.fam.tokens())
}

// add lists the i-th identifier when fits says it fits and neither the
// summary, the block nor a listed identifier holds it.
func (p *typedPick) add(i int, id string, fits func(i int, show string) bool) {
	c := p.c
	show := c.memo.typedShow[i]
	if !fits(i, show) || p.listed[show] {
		return // a shorter one may still fit
	}
	// An identifier inside one listed already is shown by it. (These
	// scans of the summary come after the cheap test above: most of a
	// long session's identifiers no longer fit.)
	l := c.memo.typedLow[i]
	if l == "" {
		l = strings.ToLower(show)
		c.memo.typedLow[i] = l
	}
	if c.memo.typedSeen[i] == 0 {
		c.memo.typedSeen[i] = 2
		if c.nov.seenIdent(id) {
			c.memo.typedSeen[i] = 1
		}
	}
	if c.memo.typedSeen[i] == 1 || p.shown.contains(l) || p.lowText.contains(l) {
		return
	}
	collapsed := p.fam.toks != nil
	// One listed already that this one contains gives way to it
	// (src/router/index.js to packages/app/src/router/index.js).
	if slices.ContainsFunc(p.low, func(x string) bool { return strings.Contains(l, x) }) {
		var keep, keepLow []string
		p.lowText = countedText{}
		p.appendLow("")
		for k, x := range p.low {
			if strings.Contains(l, x) {
				delete(p.listed, p.chosen[k])
				c.typedShown--
				continue
			}
			keep, keepLow = append(keep, p.chosen[k]), append(keepLow, x)
			p.appendLow(x)
		}
		p.chosen, p.low = keep, keepLow
		p.w = wrapState{}
		for _, x := range p.chosen {
			p.w = p.w.add(x)
		}
		if collapsed {
			p.fam = newFamilies(p.chosen)
		}
	}
	p.chosen, p.low = append(p.chosen, show), append(p.low, l)
	p.appendLow(l)
	p.w = p.w.add(show)
	if collapsed {
		p.fam.size = p.fam.sizeWith(show)
		p.fam.add(show)
	}
	p.listed[show] = true
	c.typedShown++
	c.show("", c.memo.typedItem[id], 0)
}

// appendLow appends l and a space to lowText ("" gives its leading
// space).
func (p *typedPick) appendLow(l string) {
	p.lowText.add(l)
	p.lowText.add(" ")
}

// families lays out identifiers with their families collapsed, as a shell
// writes them: paths of one directory as dir/{a.ex,b.ex}, names of one
// parent as parent.{x,y}. A family sits where its first member does.
type families struct {
	toks []family
	at   map[string]int // a family's index in toks by its prefix
	size int            // of wrapTyped's lines, kept by the caller of add
}

type family struct {
	prefix  string   // "" for an identifier with none
	members []string // what follows the prefix
}

// familyOf splits an identifier into its family's prefix and the rest.
func familyOf(id string) (prefix, rest string) {
	if strings.ContainsAny(id, "{},") {
		return "", id // it would read as a family of its own
	}
	sep := byte('.')
	if strings.Contains(id, "/") {
		sep = '/'
	}
	i := strings.LastIndexByte(id, sep)
	if i < 3 || i == len(id)-1 {
		return "", id
	}
	return id[:i+1], id[i+1:]
}

func (f family) len() int {
	n := len(f.prefix) + len(f.members) - 1
	for _, m := range f.members {
		n += len(m)
	}
	if len(f.members) > 1 {
		n += 2 // the braces
	}
	return n
}

func (f family) String() string {
	if len(f.members) == 1 {
		return f.prefix + f.members[0]
	}
	return f.prefix + "{" + strings.Join(f.members, ",") + "}"
}

// newFamilies lays out ids, and measures them.
func newFamilies(ids []string) families {
	var fs families
	for _, id := range ids {
		fs.add(id)
	}
	var w wrapState
	for _, f := range fs.toks {
		w = w.addLen(f.len())
	}
	fs.size = w.size
	return fs
}

// add adds id; its caller keeps size.
func (fs *families) add(id string) {
	p, rest := familyOf(id)
	if k, ok := fs.at[p]; ok && p != "" {
		fs.toks[k].members = append(fs.toks[k].members, rest)
		return
	}
	if fs.at == nil {
		fs.at = map[string]int{}
	}
	fs.at[p] = len(fs.toks)
	fs.toks = append(fs.toks, family{prefix: p, members: []string{rest}})
}

// sizeWith is the size of wrapTyped's lines with id added.
func (fs *families) sizeWith(id string) int {
	p, rest := familyOf(id)
	k, ok := fs.at[p]
	if p == "" || !ok {
		k = -1
	}
	var w wrapState
	for i, f := range fs.toks {
		n := f.len()
		if i == k {
			n += 1 + len(rest)
			if len(f.members) == 1 {
				n += 2
			}
		}
		w = w.addLen(n)
	}
	if k < 0 {
		w = w.addLen(len(id))
	}
	return w.size
}

func (fs *families) tokens() []string {
	out := make([]string, len(fs.toks))
	for i, f := range fs.toks {
		out[i] = f.String()
	}
	return out
}

// typedPrefix opens the typed identifiers; typedWidth is where their
// lines wrap.
const (
	typedPrefix = "- typed: "
	typedWidth  = 110
)

// wrapTyped lays the identifiers out on lines of about typedWidth bytes,
// the first after typedPrefix, the others indented.
func wrapTyped(ids []string) []string {
	var lines []string
	var line strings.Builder
	for _, id := range ids {
		switch {
		case line.Len() == 0 && len(lines) == 0:
			line.WriteString(typedPrefix)
		case line.Len() == 0:
			line.WriteString("  ")
		case line.Len()+1+len(id) > typedWidth:
			line.WriteByte('\n')
			lines = append(lines, line.String())
			line.Reset()
			line.WriteString("  ")
		default:
			line.WriteByte(' ')
		}
		line.WriteString(id)
	}
	if line.Len() > 0 {
		line.WriteByte('\n')
		lines = append(lines, line.String())
	}
	return lines
}

// wrapState is the size of wrapTyped's lines as identifiers are added.
type wrapState struct {
	size int // bytes, newlines included
	last int // the last line's, without its newline
}

// add returns the state with id added after the others.
func (w wrapState) add(id string) wrapState { return w.addLen(len(id)) }

// addLen returns the state with an identifier of n bytes added.
func (w wrapState) addLen(n int) wrapState {
	switch {
	case w.size == 0:
		w.last = len(typedPrefix) + n
		w.size = w.last + 1
	case w.last+1+n > typedWidth:
		w.last = 2 + n
		w.size += w.last + 1
	default:
		w.last += 1 + n
		w.size += 1 + n
	}
	return w
}

// wrappedLen is the size of wrapTyped(ids).
func wrappedLen(ids []string) int {
	var w wrapState
	for _, id := range ids {
		w = w.add(id)
	}
	return w.size
}

// factsPart ranks the lost facts — open errors, fixed errors, user
// constraints, decisions, values, markers and notes — and takes the best
// that fit, interleaving the kinds by their shares.
// factCandidates ranks the lost facts' candidates of each section and
// drops duplicates: what does not depend on the room of the parts.
func (c *composer) factCandidates(in restoreInput) *[numSections][]*entry {
	r := ranker{window: in.window, maxLine: 1, project: c.root}
	for _, its := range in.items {
		for _, it := range its {
			r.maxLine = max(r.maxLine, it.Line)
		}
	}
	var secs [numSections][]*entry
	for sec := range numSections {
		var kinds []carryover.ItemKind
		switch sec {
		case secErrors:
			kinds = []carryover.ItemKind{carryover.KindError, carryover.KindFix}
		case secConstraints:
			kinds = []carryover.ItemKind{carryover.KindConstraint}
		case secDecisions:
			kinds = []carryover.ItemKind{carryover.KindDecision}
		case secValues:
			kinds = []carryover.ItemKind{carryover.KindValue}
		case secNotes:
			kinds = []carryover.ItemKind{carryover.KindMarker, carryover.KindNote}
		}
		type scored struct {
			it    carryover.Item
			score float64
		}
		var ss []scored
		for _, k := range kinds {
			for _, it := range in.items[k] {
				if it.Kind == carryover.KindValue {
					it.Text = c.nov.unseenValues(dropNoiseValues(it.Text))
				}
				if it.Text == "" {
					continue
				}
				if c.nov.seen(it) {
					c.memo.factsQuoted = append(c.memo.factsQuoted, it.ID)
					continue
				}
				if !trivial(it) && !noise(it.Text) {
					ss = append(ss, scored{it, r.score(it)})
				}
			}
		}
		slices.SortStableFunc(ss, func(a, b scored) int { return cmpDesc(a.score, b.score) })
		var es []*entry
		for _, s := range ss[:min(len(ss), 2*candidatesCap)] {
			es = append(es, r.itemEntry(sec, s.it, s.score))
		}
		for _, n := range in.notes {
			if n.Kind != "state" && noteSection(n.Kind) == sec && !c.nov.seenText(n.Text) {
				es = append(es, r.noteEntry(sec, n))
			}
		}
		slices.SortStableFunc(es, func(a, b *entry) int { return cmpDesc(a.score, b.score) })
		secs[sec] = es
	}
	dedupe(&secs)
	return &secs
}

func (c *composer) factsPart(in restoreInput, room int) []string {
	if c.memo.facts == nil {
		c.memo.facts = c.factCandidates(in)
		for _, es := range c.memo.facts {
			for _, e := range es {
				e.low = strings.ToLower(e.text)
			}
		}
	}
	for _, id := range c.memo.factsQuoted {
		c.quoted[id] = true
	}
	var secs [numSections][]*entry
	for sec := range secs {
		secs[sec] = slices.Clone(c.memo.facts[sec])
	}
	// What the working set already shows is not repeated as a fact.
	shown := c.shown.String()
	for sec := range secs {
		secs[sec] = slices.DeleteFunc(secs[sec], func(e *entry) bool {
			return e.text != "" && strings.Contains(shown, e.low)
		})
	}
	chosen := fill(interleave(secs), room)
	// Open errors first, then by kind in the order of the sections.
	slices.SortStableFunc(chosen, func(a, b picked) int {
		ao, bo := a.sec == secErrors && a.open, b.sec == secErrors && b.open
		switch {
		case ao && !bo:
			return -1
		case bo && !ao:
			return 1
		}
		return int(a.sec) - int(b.sec)
	})
	lines := make([]string, 0, len(chosen))
	for _, p := range chosen {
		lines = append(lines, c.show(p.line, p.itemID, p.chunkID))
	}
	return lines
}

// stepsPart shows the last tool calls before the cut, oldest first, one
// short line each.
func (c *composer) stepsPart(recent []carryover.Chunk, room int) []string {
	if c.memo.steps == nil {
		c.memo.steps = c.stepCandidates(recent)
	}
	// Newest first is how they were gathered; keep the newest that fit,
	// then show them in order.
	var keep []stepCandidate
	used := 0
	seen := map[string]bool{}
	for _, s := range *c.memo.steps {
		if seen[s.key] || s.stated {
			continue
		}
		if used+len(s.line) > room {
			break
		}
		seen[s.key] = true
		used += len(s.line)
		keep = append(keep, s)
	}
	slices.Reverse(keep)
	lines := make([]string, len(keep))
	for i, s := range keep {
		// A step names its call, not what the call returned: its chunk is
		// not counted as injected, so a prompt's recall may still bring
		// the output back in this window.
		lines[i] = c.show(s.line, 0, 0)
	}
	return lines
}

// stepCandidate is a line stepsPart may show.
type stepCandidate struct {
	line   string
	key    string // the call without its line number
	stated bool   // the summary holds all its identifiers
}

// stepCandidates are the last tool calls before the cut, newest first:
// what stepsPart shows does not depend on the room.
func (c *composer) stepCandidates(recent []carryover.Chunk) *[]stepCandidate {
	const lineCap = 130
	cands := []stepCandidate{}
	for _, ch := range recent { // newest first
		lines := strings.Split(ch.Text, "\n")
		var mine []string
		for _, l := range lines {
			l = strings.TrimSpace(l)
			if !isCallLine(l) {
				continue
			}
			mine = append(mine, l)
		}
		for i := len(mine) - 1; i >= 0; i-- {
			l := fmt.Sprintf("- L%d %s\n", ch.LastLine, clip(c.relLine(mine[i]), lineCap))
			key := l[strings.IndexByte(l, ' ')+1:]
			_, key, _ = strings.Cut(key, " ")
			cands = append(cands, stepCandidate{line: l, key: key, stated: c.nov.seenAllIdents(key)})
		}
		if len(cands) >= 12 {
			break
		}
	}
	return &cands
}

// relLine shows the paths of a rendered call relative to the root.
func (c *composer) relLine(l string) string {
	if c.root == "" {
		return l
	}
	return projectdir.TrimRoot(l, c.root)
}

// callPrefixes start the lines of a chunk that render a tool call (see
// package chunk).
var callPrefixes = []string{"$ ", "Edit ", "MultiEdit ", "Write ", "Read ", "Grep ", "Glob ", "LS ", "NotebookEdit ",
	"WebFetch ", "WebSearch ", "Task", "Agent", "TodoWrite", "Skill ", "TaskCreate ", "TaskUpdate "}

func isCallLine(l string) bool {
	for _, p := range callPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// noise reports texts that never help the next step: interruption
// markers, bare acknowledgements, test tallies, escaped whitespace only.
func noise(s string) bool {
	t := strings.TrimSpace(s)
	l := strings.ToLower(t)
	switch {
	case t == "":
		return true
	case strings.Contains(l, "[request interrupted"), strings.Contains(l, "request interrupted by user"),
		strings.HasPrefix(l, "no response requested"):
		return true
	case testTally(l):
		return true
	case strings.Trim(strings.ReplaceAll(strings.ReplaceAll(t, `\n`, ""), `\t`, ""), " ") == "":
		return true
	}
	if specificity(t, 1) > 0 {
		return false
	}
	for _, p := range []string{"ok", "okay", "good", "great", "perfect", "expected", "done", "got it", "sure",
		"excellent", "all good", "looks good", "now let me", "let me"} {
		if l == p || strings.HasPrefix(l, p+" ") || strings.HasPrefix(l, p+",") || strings.HasPrefix(l, p+".") ||
			strings.HasPrefix(l, p+"!") || strings.HasPrefix(l, p+" —") {
			return len(t) < 80
		}
	}
	return false
}

// testTally reports a line that only counts tests ("5 tests, 0
// failures", "12 passed", "ok 3 tests").
func testTally(l string) bool {
	f := strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == '(' || r == ')' })
	if len(f) == 0 || len(f) > 8 {
		return false
	}
	counts := 0
	for _, w := range f {
		switch w {
		case "tests", "test", "failures", "failure", "passed", "failed", "skipped", "errors", "error", "ok",
			"doctests", "properties", "excluded", "pending", "assertions", "examples":
			counts++
		default:
			if strings.Trim(w, "0123456789.") != "" {
				return false
			}
		}
	}
	return counts > 0
}

// dropNoiseValues removes test tallies from a value item's values.
func dropNoiseValues(text string) string {
	var keep []string
	for v := range strings.SplitSeq(text, valueSep) {
		if !testTally(strings.ToLower(strings.TrimSpace(v))) {
			keep = append(keep, v)
		}
	}
	return strings.Join(keep, valueSep)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// inferRoot returns the directory a restore shows paths relative to when
// dir, the session's project, is not a directory on this machine (a
// transcript from elsewhere, a replay), so its repository root could not
// be found: the nearest of dir and its two parents that holds at least
// half of the files the session edited, else dir. A session started in a
// repository's subfolder edits files across the repository.
func inferRoot(dir string, edits []carryover.Item) string {
	if !filepath.IsAbs(dir) || len(edits) == 0 {
		return dir
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir
	}
	under := func(d string) int {
		n := 0
		for _, it := range edits {
			if rel, err := filepath.Rel(d, it.Text); err == nil && filepath.IsLocal(rel) {
				n++
			}
		}
		return n
	}
	for d, up := dir, 0; up <= 2; d, up = filepath.Dir(d), up+1 {
		if 2*under(d) >= len(edits) {
			return d
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return dir
}
