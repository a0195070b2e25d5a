package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/carryover-dev/carryover"
)

// InstructionsCap bounds the PreCompact instructions, in characters.
const InstructionsCap = 3000

// VerbatimCap bounds the session's own "keep these verbatim" list within
// the instructions.
const VerbatimCap = 1500

// instructionsBase tells the summariser what to keep verbatim.
const instructionsBase = `Compaction instructions from carryover:
- Keep exact file paths (full, as written) for every file created, edited or read for the task.
- Keep exact shell commands that passed (build, test, run, git), with their flags.
- Keep every unresolved error verbatim (the message, the file and line), and for fixed ones what fixed them.
- Keep decisions with their reasons, and approaches rejected with why.
- Keep every user constraint and preference verbatim ("always", "never", "don't", "must").
- Keep the current task, the next step and the todo list state (done / in progress / pending).
- Prefer exact identifiers, values and numbers over paraphrase.
The full verbatim conversation is archived: after compaction, exact details can be looked up with ` + "`carryover search \"<words>\"`" + ` (or the MCP tool ` + "`search`" + ` when installed), so mention where to look rather than dropping a detail silently.
`

// Instructions returns the text appended to the summariser's prompt at
// PreCompact: what to keep verbatim, that the archive is searchable, and
// the session's own list of details to keep verbatim (at most
// VerbatimCap): what the user stated, the files being edited, the last
// passing test and build commands, the open errors and the todo state of
// this window, all within InstructionsCap. The summariser has a far larger
// budget than the restore; what it keeps, the restore then leaves out.
func Instructions(ctx context.Context, st carryover.Store, sessionID string, window int) (string, error) {
	var b strings.Builder
	b.WriteString(instructionsBase)
	if sessionID == "" {
		return b.String(), nil
	}
	window = max(window, 0)
	groups, err := carryover.ReadItemGroups(ctx, st, carryover.ItemFilter{SessionID: sessionID, BeforeWindow: window + 1},
		[]carryover.ItemGroup{
			{Kinds: []carryover.ItemKind{carryover.KindGoal}, Limit: 40},
			// The list keeps only this window's edits, commands and errors
			// (the summary the window began with had the others).
			{Kinds: []carryover.ItemKind{carryover.KindFileEdit}, Limit: 100, LastWindow: true},
			{Kinds: []carryover.ItemKind{carryover.KindCommand}, Limit: 80, LastWindow: true},
			{Kinds: []carryover.ItemKind{carryover.KindError}, Limit: 50, LastWindow: true},
			{Kinds: []carryover.ItemKind{carryover.KindTodo}, Limit: 1},
			// A spec's headings: the restore leaves them to the summary and
			// the search (measured in the restore, they took the room of
			// values and identifiers the next step used as often).
			{Kinds: []carryover.ItemKind{carryover.KindSpec}, Limit: 12},
		})
	if err != nil {
		return "", fmt.Errorf("instructions items: %w", err)
	}
	specInputs := ""
	if len(groups[5]) > 0 {
		// The files the newest spec names (the third line of its chunk's
		// inputs item): the next steps of its task type them. A task's
		// spec is often read hundreds of steps before its compaction.
		inputs, err := st.Items(ctx, carryover.ItemFilter{SessionID: sessionID, ChunkSeqs: []int{groups[5][0].ChunkSeq},
			Kinds: []carryover.ItemKind{carryover.KindInputs}, Limit: 1})
		if err != nil {
			return "", fmt.Errorf("instructions items: %w", err)
		}
		if len(inputs) > 0 {
			specInputs = inputs[0].Text
		}
	}
	b.WriteString(verbatimList(groups, specInputs, InstructionsCap-b.Len()))
	return b.String(), nil
}

