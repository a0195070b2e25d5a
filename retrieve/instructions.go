package retrieve

import (
	"context"
	"fmt"
	"strings"

	"github.com/carryover-dev/carryover"
)

// InstructionsCap bounds the PreCompact instructions, in characters.
const InstructionsCap = 2000

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
// reminders of this window's open errors and edited files, all within
// InstructionsCap.
func Instructions(ctx context.Context, st carryover.Store, sessionID string, window int) (string, error) {
	var b strings.Builder
	b.WriteString(instructionsBase)
	if sessionID == "" {
		return b.String(), nil
	}
	items, err := st.Items(ctx, carryover.ItemFilter{
		SessionID:    sessionID,
		Kinds:        []carryover.ItemKind{carryover.KindError},
		BeforeWindow: max(window, 0) + 1,
		Limit:        50,
	})
	if err != nil {
		return "", fmt.Errorf("instructions errors: %w", err)
	}
	var open []string
	for _, it := range items {
		if it.Window == window && !it.Resolved && len(open) < 3 {
			open = append(open, clip(oneLine(it.Text), 150))
		}
	}
	items, err = st.Items(ctx, carryover.ItemFilter{
		SessionID:    sessionID,
		Kinds:        []carryover.ItemKind{carryover.KindFileEdit},
		BeforeWindow: max(window, 0) + 1,
		Limit:        100,
	})
	if err != nil {
		return "", fmt.Errorf("instructions files: %w", err)
	}
	var files []string
	seen := map[string]bool{}
	for _, it := range items {
		p := oneLine(it.Text)
		if it.Window == window && !seen[p] && len(files) < 10 {
			seen[p] = true
			files = append(files, clip(p, 150))
		}
	}

	remind(&b, "Errors still open in this part of the session (keep them verbatim):\n", open)
	remind(&b, "Files edited in this part of the session (keep these paths):\n", files)
	return b.String(), nil
}

// remind appends a heading and as many of the lines as fit in
// InstructionsCap; nothing when not even the first line fits.
func remind(b *strings.Builder, heading string, lines []string) {
	if len(lines) == 0 || b.Len()+len(heading)+len(lines[0])+3 > InstructionsCap {
		return
	}
	b.WriteString(heading)
	for _, l := range lines {
		if b.Len()+len(l)+3 > InstructionsCap {
			break
		}
		b.WriteString("- " + l + "\n")
	}
}