// verbatimList is the session's "keep these verbatim" list, headed, of
// the items Instructions read (its groups, whose edits, commands and
// errors are the window's being compacted, and the text of the newest
// spec's inputs item); "" when it has nothing or would not fit in room
// bytes. It reads no store, so that it can be tested on any items
// (FuzzVerbatimList).
func verbatimList(groups [][]carryover.Item, specInputs string, room int) string {
	goals, edits, commands, errs, todos := groups[0], groups[1], groups[2], groups[3], groups[4]
	spec := specLines(groups[5])
	var specFiles []string
	if specInputs != "" {
		specFiles = specFileLine(specInputs, 300)
	}

	// The user's statements: every window's (an earlier summary may have
	// dropped them), the best first, then in the order they were said.
	c := newComposer(newNovelty("", ""), "", &restoreMemo{})
	said := c.userCandidates(restoreInput{items: map[carryover.ItemKind][]carryover.Item{carryover.KindGoal: goals}})
	var user []string
	used := 0
	for _, s := range said {
		if s.score < 1 || used+len(s.text) > verbatimUserCap {
			continue
		}
		user = append(user, s.text)
		used += len(s.text)
	}

	var files []string
	seen := map[string]bool{}
	for _, it := range edits {
		if p := oneLine(it.Text); !seen[p] && len(files) < 10 {
			seen[p] = true
			files = append(files, clip(p, 150))
		}
	}
	var cmds []string
	found := map[string]bool{}
	for _, it := range commands { // newest first
		k := commandKind(it.Text)
		if (k == "test" || k == "build" || k == "lint") && !found[k] {
			found[k] = true
			cmds = append(cmds, k+": "+clip(shortCommand(oneLine(it.Text)), commandTextCap))
		}
	}
	var open []string
	for _, it := range errs {
		if !it.Resolved && len(open) < 3 {
			open = append(open, clip(oneLine(it.Text), 150))
		}
	}
	var todo []string
	if len(todos) > 0 {
		if t := todoLine(todos[0].Text, 300); t != "" {
			todo = append(todo, t)
		}
	}

	list := &capped{max: VerbatimCap}
	list.add("What the user stated (keep verbatim, with the values):\n", user, verbatimUserCap+120)
	list.add("Errors still open (keep verbatim):\n", open, 500)
	list.add("Last passing commands (keep verbatim):\n", cmds, 450)
	list.add("The current task's spec says (keep verbatim):\n", spec, 450)
	list.add("Files the task's spec names (keep these paths):\n", specFiles, 350)
	list.add("Files being edited (keep these paths):\n", files, 600)
	list.add("Todo state:\n", todo, 350)
	if list.b.Len() == 0 || len(verbatimHeading)+list.b.Len() > room {
		return ""
	}
	return verbatimHeading + list.b.String()
}

// specLines are the sections of the newest spec a tool printed (the task
// in progress), one line each, of the spec items read newest first.
func specLines(specs []carryover.Item) []string {
	var out []string
	for _, it := range specs {
		if it.Line == specs[0].Line {
			out = append(out, clip(oneLine(it.Text), 300))
		}
	}
	slices.Reverse(out) // the spec's order
	return out
}

// specFileLine lists, in at most room bytes, the paths a spec names: the
// third line of the text of the inputs item of its chunk, in the spec's
// order.
func specFileLine(inputs string, room int) []string {
	lines := strings.Split(inputs, "\n")
	if len(lines) < 3 {
		return nil
	}
	ids := strings.Fields(lines[2])
	slices.Reverse(ids) // stored first named last
	var b strings.Builder
	for _, id := range ids {
		if b.Len()+len(id)+1 > room {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(id)
	}
	if b.Len() == 0 {
		return nil
	}
	return []string{b.String()}
}

// verbatimHeading opens the session's own list.
const verbatimHeading = "Keep these details of this session verbatim:\n"

// verbatimUserCap bounds the user's statements in the list.
const verbatimUserCap = 600

// capped is a list of headed lines within max bytes.
type capped struct {
	b   strings.Builder
	max int
}

// add appends a heading and as many of the lines as fit, in at most
// part bytes; nothing when not even the first line fits.
func (c *capped) add(heading string, lines []string, part int) {
	limit := min(c.max, c.b.Len()+part)
	if len(lines) == 0 || c.b.Len()+len(heading)+len(lines[0])+3 > limit {
		return
	}
	c.b.WriteString(heading)
	for _, l := range lines {
		if c.b.Len()+len(l)+3 > limit {
			break
		}
		c.b.WriteString("- " + l + "\n")
	}
}
